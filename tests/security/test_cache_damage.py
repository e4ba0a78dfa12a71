"""Every ``marshal`` store of the data cache against a damaged, truncated or hostile file (session 30):
each is ignored (rebuilt, or read as empty), never believed and never a crash.

The stores: ``resolver/data_cache.py``'s parsed copies, ``dataclass_code.py``'s compiled methods,
``regex_code.py``'s regex programs and ``ci/config_cache.py``'s parsed configuration files. Before, a copy
was ``marshal`` data behind nothing: a flipped bit inside a string or a number still unmarshalled and was
believed (a copy of ``{"a": "hello"}`` answered ``"hellm"``), a flip inside an inner length made
``marshal`` raise what no reader caught (``TypeError: NULL object in marshal data``, an internal error of
``check`` through the entry-point index's nested copies; ``MemoryError`` for a declared length it cannot
allocate), and a file of gigabytes was read whole. Each copy is now written behind its CRC-32
(``cache_dirs.with_crc``) and read whole only up to ``cache_dirs.MAX_READ``.
"""

from __future__ import annotations

import marshal
import os
import struct
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from argtrace import dataclass_code, regex_code
from argtrace.cache_dirs import CRC_MARK, MAX_READ, crc_checked, loads_checked, with_crc
from argtrace.ci import config_cache
from argtrace.resolver import data_cache


def _flip(raw: bytes, at: int) -> bytes:
    return raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1 :]


def _damaged(raw: bytes) -> dict[str, Callable[[Path], None]]:
    """Ways to damage the copy ``raw`` at a path: each writes (or makes) what then lies there."""
    body = crc_checked(raw)
    assert body is not None
    payload = bytes(body)

    def write(data: bytes) -> Callable[[Path], None]:
        return lambda path: path.write_bytes(data)

    def sparse(path: Path) -> None:
        with open(path, "wb") as handle:
            handle.truncate(MAX_READ + 1)  # holes, not written blocks: nothing is read from it

    def fifo(path: Path) -> None:
        os.mkfifo(path)

    def link(path: Path) -> None:
        path.symlink_to("/dev/zero")

    return {
        "empty": write(b""),
        "cut short": write(raw[: len(raw) // 2]),
        "only the head": write(raw[: len(CRC_MARK) + 2]),
        "a flipped bit at the end": write(_flip(raw, len(raw) - 1)),
        "a flipped bit in the middle": write(_flip(raw, len(raw) // 2)),
        "a flipped bit in the CRC": write(_flip(raw, len(CRC_MARK))),
        "unsealed (the format before the CRC)": write(payload),
        # marshal data no reader may believe: each behind a CRC that matches, so that marshal itself is tried
        # (2**31 would do too, but CPython then walks 16 GB of zero pages, 20 s: only a forged CRC gets there)
        "a list of 2**20 items declared, none written": write(with_crc(b"[" + struct.pack("<i", 1 << 20))),
        "lists nested 100,000 deep": write(with_crc(b"[\x01\x00\x00\x00" * 100_000)),
        "not marshal data": write(with_crc(b"\x01not marshal")),
        "bigger than MAX_READ": sparse,
        "a FIFO": fifo,
        "a link to /dev/zero": link,
        "a directory": lambda path: path.mkdir(),
    }


def _each_damage(path: Path) -> list[tuple[str, Callable[[Path], None]]]:
    raw = path.read_bytes()
    return list(_damaged(raw).items())


def _put(path: Path, make: Callable[[Path], None]) -> None:
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    elif path.exists() or path.is_symlink():
        path.unlink()
    make(path)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "data"
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(root))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    return root


def test_a_parsed_copy_damaged_in_any_way_is_rebuilt(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_text("{}")
    builds: list[int] = []

    def build() -> dict[str, str]:
        builds.append(1)
        return {"a": "hello"}

    assert data_cache.cached("thing", [source], build) == {"a": "hello"}
    (copy,) = cache.iterdir()
    genuine = copy.read_bytes()
    assert genuine.startswith(CRC_MARK)
    # the bit that turned "hello" into "hellm" in a copy without its CRC: now the copy is rebuilt
    at = genuine.rindex(b"hello") + 4
    for name, make in [("hello -> hellm", lambda p: p.write_bytes(_flip(genuine, at))), *_each_damage(copy)]:
        _put(copy, make)
        before = len(builds)
        assert data_cache.cached("thing", [source], build) == {"a": "hello"}, name
        assert len(builds) == before + 1, name
        _put(copy, lambda p: p.write_bytes(genuine))
    assert data_cache.cached("thing", [source], build) == {"a": "hello"}
    assert len(builds) == 1 + 1 + len(_damaged(genuine))  # the genuine copy answers again


CLASS = "import dataclasses\n@dataclasses.dataclass\nclass Point:\n    x: int\n    y: int = 0\n"


def test_a_store_of_compiled_methods_damaged_in_any_way_is_ignored(tmp_path: Path) -> None:
    store = tmp_path / "data" / "dataclass-code-check.marshal"
    namespace: dict[str, object] = {"__name__": "made"}
    with dataclass_code.kept(str(store)):
        exec(compile(CLASS, "<classes>", "exec", dont_inherit=True), namespace)
    genuine = store.read_bytes()
    codes = dataclass_code._read(str(store))
    assert len(codes) >= 3
    for name, make in _each_damage(store):
        _put(store, make)
        assert dataclass_code._read(str(store)) == {}, name
    _put(store, lambda p: p.write_bytes(genuine))
    assert dataclass_code._read(str(store)) == codes


def test_a_store_of_regex_programs_damaged_in_any_way_is_ignored(tmp_path: Path) -> None:
    if sys.version_info < (3, 11):
        pytest.skip("Python 3.10 has no re._compiler: nothing is kept")
    import re

    store = tmp_path / "data" / "regex-code-check.marshal"
    re.purge()
    with regex_code.kept(str(store)):
        re.compile(r"damage(d|s)? \d+")
    genuine = store.read_bytes()
    programs = regex_code._read(str(store))
    assert list(programs) == [(r"damage(d|s)? \d+", 0)]
    for name, make in _each_damage(store):
        _put(store, make)
        assert regex_code._read(str(store)) == {}, name
    _put(store, lambda p: p.write_bytes(genuine))
    assert regex_code._read(str(store)) == programs


def test_a_store_of_configuration_files_damaged_in_any_way_is_ignored(cache: Path, tmp_path: Path) -> None:
    config = tmp_path / ".argtrace.toml"
    text = 'release = "0.5.23"\n'
    config_cache.keep(config, text, {"release": "0.5.23"})
    (store,) = cache.iterdir()
    genuine = store.read_bytes()
    assert config_cache.lookup(config, text) == {"release": "0.5.23"}
    for name, make in _each_damage(store):
        _put(store, make)
        assert config_cache.lookup(config, text) is None, name
    _put(store, lambda p: p.write_bytes(genuine))
    assert config_cache.lookup(config, text) == {"release": "0.5.23"}


def test_what_the_crc_guards_is_exactly_what_was_written() -> None:
    sealed = with_crc(marshal.dumps(("key", [1, "x"])))
    assert loads_checked(sealed) == ("key", [1, "x"])
    assert loads_checked(None) is None
    assert loads_checked(sealed + b"\x00") is None  # a byte more is a change too
    assert loads_checked(sealed[:-1]) is None


def test_a_resolution_cache_entry_nested_past_the_stack_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: json.loads raised RecursionError, which the reader did not catch (an internal error of check)
    from argtrace.resolver import cache

    root = tmp_path / "resolutions"
    root.mkdir(mode=0o700)
    monkeypatch.setattr(cache, "cache_root", lambda: root)
    monkeypatch.setattr(cache, "enabled", lambda: True)
    (root / "k.json").write_text("[" * 100_000)
    assert cache.load("k") is None
    (root / "k.json").write_text('{"format": 2, "key": "k", "payload": ' + "[" * 100_000 + "}")
    assert cache.load("k") is None
