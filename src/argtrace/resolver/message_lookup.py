"""The message index of one framework as a file ``argtrace why`` reads only the needed parts of (issue 18).

``why`` compares a pasted text with the sites that share at least two of its words (the prefilter of
``layers/log/messages.py``): a few hundred of a framework's 25,000-30,000 sites. Loading every site to find
them (a 13.6-15.8 MB ``marshal`` copy per framework, about 150 MB once decoded) was most of the command's time
and memory. This module keeps, per framework, one file in the data cache (``$ARGTRACE_DATA_CACHE`` or
``<user cache>/data``, beside ``resolver/data_cache.py``'s copies) that holds:

- a small *table* read whole (about 1-2 MB): the releases, the word -> sites inverted index (postings as
  packed ``uint32``), each site's count of distinct words and its releases (a bit per release), and where
  each site's record starts, with a CRC-32 per record;
- the *records*: one ``marshal`` row per site, in the order of the full list, read one by one (through
  ``mmap``) only for the sites the prefilter keeps.

The file is built from the bundled index files on the first run that needs it (by the builder
``message_store.py`` passes in, the same code that built the whole list before) and is keyed like the data
cache's copies (every source file's path, size and modification time, the interpreter's minor version and
``marshal`` format, this file format). A file whose key differs, whose table or a record fails its CRC-32
or does not unmarshal is never trusted: :class:`Lookup` raises :class:`Damaged` and the caller rebuilds
(:func:`open_lookup` with ``rebuild=True``). Writes go to a temporary file renamed into place; a cache that
cannot be written keeps the same bytes in memory (``ARGTRACE_NO_DATA_CACHE=1`` too), so the answers never
depend on the cache. Stdlib only.
"""

from __future__ import annotations

import marshal
import mmap
import os
import struct
import zlib
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAGIC = b"argtrace-why-lookup\n"
FORMAT = 1
_HEAD = struct.Struct("<QQI")  # table offset, table length, table CRC-32 (after the key)
SUFFIX = ".lookup"


class Damaged(Exception):
    """The file's table or a record is not what was written (failed CRC-32 or ``marshal``)."""


@dataclass
class Built:
    """What a lookup file is made of, from the builder: the sites as plain ``marshal``-able rows in their
    full-list order, and what the prefilter reads without them."""

    releases: list[str]  # the releases the framework's message index covers
    rows: list[tuple[Any, ...]]
    words: dict[str, list[int]]  # literal word -> rows holding it (ascending)
    distinct: list[int]  # per row: its distinct words of 3+ characters
    versions: list[Iterable[str]]  # per row: the releases it is in


def _encode(built: Built, key: str) -> bytes:
    every = sorted({v for vs in built.versions for v in vs})
    bit = {v: 1 << i for i, v in enumerate(every)}
    masks = [sum(bit[v] for v in set(vs)) for vs in built.versions]
    records = [marshal.dumps(row) for row in built.rows]
    offsets = array("Q", [0])
    for blob in records:
        offsets.append(offsets[-1] + len(blob))
    crcs = array("I", (zlib.crc32(blob) for blob in records))
    postings = {word: array("I", ids).tobytes() for word, ids in built.words.items()}
    table = marshal.dumps(
        (
            tuple(built.releases),
            tuple(every),
            masks,
            bytes(built.distinct) if max(built.distinct, default=0) < 256 else built.distinct,
            postings,
            offsets.tobytes(),
            crcs.tobytes(),
        )
    )
    keyed = marshal.dumps(key)
    start = len(MAGIC) + 4 + len(keyed) + _HEAD.size
    head = MAGIC + struct.pack("<I", len(keyed)) + keyed + _HEAD.pack(start, len(table), zlib.crc32(table))
    return head + table + b"".join(records)


class Lookup:
    """One framework's lookup file (or the same bytes in memory), read part by part."""

    def __init__(self, data: bytes | mmap.mmap, key: str) -> None:
        self._data = data
        self._rows: dict[int, tuple[Any, ...]] = {}
        try:
            if data[: len(MAGIC)] != MAGIC:
                raise Damaged("not a lookup file")
            (size,) = struct.unpack_from("<I", data, len(MAGIC))
            at = len(MAGIC) + 4
            stored = marshal.loads(data[at : at + size])
            if stored != key:
                raise Damaged("built from other sources")
            start, length, crc = _HEAD.unpack_from(data, at + size)
            table = data[start : start + length]
            if len(table) != length or zlib.crc32(table) != crc:
                raise Damaged("table")
            releases, versions, masks, distinct, postings, offsets, crcs = marshal.loads(table)
        except (ValueError, EOFError, TypeError, struct.error) as err:
            raise Damaged(str(err)) from err
        self.releases: tuple[str, ...] = releases
        self.versions: tuple[str, ...] = versions
        self.masks: list[int] = masks
        self.distinct: Sequence[int] = distinct
        self._postings: dict[str, bytes] = postings
        self._offsets = array("Q")
        self._offsets.frombytes(offsets)
        self._crcs = array("I")
        self._crcs.frombytes(crcs)
        self._base = start + length
        if not (len(self._offsets) == len(self._crcs) + 1 == len(masks) + 1 == len(distinct) + 1):
            raise Damaged("table sizes")
        if self._base + self._offsets[-1] != len(data):
            raise Damaged("records")

    def __len__(self) -> int:
        return len(self.masks)

    def postings(self, word: str) -> array[int]:
        """The rows holding ``word`` (ascending; empty for a word no site has)."""
        out = array("I")
        found = self._postings.get(word)
        if found:
            out.frombytes(found)
        return out

    def in_release(self, version: str) -> Callable[[int], bool]:
        """Whether a row is a site of ``version`` (``version in site.at``)."""
        try:
            bit = 1 << self.versions.index(version)
        except ValueError:
            return lambda i: False
        masks = self.masks
        return lambda i: bool(masks[i] & bit)

    def row(self, i: int) -> tuple[Any, ...]:
        """Row ``i`` as the builder gave it (read and checked once)."""
        row = self._rows.get(i)
        if row is None:
            start, end = self._base + self._offsets[i], self._base + self._offsets[i + 1]
            blob = self._data[start:end]
            if zlib.crc32(blob) != self._crcs[i]:
                raise Damaged(f"record {i}")
            try:
                row = marshal.loads(blob)
            except (ValueError, EOFError, TypeError) as err:
                raise Damaged(f"record {i}") from err
            if not isinstance(row, tuple):
                raise Damaged(f"record {i}")
            self._rows[i] = row
        return row

    def close(self) -> None:
        if isinstance(self._data, mmap.mmap):
            self._data.close()


def _write(path: Path, data: bytes, stale: Iterable[str]) -> bool:
    """``data`` at ``path`` (mode 0600, through a new temporary file renamed into place, in a directory only
    the user can change: ``cache_dirs``); older copies removed. Before session 15's probe the file was 0644
    in a directory made 0755, and written through ``Path.write_bytes`` at a fixed temporary name, so a link
    planted there made ``why`` overwrite the file it pointed to."""
    import fnmatch

    from argtrace.cache_dirs import open_private_dir, write_private

    patterns = list(stale)
    dir_fd = open_private_dir(str(path.parent), create=True)
    if dir_fd is None:
        return False
    try:
        if not write_private(dir_fd, path.name, data):
            return False
        for old in os.listdir(dir_fd):
            if old != path.name and any(fnmatch.fnmatchcase(old, pattern) for pattern in patterns):
                try:
                    os.unlink(old, dir_fd=dir_fd)
                except OSError:
                    pass
    except OSError:
        return False
    finally:
        os.close(dir_fd)
    return True


def _mapped(path: Path) -> mmap.mmap | None:
    """The file mapped, when it is the user's own in a directory nobody else can change (never a link)."""
    from argtrace.cache_dirs import open_private_dir, open_private_file

    dir_fd = open_private_dir(str(path.parent))
    if dir_fd is None:
        return None
    try:
        fd = open_private_file(dir_fd, path.name)
    finally:
        os.close(dir_fd)
    if fd is None:
        return None
    try:
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # unreadable or empty
        return None
    finally:
        os.close(fd)


def open_lookup(
    name: str,
    sources: Sequence[Path],
    build: Callable[[], Built],
    stale: Sequence[str] = (),
    rebuild: bool = False,
) -> Lookup:
    """The lookup ``name`` for ``sources``: the data cache's file when it was built from the same sources
    and is whole, else built now (``build()``) and written there for the next run. ``rebuild``: a file
    found damaged while reading it is built again, never trusted. ``stale``: glob patterns of the cache's
    older copies of the same data (removed once the file is written)."""
    from argtrace.cache_dirs import data_cache_enabled
    from argtrace.resolver.data_cache import _key, cache_root

    key = _key(f"{name}-lookup-{FORMAT}", sources) if data_cache_enabled() else None
    if key is None:
        return Lookup(_encode(build(), ""), "")
    path = cache_root() / f"{name}-{zlib.crc32(key.encode()):08x}{SUFFIX}"
    if not rebuild:
        data = _mapped(path)
        if data is not None:
            try:
                return Lookup(data, key)
            except Damaged:
                data.close()
    encoded = _encode(build(), key)
    if _write(path, encoded, [f"{name}-{'[0-9a-f]' * 8}{SUFFIX}", *stale]):
        data = _mapped(path)
        if data is not None:
            try:
                return Lookup(data, key)
            except Damaged:  # changed under us (another run's write): the bytes built here are the answer
                data.close()
    return Lookup(encoded, key)
