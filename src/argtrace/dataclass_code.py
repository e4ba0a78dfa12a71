"""The methods ``dataclasses`` generates, compiled once and kept between runs (issue 18).

When a dataclass is created, ``dataclasses`` writes the source text of its ``__init__``, ``__repr__``,
``__eq__``, ``__hash__`` and (frozen) ``__setattr__``/``__delattr__`` and compiles it with ``exec``. A
short ``check`` creates about 90 dataclasses: compiling their ~430 small functions was a quarter of its CPU
time, the same texts on every run. Python keeps the bytecode of modules (``__pycache__``), not of these.

While :func:`kept` is active, the name ``exec`` in the ``dataclasses`` module (looked up in its globals
before the builtins, in every release from 3.10 to 3.13: ``exec(txt, globals, ns)``) is :meth:`Store.exec`.
It runs the code object compiled from exactly that source text on an earlier run, or compiles it as
``exec`` would (no inherited ``__future__`` flags, the interpreter's optimisation level) and keeps it. The
lookup is by the whole text, so a changed dataclass can only miss, never get another class's code: the
classes are the same objects with the same methods as without the store (tests/test_dataclass_code.py
compares them). Nothing else in the process changes, and the ``exec`` name is removed again on exit.

The store is one ``marshal`` file per command and interpreter build in the data cache
(``cache_dirs.data_cache_dir``): each command loads only the methods of the modules it imports (a check's
are 432, 0.5 MB), not every command's.
Like ``__pycache__``, it holds code that will run, so it is read and written only through
``cache_dirs.open_private_dir``: a store in a directory others can write to, a symbolic link, a file that is
not the user's own or that others can write to is ignored (and none is written there), as are a corrupt
file and one written by another interpreter build. A store the user's own account wrote is trusted as
Python trusts ``__pycache__`` (whoever can write the user's files can already change their code).
``ARGTRACE_NO_DATA_CACHE=1`` turns it off.
"""

from __future__ import annotations

import _thread
import functools
import marshal
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import CodeType, ModuleType
from typing import Any

FORMAT = 1
# entries kept when the store is written: past this, only those this run used (the rest are old texts of
# dataclasses since edited, or of commands run rarely) are kept
MAX_ENTRIES = 4000
_lock = _thread.allocate_lock()  # threading.Lock, without importing threading
_active: list[Store] = []  # the store installed by the outermost kept() of this process, while it runs


class _MatchOnce:
    """Stands for ``dataclasses._MODULE_IDENTIFIER_RE`` while the store is installed: the same pattern, each
    annotation text matched once.

    ``dataclasses._is_type`` matches a string annotation (every argtrace annotation: ``from __future__
    import annotations``) against it two or three times per field, to see whether it names ``ClassVar``,
    ``InitVar`` or ``KW_ONLY`` (3.10-3.13, its only use). A match is ~4,600 instructions, ~1,750 of them in
    a check (8 M, 1.5%) for ~150 distinct texts. A match depends on the text alone and a ``re.Match`` cannot
    be changed, so the one kept for a text is what a new match would be; what the names are bound to is still
    looked up in the class's module each time."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.match = functools.lru_cache(maxsize=None)(pattern.match)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern, name)


def _build() -> str:
    """What must match for a compiled code object to be valid here: the interpreter's build and its
    optimisation level (``-O`` drops asserts from compiled code)."""
    return repr((FORMAT, sys.version, sys.implementation.cache_tag, marshal.version, sys.flags.optimize))


class Store:
    """The compiled methods read from the store file, and those compiled since."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._codes: dict[str, CodeType] | None = None if path is not None else {}
        self.new: dict[str, CodeType] = {}
        self.used: set[str] = set()

    @property
    def codes(self) -> dict[str, CodeType]:
        """Read at the first dataclass made, not when the store is installed: a command whose modules are
        all imported already (a warm process's child, argtrace/warm/) makes none and reads nothing."""
        if self._codes is None:
            self._codes = _read(self.path) if self.path is not None else {}
        return self._codes

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        if not isinstance(source, str):
            exec(source, globals, locals)
            return
        code = self.codes.get(source) or self.new.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            self.new[source] = code
        self.used.add(source)
        exec(code, globals, locals)

    def save(self) -> None:
        """Write the store when this run compiled anything (atomically: concurrent runs lose at most their
        own additions)."""
        if self.path is None or not self.new:
            return
        codes = {**self.codes, **self.new}
        if len(codes) > MAX_ENTRIES:
            codes = {text: code for text, code in codes.items() if text in self.used}
        from argtrace.cache_dirs import dumps_checked, write_private_file

        data = dumps_checked((_build(), codes))  # behind its CRC-32; None: marshal refused it
        if data is not None:
            write_private_file(self.path, data)


def _read(path: str) -> dict[str, CodeType]:
    from argtrace.cache_dirs import loads_checked, read_private_file

    data = read_private_file(path)  # not a link, the user's own, in a directory nobody else can write to
    if data is None:
        return {}
    stored = loads_checked(data)  # None: cut short, damaged (its CRC-32) or not marshal data
    if not (isinstance(stored, tuple) and len(stored) == 2):
        return {}
    build, codes = stored
    if build != _build() or not isinstance(codes, dict):
        return {}
    return {t: code for t, code in codes.items() if isinstance(t, str) and isinstance(code, CodeType)}


def store_path(command: str = "argtrace") -> str | None:
    from argtrace.cache_dirs import data_cache_dir, data_cache_enabled

    if not data_cache_enabled() or not hasattr(os, "getuid"):
        return None
    name = f"dataclass-code-{command}-{sys.implementation.cache_tag}.marshal"
    return os.path.join(data_cache_dir(), name)


class _InspectOnFirstUse(ModuleType):
    """Stands for ``inspect`` in ``dataclasses`` until an attribute is asked for, then imports it.

    ``dataclasses`` imports ``inspect`` at the top (3.10-3.13) but on 3.10 and 3.11 uses it only to write
    a docstring for a class that has none (``inspect.signature``), and every argtrace dataclass has one.
    ``inspect`` brings ``ast``, ``dis``, ``tokenize`` and ``token``: 36 M instructions, 6% of a short
    check. Any use still gets the real module: the first attribute read imports it and puts it in
    ``dataclasses``' globals in place of this one (3.12+'s ``inspect.get_annotations`` does so at the
    first dataclass, costing what it did before)."""

    def __getattr__(self, name: str) -> Any:
        import importlib

        if sys.modules.get("inspect") is self:
            del sys.modules["inspect"]
        real = importlib.import_module("inspect")
        owner = sys.modules.get("dataclasses")
        if owner is not None and getattr(owner, "inspect", None) is self:
            owner.inspect = real  # type: ignore[attr-defined]
        return getattr(real, name)


def _import_dataclasses() -> ModuleType:
    """``dataclasses``, imported with ``inspect`` deferred to its first use when neither is loaded yet."""
    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        import dataclasses

        return dataclasses
    stand_in = _InspectOnFirstUse("inspect")
    sys.modules["inspect"] = stand_in
    try:
        import dataclasses
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]
    return dataclasses


@contextmanager
def kept(path: str | None = None, command: str = "argtrace") -> Iterator[Store | None]:
    """Dataclasses created inside use (and add to) the store at ``path`` (default: ``command``'s store,
    :func:`store_path`).
    Nested or concurrent uses share the outermost one's store; it is written when that one ends."""
    dataclasses = _import_dataclasses()
    identifier: Any = None
    with _lock:
        outer = not _active
        if outer:
            chosen = path if path is not None else store_path(command)
            if chosen is None:
                outer = False
            else:
                store = Store(chosen)
                _active.append(store)
                dataclasses.exec = store.exec  # type: ignore[attr-defined]
                identifier = getattr(dataclasses, "_MODULE_IDENTIFIER_RE", None)
                if isinstance(identifier, re.Pattern):
                    dataclasses._MODULE_IDENTIFIER_RE = _MatchOnce(identifier)  # type: ignore[attr-defined]
    if not outer:
        yield _active[0] if _active else None
        return
    try:
        yield store
    finally:
        with _lock:
            _active.clear()
            del dataclasses.exec
            if isinstance(identifier, re.Pattern):
                dataclasses._MODULE_IDENTIFIER_RE = identifier  # type: ignore[attr-defined]
        store.save()
