"""Copies of argtrace's bundled data kept in parts, each read when first asked for (issue 18). Stdlib only.

``resolver/data_cache.py`` keeps a built value as one ``marshal`` copy that every read unmarshals and
checksums whole. A check asks a store for little of it: a few of SGLang's ~650 option strings and ~1,300
variables in the release index, one or two of the seven entry points, a few of a release's ~840 variables'
records. Unmarshalling the release index and the schema's records whole was ~9 M instructions of a short
check (session 34, callgrind). :func:`cached_parts` keeps a value built as named parts: one file holding a
small index (the key, each part's place, length and CRC-32) and the parts, each ``marshal`` data of its
own. A read checks the index (its CRC-32, the key, the file's length); each part is checked against its
CRC-32 and unmarshalled when first read, so a check pays for the parts it uses. :func:`bucketed` splits a
mapping into parts by a stable hash of its keys, :class:`Buckets` reads it back as a mapping.

The safety of ``data_cache`` holds per part: a file whose index is damaged, cut short or of another key is
rebuilt before any part is read; a part that fails its CRC-32 or does not unmarshal makes the whole value
be built again (and the file rewritten), and that part is answered from the build, never trusted. The key
is ``data_cache``'s (every source's path, size and modification time, the interpreter, ``marshal``'s
format) with this module's format number and the machine's byte order (the index's spans are native).
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from argtrace.cache_dirs import data_cache_enabled, open_private_dir, read_private
from argtrace.resolver import data_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1
MARK = data_cache.PARTS_MARK
_HEAD = len(MARK) + 8  # the mark, the index's CRC-32 and its length (4 bytes each, little-endian)
_SPAN = 3  # per part: offset in the body, length, CRC-32 (native unsigned ints)


def cached_parts(
    name: str, sources: Sequence[Path], build: Callable[[], dict[str, Any]]
) -> Mapping[str, Any]:
    """``build()`` (a dict of part name -> plain data) as a read-only mapping whose values are read from the
    copy kept for the same ``sources`` when first asked for; built (and kept) when there is none.

    ``build`` must depend only on the contents of ``sources`` (include the module that builds it), as
    :func:`data_cache.cached`'s must. A value read is the caller's: each call gives its own."""
    what = f"{name}\x00parts{FORMAT}{sys.byteorder}"  # never a whole copy's key (data_cache.cached)
    key = data_cache._key(what, sources) if data_cache_enabled() else None
    if key is None:
        return Parts(build())
    root = data_cache.cache_root()
    name_of = f"{name}-{zlib.crc32(key.encode()):08x}.marshal"
    dir_fd = open_private_dir(str(root), create=True)
    if dir_fd is None:
        return Parts(build())  # a directory others can change: its copies would not be ours to believe
    try:
        path = str(root / name_of)
        raw = data_cache._read_ahead_raw.pop(path, None)
        stored = _opened(raw, key) if raw is not None else None
        if stored is None:
            stored = _opened(read_private(dir_fd, name_of), key)
        if stored is not None:
            data_cache._read_paths.append(path)
            return Parts(None, stored, lambda: _rebuild(name, name_of, key, build))
        return Parts(_write(dir_fd, root, name, name_of, key, build()))
    finally:
        os.close(dir_fd)


class Each(list["Any"]):
    """A list whose items a build wants kept as parts of their own: read back as :class:`Items`, a sequence
    that reads each item when first asked for (a check reads a few of a release's ~150 sites)."""


_Stored = tuple[Mapping[str, int], Mapping[str, int], memoryview, memoryview]


class Parts(Mapping[str, "Any"]):
    """Part name -> its value, unmarshalled (after its CRC-32 is checked) when first read; from a build's
    dict directly when nothing was kept."""

    def __init__(
        self,
        built: dict[str, Any] | None,
        stored: _Stored | None = None,
        rebuild: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self._built = built
        self._stored = stored
        self._rebuild = rebuild
        self._values: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if self._built is not None:
            return self._built[name]
        try:
            return self._values[name]
        except KeyError:
            pass
        assert self._stored is not None
        names, runs, _, _ = self._stored
        position = names[name]  # KeyError: no such part
        run = runs.get(name)
        value = Items(self, name, position, run) if run is not None else self.part(position, name, None)
        self._values[name] = value
        return value

    def part(self, position: int, name: str, item: int | None) -> Any:
        """The part at ``position`` (``name``, or its ``item``-th item), checked and unmarshalled."""
        if self._built is not None:
            return self._built[name] if item is None else self._built[name][item]
        assert self._stored is not None and self._rebuild is not None
        _, _, spans, body = self._stored
        at = position * _SPAN
        value: Any = _DAMAGED
        if 0 <= at and at + _SPAN <= len(spans):
            offset, length, crc = spans[at], spans[at + 1], spans[at + 2]
            piece = body[offset : offset + length]
            if len(piece) == length and zlib.crc32(piece) == crc:
                try:
                    value = data_cache._loads(piece)
                except (EOFError, ValueError, TypeError, MemoryError):
                    pass  # does not unmarshal: built again below
        if value is _DAMAGED:
            self._built = self._rebuild()  # a damaged part: every later read comes from the build
            return self.part(position, name, item)
        return value

    def __contains__(self, name: object) -> bool:
        if self._built is not None:
            return name in self._built
        return self._stored is not None and name in self._stored[0]

    def __iter__(self) -> Iterator[str]:
        if self._built is not None:
            return iter(self._built)
        return iter(self._stored[0] if self._stored is not None else ())

    def __len__(self) -> int:
        if self._built is not None:
            return len(self._built)
        return len(self._stored[0]) if self._stored is not None else 0


class Items(Sequence["Any"]):
    """The items of an :class:`Each` kept in parts, each read when first asked for."""

    def __init__(self, parts: Parts, name: str, first: int, count: int) -> None:
        self._parts = parts
        self._name = name
        self._first = first
        self._count = count
        self._values: dict[int, Any] = {}

    def __getitem__(self, item: int) -> Any:  # type: ignore[override]
        if not 0 <= item < self._count:
            raise IndexError(item)
        try:
            return self._values[item]
        except KeyError:
            value = self._values[item] = self._parts.part(self._first + item, self._name, item)
            return value

    def __len__(self) -> int:
        return self._count


_DAMAGED = object()


def _opened(raw: bytes | None, key: str) -> _Stored | None:
    """(part name -> position, runs' lengths by name, the spans, the body) of a kept file when its index is
    whole, of ``key``, and its body as long as the index says; else None (absent, damaged, cut short,
    foreign or older)."""
    if raw is None or not raw.startswith(MARK) or len(raw) < _HEAD:
        return None
    crc = int.from_bytes(raw[len(MARK) : len(MARK) + 4], "little")
    size = int.from_bytes(raw[len(MARK) + 4 : _HEAD], "little")
    view = memoryview(raw)
    index = view[_HEAD : _HEAD + size]
    if len(index) != size or zlib.crc32(index) != crc:
        return None
    try:
        stored = data_cache._loads(index)
    except (EOFError, ValueError, TypeError, MemoryError):
        return None
    if not (isinstance(stored, tuple) and len(stored) == 5 and stored[0] == key):
        return None
    _, names, runs, spans, total = stored
    body = view[_HEAD + size :]
    if not (isinstance(names, dict) and isinstance(runs, dict) and isinstance(spans, bytes)):
        return None
    if len(body) != total or len(spans) % (4 * _SPAN):
        return None
    return names, runs, memoryview(spans).cast("I"), body


def _packed(key: str, value: dict[str, Any]) -> bytes:
    """The file of ``value``'s parts: head, index, body. ``ValueError`` when a part is not plain data."""
    names: dict[str, int] = {}
    runs: dict[str, int] = {}
    blobs: list[bytes] = []
    cells: list[int] = []
    offset = 0
    for name, part in value.items():
        names[name] = len(blobs)
        if isinstance(part, Each):
            runs[name] = len(part)
            items = [marshal.dumps(item) for item in part]
        else:
            items = [marshal.dumps(part)]
        for blob in items:
            cells += (offset, len(blob), zlib.crc32(blob))
            blobs.append(blob)
            offset += len(blob)
    try:
        spans = b"".join(cell.to_bytes(4, sys.byteorder) for cell in cells)
    except OverflowError:
        raise ValueError("a part beyond 4 GB") from None
    index = marshal.dumps((key, names, runs, spans, offset))
    head = MARK + zlib.crc32(index).to_bytes(4, "little") + len(index).to_bytes(4, "little")
    return head + index + b"".join(blobs)


def _write(
    dir_fd: int, root: Path, name: str, name_of: str, key: str, value: dict[str, Any]
) -> dict[str, Any]:
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        try:
            data = _packed(key, value)
        except ValueError:
            return value  # not plain data: nothing to keep
        data_cache._keep(dir_fd, root, name, name_of, data)
    return value


def _rebuild(name: str, name_of: str, key: str, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The value built again after a damaged part was found, its copy rewritten."""
    value = build()
    root = data_cache.cache_root()
    dir_fd = open_private_dir(str(root), create=True)
    if dir_fd is None:
        return value
    try:
        return _write(dir_fd, root, name, name_of, key, value)
    finally:
        os.close(dir_fd)


def _bucket(key: str, count: int) -> int:
    return zlib.crc32(key.encode("utf-8", "surrogatepass")) % count


def bucketed(prefix: str, mapping: Mapping[str, Any], per: int = 8) -> dict[str, Any]:
    """The parts of ``mapping`` for :class:`Buckets`: its keys in order (``prefix`` + ``:keys``), its size
    and bucket count (``:n``), and about ``per`` entries a bucket (``prefix`` + the bucket's number)."""
    count = max(1, len(mapping) // per)
    buckets: list[dict[str, Any]] = [{} for _ in range(count)]
    for key, value in mapping.items():
        buckets[_bucket(key, count)][key] = value
    parts: dict[str, Any] = {f"{prefix}:n": (len(mapping), count), f"{prefix}:keys": tuple(mapping)}
    parts.update((f"{prefix}{i}", bucket) for i, bucket in enumerate(buckets))
    return parts


class Buckets(Mapping[str, "Any"]):
    """A mapping kept by :func:`bucketed` in ``parts``: a lookup reads one bucket, iterating reads the keys;
    each value read is the same object on every later lookup through this mapping."""

    def __init__(self, parts: Mapping[str, Any], prefix: str) -> None:
        self._parts = parts
        self._prefix = prefix
        self._size, self._count = parts[f"{prefix}:n"]

    def __getitem__(self, key: str) -> Any:
        if not isinstance(key, str):
            raise KeyError(key)
        bucket: Mapping[str, Any] = self._parts[f"{self._prefix}{_bucket(key, self._count)}"]
        return bucket[key]

    def __contains__(self, key: object) -> bool:
        try:
            self[key]  # type: ignore[index]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        keys: tuple[str, ...] = self._parts[f"{self._prefix}:keys"]
        return iter(keys)

    def __len__(self) -> int:
        return int(self._size)
