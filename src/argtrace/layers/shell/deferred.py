"""Methods of the interpreter's classes whose code is loaded on first use (code35).

A plain launch script runs few of the interpreter's paths: no loop, no ``case``, no pipeline. Their methods
live in modules of their own (``control_loops.py``, ...), as functions that take the interpreter as
``self``; the class holds a :class:`Deferred` in each one's place, which imports the module the first time
the method is looked up and puts the function on the class instead of itself, so every later call costs
what a plain method's does (a ``functools.cached_property`` of the module likewise). The same code runs
either way; only when it is read differs.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Deferred:
    """A method whose code is ``module``'s function of the same name."""

    __slots__ = ("module", "name", "owner")

    def __init__(self, module: str) -> None:
        self.module = module

    def __set_name__(self, owner: type, name: str) -> None:
        self.owner = owner
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        import functools
        import importlib

        function = getattr(importlib.import_module(self.module), self.name)
        setattr(self.owner, self.name, function)  # from now on a plain method of the class
        if isinstance(function, functools.cached_property):
            # made outside a class body, so told its name here (release_view.py's cached properties)
            function.__set_name__(self.owner, self.name)
        return function if instance is None else function.__get__(instance, owner)
