"""SHA-256 without loading OpenSSL, for the short keys and masks a ``check`` computes.

``hashlib`` loads OpenSSL's libcrypto on import (3.5 ms here, issue 18), while CPython's own SHA-256
module is a small extension of the interpreter (1.4 ms). A check hashes a few kilobytes (the script for
shellcheck's cache key, each secret for its mask), where OpenSSL's speed does not matter. The standard
library's ``random`` makes the same choice for SHA-512. Interpreters without the module (other
implementations, builds without it) get ``hashlib``'s.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@functools.cache
def _constructor() -> Callable[[bytes], Any]:
    """Found once per process: the failed imports would otherwise be retried for every secret masked."""
    try:
        from _sha256 import sha256  # CPython <= 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # CPython >= 3.12
        except ImportError:
            from hashlib import sha256
    return sha256


def sha256(data: bytes = b"") -> Any:
    """A SHA-256 hash object (``update``, ``hexdigest``), as ``hashlib.sha256(data)``."""
    return _constructor()(data)
