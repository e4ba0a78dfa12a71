"""Parsed copies of argtrace's own bundled data, kept between runs (issue 18). Stdlib only.

A short ``check`` reads the analysed release's schema and raise-site index: JSON files of several hundred
KB whose entries are stored once per framework and expanded per release (``frameworks/schema_store.py``).
Parsing and expanding them was about a sixth of the command's CPU time, the same on every run. This module
keeps the expanded result as ``marshal`` data in the user cache (``$ARGTRACE_DATA_CACHE`` or
``<user cache>/data``), which loads several times quicker than the JSON.

The key of a copy is every file the result is built from (its path, size and modification time, so an
edited or reinstalled data file or a changed builder module gives a fresh build), the interpreter's minor
version and ``marshal`` format, and this module's format number. Only plain data is stored (``marshal``
refuses anything else, and loading it never runs code, unlike a pickle). A copy that cannot be read, fails
the CRC-32 written with it (``cache_dirs.with_crc``: cut short, a flipped bit) or does not match its key
is ignored and rebuilt, never trusted. (A copy with the right key and CRC-32 but another value can only
have been written by the user's own account, which can as well change argtrace's code: it is believed as
Python believes ``__pycache__``.) Writes go to a temporary file renamed into place, so concurrent runs
never see half a copy. A read-only or missing cache directory only costs the time it would have saved.
"""

from __future__ import annotations

import gc
import marshal
import os
import sys
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

from argtrace.cache_dirs import (
    crc_checked,
    data_cache_dir,
    data_cache_enabled,
    open_private_dir,
    read_private,
    with_crc,
    write_private,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1
# Copies this process read (their file paths), for a warm process to read ahead for the next command
# (argtrace/warm/), and what it read ahead: path -> (key, value), each handed to the first lookup of that
# file whose key is the same, then forgotten (a caller may change what it gets; the next gets its own).
_read_paths: list[str] = []
_read_ahead: dict[str, tuple[str, Any]] = {}
_read_ahead_stamps: dict[str, tuple[int, int, int]] = {}
# a copy kept in parts (resolver/data_parts.py) starts with this; read ahead, its bytes are kept as they are
# (each lookup checks the index and reads its own parts from them)
PARTS_MARK = b"argtrace-parts1\n"
_read_ahead_raw: dict[str, bytes] = {}


def cache_root() -> Path:
    return Path(data_cache_dir())


def _key(name: str, sources: Sequence[Path]) -> str | None:
    """Everything the copy stands for, as text: stored in the copy and compared in full when it is read."""
    parts: list[object] = [FORMAT, name, sys.version_info[:2], marshal.version]
    for source in sources:
        try:
            stat = source.stat()
        except OSError:
            return None  # a source that cannot be read: build (and fail) as without a cache
        parts.append((str(source), stat.st_size, stat.st_mtime_ns))
    return repr(parts)


def cached(name: str, sources: Sequence[Path], build: Callable[[], Any]) -> Any:
    """``build()``, or the copy of what it returned for the same ``sources`` on an earlier run.

    ``name`` says what is built (one file per name is kept: a newer key replaces the older copy);
    ``build`` must return plain data (dicts, lists, tuples, strings, numbers, booleans, None), and must
    depend only on the contents of ``sources`` (include the module that builds it)."""
    key = _key(name, sources) if data_cache_enabled() else None
    if key is None:
        return build()
    root = cache_root()
    # the file name tells copies apart; the whole key, stored in the copy, decides (hashlib's import alone
    # would cost more than a short check's lookups)
    name_of = f"{name}-{zlib.crc32(key.encode()):08x}.marshal"
    dir_fd = open_private_dir(str(root), create=True)
    if dir_fd is None:
        return build()  # a directory others can change: its copies would not be ours to believe
    try:
        return _through(dir_fd, root, name, name_of, key, build)
    finally:
        os.close(dir_fd)


def _through(dir_fd: int, root: Path, name: str, name_of: str, key: str, build: Callable[[], Any]) -> Any:
    path = str(root / name_of)
    ahead = _read_ahead.pop(path, None)
    if ahead is not None and ahead[0] == key:
        _read_paths.append(path)
        return ahead[1]
    raw = crc_checked(read_private(dir_fd, name_of))  # None: absent, cut short or damaged
    if raw is not None:
        try:
            stored = _loads(raw)
            if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == key:
                _read_paths.append(path)
                return stored[1]
        except (EOFError, ValueError, TypeError, MemoryError):
            pass  # does not unmarshal (MemoryError: a declared length it cannot allocate): build it again
    value = build()
    try:
        data = with_crc(marshal.dumps((key, value)))
    except ValueError:
        return value  # not plain data: nothing to keep
    _keep(dir_fd, root, name, name_of, data)
    return value


def _keep(dir_fd: int, root: Path, name: str, name_of: str, data: bytes) -> None:
    """Write a copy (whole, by renaming) and remove the copies of ``name`` made for older inputs."""
    if write_private(dir_fd, name_of, data):
        try:
            for stale in root.glob(f"{name}-{'[0-9a-f]' * 8}.marshal"):  # copies of older inputs
                if stale.name != name_of:
                    os.unlink(stale.name, dir_fd=dir_fd)
        except OSError:
            pass


def _loads(raw: bytes | memoryview) -> Any:
    """``marshal.loads`` with the cyclic collector off: a copy is plain data, which holds no cycle, but its
    tens of thousands of new containers set off collections that walk the whole heap, and after the analysis
    of a big script that heap is millions of objects (the release index's copy took 25-30 ms instead of
    1 ms after a 1 MB script, issue 18)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        return marshal.loads(raw)
    finally:
        if was_on:
            gc.enable()


def paths_read() -> list[str]:
    """The copies this process has read so far (a warm process's child reports them, argtrace/warm/)."""
    return list(_read_paths)


def read_ahead(paths: Sequence[str]) -> None:
    """Read these copies now, for the first lookup of each in this process or a child forked from it: a
    warm process's children would each read the same ones again. Only copies in the data cache directory,
    read as :func:`cached` reads them; the key is checked at the lookup."""
    root = cache_root()
    dir_fd = open_private_dir(str(root))
    if dir_fd is None:
        return
    try:
        for path in paths:
            directory, name_of = os.path.split(path)
            if directory != str(root) or not name_of.endswith(".marshal"):
                continue
            try:
                st = os.stat(name_of, dir_fd=dir_fd, follow_symlinks=False)
            except OSError:
                continue
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
            if _read_ahead_stamps.get(path) == stamp and (path in _read_ahead or path in _read_ahead_raw):
                continue  # read ahead already, unchanged since
            _read_ahead_stamps[path] = stamp
            whole = read_private(dir_fd, name_of)
            if whole is not None and whole.startswith(PARTS_MARK):
                _read_ahead_raw[path] = whole
                continue
            raw = crc_checked(whole)
            try:
                stored = _loads(raw) if raw is not None else None
            except (EOFError, ValueError, TypeError, MemoryError):
                continue
            if isinstance(stored, tuple) and len(stored) == 2 and isinstance(stored[0], str):
                _read_ahead[path] = stored
    finally:
        os.close(dir_fd)


def clear() -> tuple[Path, int]:
    """Remove every kept copy, ``why``'s lookup files and the dataclasses' compiled methods (``argtrace
    resolver clear-cache``); (the directory, files removed)."""
    root = cache_root()
    removed = 0
    if root.is_dir():
        for entry in root.iterdir():
            # .lookup: why's per-framework files (resolver/message_lookup.py)
            if entry.is_file() and entry.suffix in (".marshal", ".lookup"):
                try:
                    entry.unlink()
                    removed += 1
                except OSError:
                    pass
    return root, removed
