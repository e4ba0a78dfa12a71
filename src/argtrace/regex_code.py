"""The programs ``re`` compiles regular expressions to, kept between runs (issue 18).

A pattern is compiled in two steps: ``re._parser`` parses its text and ``re._compiler`` turns the parse into
a program, a list of integers that ``_sre.compile`` makes into the ``Pattern`` object. Both steps are pure
Python, and a short ``check`` compiles about 130 patterns (the modules' constants and the analysis' own):
some 6 ms, 5% of its CPU time, the same texts on every run. ``re`` caches compiled patterns for the process
only.

While :func:`kept` is active, ``re._compiler.compile`` (the one name ``re._compile`` calls for a pattern
it has not cached, in Python 3.11 to 3.13) is :meth:`Store.compile`. For a pattern text and flags compiled
on an earlier run it calls ``_sre.compile`` with the kept program; otherwise it compiles the pattern the
way ``re._compiler.compile`` does and keeps the program only when the resulting ``Pattern`` equals the one
``re`` itself makes (``Pattern.__eq__`` compares the flags, the text and every word of the program). The
lookup is by the whole text and flags, so a changed pattern can only miss; ``_sre.compile`` validates a
program before using it (``_validate`` in ``Modules/_sre/sre.c``), as it does for ``re``'s own.

The store is one ``marshal`` file per command and interpreter build in the data cache, read and written
only through ``cache_dirs.open_private_dir`` as ``dataclass_code``'s is. A program's words are kept packed
(:func:`packed`: ``_sre.CODESIZE`` bytes each, in the machine's order, one ``bytes`` object): ``marshal``
reads ~13,000 words kept as a list of ints an object at a time (2.8 M instructions of a check's 3.3 M read
of the store, cold33), a ``bytes`` object at once, and only the programs a run uses are unpacked into the
list ``_sre.compile`` wants. An entry is checked where it is used (a value of another shape, or words that
do not unpack, is compiled anew), not each entry at the read. Python 3.10 has no
``re._compiler``: there, nothing is kept.
"""

from __future__ import annotations

import _thread
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, TypeAlias

FORMAT = 2  # 2: the words packed (cold33)
MAX_ENTRIES = 4000  # past this, only the patterns this run used are kept when the store is written
_lock = _thread.allocate_lock()  # threading.Lock, without importing threading
_active: list[Store] = []
# Stores a warm process read ahead (argtrace/warm/server.py: :func:`read_ahead`), each handed to the first
# store of its file that a forked child opens while the file is unchanged, then forgotten: path ->
# ((mtime_ns, size, inode), programs).
_read_ahead: dict[str, tuple[tuple[int, int, int], dict[Any, Any]]] = {}

# (flags, program, groups - 1, groupindex, indexgroup): the arguments of ``_sre.compile`` after the text
Program: TypeAlias = "tuple[int, list[int], int, dict[str, int], tuple[Any, ...]]"
# The same with the program's words packed (:func:`packed`): what the store keeps
Packed: TypeAlias = "tuple[int, bytes, int, dict[str, int], tuple[Any, ...]]"
_WORD: Final = "I"  # memoryview's format for _sre's code word: an unsigned int, _sre.CODESIZE (4) bytes


def packed(found: Program) -> Packed:
    """``found`` with its words as bytes; ValueError or OverflowError when a word does not fit, or the
    word format is not ``_sre.CODESIZE`` bytes (the entry is then not kept)."""
    import _sre

    flags, code, groups, groupindex, indexgroup = found
    words = memoryview(bytearray(_sre.CODESIZE * len(code))).cast(_WORD)
    if words.itemsize != _sre.CODESIZE:
        raise ValueError("the word format is not _sre's code size")
    for index, word in enumerate(code):
        words[index] = word  # ValueError for a word out of range
    return flags, words.tobytes(), groups, groupindex, indexgroup


def unpacked(kept: Any) -> tuple[Any, ...]:
    """``_sre.compile``'s arguments after the text from a stored entry; TypeError or ValueError for an entry
    of another shape (FORMAT 1's list of words, a length not a multiple of the word)."""
    flags, code, groups, groupindex, indexgroup = kept
    if not isinstance(code, bytes):
        raise TypeError("the words are not packed")
    return flags, memoryview(code).cast(_WORD).tolist(), groups, groupindex, indexgroup


def _build() -> str:
    """What must match for a kept program to be valid: the interpreter's build (the program's opcodes and
    ``_sre.MAGIC`` change between releases) and the machine's byte order."""
    import _sre

    # the byte order too: the words are packed in the machine's order (a data cache shared by machines)
    return repr((FORMAT, sys.version, sys.implementation.cache_tag, _sre.MAGIC, _sre.CODESIZE, sys.byteorder))


def program(pattern: str | bytes, flags: int) -> Program:
    """What ``re._compiler.compile`` hands ``_sre.compile`` for ``pattern`` (3.11-3.13)."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = [int(word) for word in _compiler._code(parsed, flags)]  # opcodes are int subclasses
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[Any] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return int(flags | parsed.state.flags), code, parsed.state.groups - 1, groupindex, tuple(indexgroup)


class Store:
    """The programs read from the store file, and those compiled since."""

    def __init__(self, path: str | None, original: Any) -> None:
        self.path = path
        self.original = original  # re._compiler.compile
        self._programs: dict[Any, Any] | None = None if path is not None else {}  # as read: checked at use
        self.new: dict[tuple[str | bytes, int], Packed] = {}
        self.used: set[tuple[str | bytes, int]] = set()

    @property
    def programs(self) -> dict[Any, Any]:
        """Read at the first pattern compiled, not when the store is installed (as dataclass_code's)."""
        if self._programs is None:
            self._programs = _read_once(self.path) if self.path is not None else {}
        return self._programs

    def compile(self, pattern: Any, flags: int = 0) -> Any:
        import re

        if not isinstance(pattern, (str, bytes)) or flags & re.DEBUG:  # a parsed pattern; printing
            return self.original(pattern, flags)
        key = (pattern, int(flags))
        kept = self.programs.get(key) or self.new.get(key)
        if kept is not None:
            import _sre

            try:
                made = _sre.compile(pattern, *unpacked(kept))
            except (RuntimeError, TypeError, ValueError, OverflowError):  # a damaged entry: compiled anew
                self.programs.pop(key, None)
            else:
                self.used.add(key)
                return made
        made = self.original(pattern, flags)  # errors are raised as re raises them
        try:
            import _sre

            found = program(pattern, flags)
            if _sre.compile(pattern, *found) == made:
                self.new[key] = packed(found)
                self.used.add(key)
        except Exception:  # another interpreter's internals: nothing is kept, re's result stands
            pass
        return made

    def save(self) -> None:
        if self.path is None or not self.new:
            return
        programs = {key: value for key, value in self.programs.items() if _well_formed(key, value)}
        programs.update(self.new)
        if len(programs) > MAX_ENTRIES:
            programs = {key: value for key, value in programs.items() if key in self.used}
        from argtrace.cache_dirs import dumps_checked, write_private_file

        data = dumps_checked((_build(), programs))  # behind its CRC-32; None: marshal refused it
        if data is not None:
            write_private_file(self.path, data)


def _stamp(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def read_ahead(command: str) -> None:
    """Read ``command``'s store now, for the first store of it this process (or a child forked from it)
    opens: a warm process's child compiles the patterns its command builds at run time, and would read the
    whole store for them on each command."""
    path = store_path(command)
    stamp = _stamp(path) if path is not None else None
    if path is not None and stamp is not None:
        _read_ahead[path] = (stamp, _read(path))


def _read_once(path: str) -> dict[Any, Any]:
    ahead = _read_ahead.pop(path, None)
    if ahead is not None and ahead[0] == _stamp(path):
        return ahead[1]
    return _read(path)


def _read(path: str) -> dict[Any, Any]:
    """The store's entries as written: each is checked where it is used (:meth:`Store.compile`), and only
    well-formed ones are written back (:meth:`Store.save`)."""
    from argtrace.cache_dirs import loads_checked, read_private_file

    data = read_private_file(path)
    if data is None:
        return {}
    stored = loads_checked(data)  # None: cut short, damaged (its CRC-32) or not marshal data
    if not (isinstance(stored, tuple) and len(stored) == 2):
        return {}
    build, programs = stored
    if build != _build() or not isinstance(programs, dict):
        return {}
    return programs


def _well_formed(key: Any, value: Any) -> bool:
    return (
        isinstance(key, tuple)
        and len(key) == 2
        and isinstance(key[0], (str, bytes))
        and isinstance(key[1], int)
        and isinstance(value, tuple)
        and len(value) == 5
        and isinstance(value[1], bytes)
    )


def store_path(command: str = "argtrace") -> str | None:
    from argtrace.cache_dirs import data_cache_dir, data_cache_enabled

    if not data_cache_enabled() or not hasattr(os, "getuid"):
        return None
    return os.path.join(data_cache_dir(), f"regex-code-{command}-{sys.implementation.cache_tag}.marshal")


@contextmanager
def kept(path: str | None = None, command: str = "argtrace") -> Iterator[Store | None]:
    """Patterns compiled inside use (and add to) the store at ``path`` (default: ``command``'s store).
    Nested uses share the outermost one's store; it is written when that one ends."""
    try:
        from re import _compiler  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10: sre_compile, not kept
        yield None
        return
    with _lock:
        outer = not _active
        if outer:
            chosen = path if path is not None else store_path(command)
            if chosen is None:
                outer = False
            else:
                store = Store(chosen, _compiler.compile)
                _active.append(store)
                _compiler.compile = store.compile
    if not outer:
        yield _active[0] if _active else None
        return
    try:
        yield store
    finally:
        with _lock:
            _active.clear()
            _compiler.compile = store.original
        store.save()
