"""The parsed copies of argtrace's bundled data kept between runs (resolver/data_cache.py): a copy answers
only for the same sources, a changed, corrupt or foreign copy is rebuilt, and what a kept copy gives equals
what building gives (schemas, raise-site indexes, RS032's combinations)."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest

from argtrace.frameworks import schema_store
from argtrace.frameworks.schema import SCHEMA_DIR, load_schema
from argtrace.layers import start_raises
from argtrace.resolver import data_cache
from argtrace.resolver.raise_index import RAISE_DIR, load_index


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "data"
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(root))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    return root


class Builds:
    def __init__(self, value: object) -> None:
        self.value = value
        self.calls = 0

    def __call__(self) -> object:
        self.calls += 1
        return self.value


def test_a_kept_copy_answers_for_the_same_sources_and_is_rebuilt_when_one_changes(
    cache: Path, tmp_path: Path
) -> None:
    source = tmp_path / "in.json"
    source.write_text("[1]")
    build = Builds({"a": [1, 2, "x"], "b": None})
    assert data_cache.cached("thing", [source], build) == {"a": [1, 2, "x"], "b": None}
    assert data_cache.cached("thing", [source], build) == {"a": [1, 2, "x"], "b": None}
    assert build.calls == 1
    assert [p.name.startswith("thing-") for p in cache.iterdir()] == [True]

    source.write_text("[1, 2]")  # another size (and time): a fresh build, and the old copy is gone
    assert data_cache.cached("thing", [source], build) == {"a": [1, 2, "x"], "b": None}
    assert build.calls == 2
    assert len(list(cache.iterdir())) == 1


def test_a_corrupt_or_foreign_copy_is_rebuilt_never_trusted(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_text("{}")
    build = Builds([1])
    data_cache.cached("thing", [source], build)
    (copy,) = cache.iterdir()

    copy.write_bytes(b"\x00garbage")
    assert data_cache.cached("thing", [source], build) == [1]
    assert build.calls == 2

    # a copy made for other sources, put under this key's name: its stored key differs
    copy.write_bytes(marshal.dumps(("another key", [666])))
    assert data_cache.cached("thing", [source], build) == [1]
    assert build.calls == 3


def test_without_a_readable_source_or_with_the_cache_off_it_builds_every_time(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = Builds("v")
    assert data_cache.cached("thing", [tmp_path / "absent"], build) == "v"
    assert data_cache.cached("thing", [tmp_path / "absent"], build) == "v"
    assert build.calls == 2
    assert not cache.exists()

    source = tmp_path / "in"
    source.write_text("x")
    monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
    data_cache.cached("thing", [source], build)
    data_cache.cached("thing", [source], build)
    assert build.calls == 4
    assert not cache.exists()


def test_what_is_not_plain_data_is_returned_and_not_kept(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.write_text("x")
    build = Builds({"path": Path("/x")})
    assert data_cache.cached("thing", [source], build) == {"path": Path("/x")}
    assert data_cache.cached("thing", [source], build) == {"path": Path("/x")}
    assert build.calls == 2
    assert list(cache.glob("*.marshal")) == []


def test_a_read_only_cache_directory_only_costs_time(cache: Path, tmp_path: Path) -> None:
    cache.parent.mkdir(exist_ok=True)
    cache.write_text("a file where the directory should be")
    source = tmp_path / "in"
    source.write_text("x")
    build = Builds([1, 2])
    assert data_cache.cached("thing", [source], build) == [1, 2]
    assert data_cache.cached("thing", [source], build) == [1, 2]
    assert build.calls == 2


RELEASES = [("sglang", "0.5.23"), ("sglang", "0.4.6.post5"), ("vllm", "0.33.0")]


@pytest.mark.parametrize(("framework", "release"), RELEASES)
def test_kept_schemas_and_indexes_equal_the_built_ones(
    cache: Path, monkeypatch: pytest.MonkeyPatch, framework: str, release: str
) -> None:
    path = SCHEMA_DIR / f"{framework}-{release}.json"
    index = RAISE_DIR / f"{framework}-{release}.json"
    kept = [schema_store.load_expanded(path, SCHEMA_DIR) for _ in range(2)]
    keys = schema_store.RAISE_SITE_KEYS
    kept_index = [schema_store.load_expanded(index, RAISE_DIR, keys) for _ in range(2)]
    assert len(list(cache.glob("*.marshal"))) == 2
    monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
    built = schema_store.load_expanded(path, SCHEMA_DIR)
    built_index = schema_store.load_expanded(index, RAISE_DIR, schema_store.RAISE_SITE_KEYS)
    assert kept == [built, built]
    assert kept_index == [built_index, built_index]
    assert len(built["options"]) > 100 and len(built_index["sites"]) >= 15
    # each load is a copy of its own: a caller's change stays in its copy
    kept[0]["options"][0]["help"] = "changed"
    assert schema_store.load_expanded(path, SCHEMA_DIR)["options"][0]["help"] != "changed"


def _forget_sites() -> None:
    # both per-process caches: with only the unpacked one cleared, an earlier test in this worker that had
    # read the packed sites left nothing for this one to keep (ci5: the order under xdist decides)
    start_raises._combination_sites.cache_clear()
    start_raises._packed_sites.cache_clear()


def test_kept_combination_sites_equal_the_built_ones(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _forget_sites()
    load_index.cache_clear()
    load_schema.cache_clear()
    try:
        first = start_raises._combination_sites("sglang", "0.5.23")
        _forget_sites()
        kept = start_raises._combination_sites("sglang", "0.5.23")
        assert [p.name.split("-")[0] for p in sorted(cache.glob("combinations-*"))] == ["combinations"]
        monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
        _forget_sites()
        built = start_raises._combination_sites("sglang", "0.5.23")
    finally:
        _forget_sites()
    assert first == kept == built
    assert len(built) > 50
    assert all(len(names) >= 2 for _, names, _ in built)
    # each site's tests compiled, one per condition (start_raises.compile_test: no _ast when kept), its
    # locals substituted where the index resolved them (start_raises.site_tests)
    compiled = [tuple(map(start_raises.compile_test, start_raises.site_tests(site))) for site, _, _ in built]
    assert compiled == [tests for _, _, tests in built]
    # a release with no raise-site index: nothing, and nothing kept for it
    assert start_raises._combination_sites("sglang", "9.9.9") == ()
    assert not any("9.9.9" in p.name for p in cache.iterdir())


def test_copies_are_written_whole_by_renaming(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.write_text("x")
    data_cache.cached("thing", [source], Builds(list(range(1000))))
    names = os.listdir(cache)
    assert len(names) == 1 and names[0].startswith("thing-") and names[0].endswith(".marshal")


def test_kept_release_indexes_and_entry_points_equal_the_built_ones(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from argtrace.frameworks import entrypoints, release_index

    def both() -> tuple[object, ...]:
        release_index.release_index.cache_clear()
        entrypoints._packed.cache_clear()
        indexes = release_index.release_index
        return (indexes("sglang"), indexes("vllm"), entrypoints._packed())

    try:
        first = both()
        kept = both()
        assert sorted(p.name.rsplit("-", 1)[0] for p in cache.glob("*.marshal")) == [
            "entrypoints-packed",
            "release-index-sglang",
            "release-index-vllm",
        ]
        monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
        built = both()
    finally:
        release_index.release_index.cache_clear()
        entrypoints._packed.cache_clear()
    assert first == kept == built
    # each entry point's description, unpacked when first asked for, is the index file's
    raw = entrypoints._index()["entrypoints"]
    assert list(kept[2]) == list(raw)
    assert all(marshal.loads(packed) == raw[name] for name, packed in kept[2].items())
    index = kept[0]
    assert isinstance(index, release_index.ReleaseIndex)
    assert isinstance(index.same_everywhere, frozenset) and isinstance(index.releases, tuple)
    assert index.takes_no_value("--enable-dp-attention") and not index.takes_no_value("--tp-size")


def test_a_copy_read_ahead_serves_one_lookup_with_the_same_key(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm process reads ahead the copies its children read (argtrace/warm/): the first lookup of the
    same key in this process gets the object read ahead, later ones read their own (a caller may change
    what it got), and a changed source's key is never answered from it."""
    monkeypatch.setattr(data_cache, "_read_ahead", {})
    monkeypatch.setattr(data_cache, "_read_ahead_stamps", {})
    monkeypatch.setattr(data_cache, "_read_paths", [])
    source = tmp_path / "in.json"
    source.write_text("[1]")
    build = Builds({"rows": [1, 2]})
    first = data_cache.cached("thing", [source], build)
    (copy,) = cache.iterdir()
    assert data_cache.paths_read() == [] and build.calls == 1  # built, not read

    data_cache.read_ahead([str(copy), str(tmp_path / "elsewhere.marshal"), str(cache / "x.json")])
    assert list(data_cache._read_ahead) == [str(copy)]  # only copies in the cache directory
    ahead = data_cache._read_ahead[str(copy)][1]
    got = data_cache.cached("thing", [source], build)
    assert got is ahead and got == first and build.calls == 1
    assert data_cache.paths_read() == [str(copy)]
    got["rows"].append(3)  # the caller's to change: the next lookup reads its own
    again = data_cache.cached("thing", [source], build)
    assert again == {"rows": [1, 2]} and again is not got
    assert data_cache.paths_read() == [str(copy), str(copy)]

    data_cache.read_ahead([str(copy)])
    source.write_text("[1, 2]")  # another key: the copy read ahead does not answer it
    assert data_cache.cached("thing", [source], Builds({"rows": []})) == {"rows": []}


def test_a_kept_copy_is_read_with_the_collector_off_and_leaves_it_as_it_was(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reading a copy makes tens of thousands of containers; with the collector on, each read after a big
    # script's analysis walked the whole heap (25-30 ms for the entry-point index instead of 1 ms).
    import gc

    source = tmp_path / "src.json"
    source.write_text("{}")
    value = {"k": [list(range(50)) for _ in range(2_000)]}
    assert data_cache.cached("gc-probe", [source], Builds(value)) == value  # built, written
    seen: list[bool] = []
    real_loads = marshal.loads

    def loads(raw: bytes) -> object:
        seen.append(gc.isenabled())
        return real_loads(raw)

    monkeypatch.setattr(data_cache.marshal, "loads", loads)
    for was_on in (True, False):
        (gc.enable if was_on else gc.disable)()
        try:
            assert data_cache.cached("gc-probe", [source], Builds(None)) == value  # read, not built
            assert gc.isenabled() is was_on
        finally:
            gc.enable()
    assert seen == [False, False]
