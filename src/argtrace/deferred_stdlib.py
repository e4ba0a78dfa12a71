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

``pathlib`` also imports ``ntpath`` (30 KB of bytecode: ``PureWindowsPath``'s module) and ``fnmatch``
(``glob`` and ``match`` patterns), neither of which a ``check`` of a launch script calls (imports34). Each
stands in ``sys.modules`` the same way while ``pathlib`` is imported, as a module
(:class:`_ModuleOnFirstUse`) whose first attribute read imports the real one and reads it there;
``pathlib`` keeps the stand-in, every later ``import ntpath`` gets the real module.
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


class _ModuleOnFirstUse(ModuleType):
    """Stands for a module ``pathlib`` imports whole (``ntpath``, ``fnmatch``): any attribute is read from
    the real module, imported at the first read."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # the import system's own questions are not a use
        import importlib

        module_name = ModuleType.__getattribute__(self, "__name__")
        if sys.modules.get(module_name) is self:
            del sys.modules[module_name]
        return getattr(importlib.import_module(module_name), name)


# imported whole by pathlib (3.10-3.12) and never used by a check: deferred to their first use
_WITH_PATHLIB = ("ntpath", "fnmatch")


def import_pathlib() -> ModuleType:
    """``pathlib``, imported with ``urllib.parse`` deferred to ``Path.as_uri``'s first call when neither is
    loaded yet (3.10-3.12)."""
    if "pathlib" in sys.modules or _URLLIB_PARSE in sys.modules or sys.version_info >= (3, 13):
        import pathlib

        return pathlib
    stand_ins: dict[str, ModuleType] = {_URLLIB_PARSE: _UrllibParseOnFirstUse(_URLLIB_PARSE)}
    stand_ins.update((name, _ModuleOnFirstUse(name)) for name in _WITH_PATHLIB if name not in sys.modules)
    sys.modules.update(stand_ins)
    try:
        import pathlib
    finally:
        for name, stand_in in stand_ins.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
    return pathlib
