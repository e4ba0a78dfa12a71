"""Copies kept in parts (resolver/data_parts.py): a check reads, checksums and unmarshals only the parts it
asks for; a damaged, cut short, foreign or older copy is rebuilt before any part is read, a damaged part
is answered from a fresh build (and the copy rewritten), never trusted."""

from __future__ import annotations

import marshal
import zlib
from pathlib import Path
from typing import Any

import pytest

from argtrace.resolver import data_cache, data_parts
from argtrace.resolver.data_parts import Buckets, Each, Items, bucketed, cached_parts


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "data"
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(root))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    monkeypatch.setattr(data_cache, "_read_ahead_raw", {})
    monkeypatch.setattr(data_cache, "_read_ahead_stamps", {})
    monkeypatch.setattr(data_cache, "_read_paths", [])
    return root


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "in.json"
    path.write_text("[1]")
    return path


VALUE: dict[str, Any] = {
    "head": {"releases": ("0.1", "0.2"), "n": 2},
    "big": ["x" * 1000, "y" * 1000],
    "sites": Each([b"one", {"two": [2]}, ("three",)]),
    **bucketed("flags", {f"--flag-{i}": (i, i + 1) for i in range(40)}),
}


class Builds:
    def __init__(self, value: dict[str, Any]) -> None:
        self.value = value
        self.calls = 0

    def __call__(self) -> dict[str, Any]:
        self.calls += 1
        return self.value


def _plain(parts: Any) -> dict[str, Any]:
    out = {}
    for name in parts:
        value = parts[name]
        out[name] = list(value) if isinstance(value, Items) else value
    return out


def test_a_kept_copy_answers_part_by_part_for_the_same_sources(cache: Path, source: Path) -> None:
    build = Builds(VALUE)
    first = cached_parts("thing", [source], build)
    kept = cached_parts("thing", [source], build)
    assert build.calls == 1
    assert _plain(first) == _plain(kept) == {**VALUE, "sites": [b"one", {"two": [2]}, ("three",)]}
    assert list(kept) == list(VALUE) and len(kept) == len(VALUE) and "big" in kept and "nope" not in kept
    assert isinstance(kept["sites"], Items) and len(kept["sites"]) == 3
    with pytest.raises(IndexError):
        kept["sites"][3]
    with pytest.raises(KeyError):
        kept["nope"]
    (copy,) = cache.iterdir()
    assert copy.name.startswith("thing-") and copy.read_bytes().startswith(data_cache.PARTS_MARK)
    assert data_cache.paths_read() == [str(copy)]
    # each call's values are its own: a caller's change stays in its copy
    kept["head"]["n"] = 3
    assert cached_parts("thing", [source], build)["head"]["n"] == 2

    source.write_text("[1, 2]")  # another size: a fresh build, the older copy removed
    assert _plain(cached_parts("thing", [source], build))["head"] == {"releases": ("0.1", "0.2"), "n": 2}
    assert build.calls == 2 and len(list(cache.iterdir())) == 1


def test_a_read_checksums_and_unmarshals_only_the_parts_asked_for(
    cache: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cached_parts("thing", [source], Builds(VALUE))
    sizes: list[int] = []
    loaded: list[int] = []

    class Zlib:
        @staticmethod
        def crc32(data: Any) -> int:
            sizes.append(len(data))
            return zlib.crc32(data)

    real = data_cache._loads

    def loads(raw: Any) -> Any:
        loaded.append(len(raw))
        return real(raw)

    monkeypatch.setattr(data_parts, "zlib", Zlib)
    monkeypatch.setattr(data_cache, "_loads", loads)
    kept = cached_parts("thing", [source], Builds({}))
    index_only = list(sizes)
    assert len(index_only) == 2  # the file name's and the index's
    assert kept["sites"][1] == {"two": [2]}
    assert Buckets(kept, "flags")["--flag-7"] == (7, 8)
    # checksummed: one site, the mapping's size, the key (its bucket's number) and that bucket; unmarshalled:
    # the index, the site, the size and the bucket. Never "big" (2 KB), "head" or the other sites
    assert len(sizes) == 2 + 4 and len(loaded) == 1 + 3
    assert sizes[4] == len("--flag-7") and max(sizes[2:]) < 200


def test_a_kept_mapping_in_buckets_answers_as_the_mapping(cache: Path, source: Path) -> None:
    mapping = {"--b": (1,), "--a": (0, 2), "SGL_\udcff": (), **{f"--x{i}": (i,) for i in range(30)}}
    for parts in (
        cached_parts("map", [source], lambda: bucketed("m", mapping)),
        cached_parts("map", [source], lambda: {}),  # read back
        data_parts.Parts(bucketed("m", mapping)),  # without a cache
    ):
        got = Buckets(parts, "m")
        assert dict(got) == mapping and list(got) == list(mapping) and len(got) == len(mapping)
        assert got.get("--a") == (0, 2) and got.get("--zz") is None and got.get(3) is None  # type: ignore[call-overload]
        assert "SGL_\udcff" in got and 7 not in got and got == mapping


@pytest.mark.parametrize(
    "damage",
    ["garbage", "cut short", "index flipped", "foreign key", "whole copy of the older format", "longer"],
)
def test_a_damaged_foreign_or_older_copy_is_rebuilt_before_any_part_is_read(
    cache: Path, source: Path, damage: str
) -> None:
    build = Builds(VALUE)
    cached_parts("thing", [source], build)
    (copy,) = cache.iterdir()
    raw = copy.read_bytes()
    head = len(data_cache.PARTS_MARK) + 8
    if damage == "garbage":
        copy.write_bytes(b"\x00garbage")
    elif damage == "cut short":
        copy.write_bytes(raw[:-10])
    elif damage == "index flipped":
        copy.write_bytes(raw[: head + 5] + bytes([raw[head + 5] ^ 1]) + raw[head + 6 :])
    elif damage == "foreign key":
        other = data_parts._packed("another key", {"head": 666})
        copy.write_bytes(other)
    elif damage == "whole copy of the older format":
        copy.write_bytes(data_cache.with_crc(marshal.dumps(("key", VALUE["head"]))))
    else:
        copy.write_bytes(raw + b"\x00")
    kept = cached_parts("thing", [source], build)
    assert build.calls == 2
    assert _plain(kept)["head"] == VALUE["head"]
    assert cached_parts("thing", [source], build)["big"] == VALUE["big"] and build.calls == 2  # rewritten


@pytest.mark.parametrize("which", ["big", "sites"])
def test_a_damaged_part_is_answered_from_a_fresh_build_never_trusted(
    cache: Path, source: Path, which: str
) -> None:
    build = Builds(VALUE)
    cached_parts("thing", [source], build)
    (copy,) = cache.iterdir()
    raw = bytearray(copy.read_bytes())
    # a bit flipped in the body's part: "big"'s x's, or the last site's string
    at = raw.rindex(b"x" * 10) if which == "big" else raw.rindex(b"three")
    raw[at] ^= 1
    copy.write_bytes(bytes(raw))
    kept = cached_parts("thing", [source], build)
    assert kept["head"] == VALUE["head"] and build.calls == 1  # an intact part is read as kept
    if which == "big":
        assert kept["big"] == VALUE["big"]
    else:
        assert kept["sites"][0] == b"one" and kept["sites"][2] == ("three",)
    assert build.calls == 2
    again = cached_parts("thing", [source], build)  # the copy was rewritten whole
    assert _plain(again) == _plain(kept) and build.calls == 2


def test_what_is_not_plain_data_or_with_the_cache_off_is_built_every_time(
    cache: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = Builds({"path": Path("/x")})
    assert cached_parts("thing", [source], build)["path"] == Path("/x")
    assert cached_parts("thing", [source], build)["path"] == Path("/x")
    assert build.calls == 2 and list(cache.glob("*.marshal")) == []
    monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
    plain = Builds(VALUE)
    assert _plain(cached_parts("thing", [source], plain))["sites"] == list(VALUE["sites"])
    cached_parts("thing", [source], plain)
    assert plain.calls == 2 and list(cache.glob("*.marshal")) == []


def test_a_copy_read_ahead_serves_one_lookup_with_the_same_key(cache: Path, source: Path) -> None:
    build = Builds(VALUE)
    cached_parts("thing", [source], build)
    (copy,) = cache.iterdir()
    data_cache.read_ahead([str(copy)])
    assert list(data_cache._read_ahead_raw) == [str(copy)] and data_cache._read_ahead == {}
    copy.unlink()  # what was read ahead answers the next lookup
    assert _plain(cached_parts("thing", [source], build))["big"] == VALUE["big"] and build.calls == 1
    assert data_cache._read_ahead_raw == {} and data_cache.paths_read() == [str(copy)]
    assert cached_parts("thing", [source], build)["big"] == VALUE["big"] and build.calls == 2  # read its own


def test_a_release_index_kept_in_parts_reads_only_the_buckets_a_lookup_needs(cache: Path) -> None:
    from argtrace.frameworks import release_index

    release_index.release_index.cache_clear()
    try:
        release_index.release_index("sglang")  # built and kept
        release_index.release_index.cache_clear()
        index = release_index.release_index("sglang")  # read from the copy
        parts = index.flags._parts  # type: ignore[attr-defined]
        assert isinstance(parts, data_parts.Parts) and parts._built is None
        head = {"head", "flags:n", "env:n", "no_value:n", "choices:n"}
        assert set(parts._values) == head
        assert index.takes_no_value("--enable-dp-attention") and not index.takes_no_value("--tp-size")
        read = set(parts._values) - head
        # each option string's flags and no-value buckets: never a variable's, never the keys
        assert len(read) <= 4 and all(name.startswith(("flags", "no_value")) for name in read), read
        assert not any(name.endswith(":keys") for name in read)
        assert len(index.flags) == len(list(index.flags)) > 400  # iterating reads the keys
        assert "flags:keys" in parts._values and "env:keys" not in parts._values
    finally:
        release_index.release_index.cache_clear()
