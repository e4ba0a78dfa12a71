"""Standard-library modules imported with what they import only for a rarely used function deferred to
that function's first use (issue 18).

``pathlib`` (3.10-3.12) imports ``urllib.parse`` at the top for one function, ``quote_from_bytes``, which
only ``Path.as_uri`` calls; ``urllib.parse`` imports ``ipaddress``, which builds its network constants at
import: 8.3 M instructions, 1.4% of a short ``check``, which never asks for a URI. :func:`import_pathlib`
imports ``pathlib`` with a stand-in for ``urllib.parse`` in ``sys.modules`` whose ``quote_from_bytes``
imports the real module at its first call and calls the real function (the same result: ``as_uri``'s
texts are compared in tests/test_deferred_stdlib.py); any other attribute read from the stand-in imports
the real module too. The stand-in leaves ``sys.modules`` before :func:`import_pathlib` returns, so every
later ``import urllib.parse`` gets the real module. From 3.13 ``pathlib`` imports ``urllib.parse`` in
``as_uri`` itself and nothing is done.
"""

from __future__ import annotations

import sys
from types import ModuleType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_URLLIB_PARSE = "urllib.parse"


def _real_urllib_parse() -> ModuleType:
    import importlib

    if isinstance(sys.modules.get(_URLLIB_PARSE), _UrllibParseOnFirstUse):
        del sys.modules[_URLLIB_PARSE]
    return importlib.import_module(_URLLIB_PARSE)


def _quote_from_bytes(*args: Any, **kwargs: Any) -> Any:
    """``urllib.parse.quote_from_bytes``, imported at the first call."""
    return _real_urllib_parse().quote_from_bytes(*args, **kwargs)


class _UrllibParseOnFirstUse(ModuleType):
    """Stands for ``urllib.parse`` while ``pathlib`` is imported: ``quote_from_bytes`` calls the real
    function; any other attribute imports the real module and is read from it."""

    quote_from_bytes = staticmethod(_quote_from_bytes)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            # the import system's own questions (``__path__``: is it a package?) are not a use
            raise AttributeError(name)
        return getattr(_real_urllib_parse(), name)


def import_pathlib() -> ModuleType:
    """``pathlib``, imported with ``urllib.parse`` deferred to ``Path.as_uri``'s first call when neither is
    loaded yet (3.10-3.12)."""
    if "pathlib" in sys.modules or _URLLIB_PARSE in sys.modules or sys.version_info >= (3, 13):
        import pathlib

        return pathlib
    stand_in = _UrllibParseOnFirstUse(_URLLIB_PARSE)
    sys.modules[_URLLIB_PARSE] = stand_in
    try:
        import pathlib
    finally:
        if sys.modules.get(_URLLIB_PARSE) is stand_in:
            del sys.modules[_URLLIB_PARSE]
    return pathlib
