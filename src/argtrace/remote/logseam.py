"""The host seam's one borrowed part: the shape of the log layer's reader, handed to ``remote`` from above.

:meth:`Host.scan_log <argtrace.remote.host.Host.scan_log>` reads a log where it lies with the reader its
caller (the log layer, ``layers/log/layer.py``) hands it, so ``remote`` never imports a layer
(dependencies point one way: layers -> remote) and holds no reader of its own. A :class:`LogReader` says
how to read a log here (``scan``), which source modules the node's collector loads to read it there
(``modules``, in import order; the last one's ``scan_log`` runs) and how to rebuild the scan from the plain
data that travels back (``rebuild``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class LogReader:
    """The log layer's reader as the host seam uses it (its ``Scan`` is opaque here)."""

    scan: Callable[[Path, str], Any]  # read the log on this machine: ``scan_log(path, label)``
    modules: tuple[ModuleType, ...]  # shipped to a node in this order; the last one's ``scan_log`` runs
    rebuild: Callable[[Mapping[str, Any]], Any]  # the ``Scan`` again from ``dataclasses.asdict`` output
