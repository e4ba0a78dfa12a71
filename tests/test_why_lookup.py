"""`why`'s lookup file (`resolver/message_lookup.py`, issue 18): the sites its prefilter keeps are the ones
the full scan keeps, for every text of the `why` corpora; a damaged, truncated or stale file is rebuilt,
never trusted; without a writable cache the same answer comes from memory. Times nothing
(`bench/why_speed.py` measures). The console script's answers with and without the lookup are
tests/test_why_lookup_bench.py's (a module of their own: under ``--dist loadscope`` each of the two long
comparisons runs on its own worker)."""

from __future__ import annotations

import json
import marshal
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.log.messages import _prefiltered, candidates, scanned
from argtrace.resolver import message_store
from argtrace.resolver.message_lookup import MAGIC, Built, Damaged, Lookup, open_lookup
from argtrace.resolver.message_store import frameworks, indexed_releases, is_library, site_index
from tests.conftest import quoted_text

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"


def _corpus() -> list[tuple[str, str]]:
    out = []
    for batch in ("why8", "why_9", "why_10"):
        for path in sorted((DATA / batch).glob("*.txt")):
            out.append((f"{batch}/{path.stem}", quoted_text(path)))
    for name in ("why_control_texts.json", "why_foreign_texts.json"):
        for i, entry in enumerate(json.loads((DATA / name).read_text(encoding="utf-8"))):
            out.append((f"{name}[{i}]", entry["text"]))
    return out


CORPUS = _corpus()


def test_the_corpus_is_every_why_text() -> None:
    assert len(CORPUS) == 3 * 25 + 32 + 15
    assert len({name for name, _ in CORPUS}) == len(CORPUS)


def test_the_lookup_keeps_exactly_the_sites_the_full_scan_keeps_for_every_corpus_text() -> None:
    # each framework's releases: none (every site), the newest and the oldest it indexes (the release bits)
    versions = {
        fw: (None, *dict.fromkeys(indexed_releases(fw)[::-1][:1] + indexed_releases(fw)[:1]))
        for fw in frameworks()
    }
    kept = 0
    for name, text in CORPUS:
        texts = candidates(text)
        for fw in frameworks():
            for version in versions[fw] if not is_library(fw) else (None,):
                looked = _prefiltered(fw, texts, version)
                full = scanned(fw, texts, version)
                # the same Site objects (one per position), in the same order
                assert [id(s) for s in looked] == [id(s) for s in full], (name, fw, version)
                kept += len(looked)
    assert kept > 100_000  # the prefilter keeps hundreds of sites per text: the comparison is not of nothing


def test_a_release_no_site_is_in_keeps_nothing() -> None:
    texts = candidates("ValueError: max_num_batched_tokens (4096) is smaller than max_model_len (32768).")
    assert _prefiltered("vllm", texts, None)
    assert _prefiltered("vllm", texts, "0.0.1") == scanned("vllm", texts, "0.0.1") == []


def test_every_site_read_from_the_lookup_is_the_built_site() -> None:
    built = message_store._built("triton")
    index = site_index("triton")
    assert list(index.releases) == built.releases
    assert [index.lookup.row(i) for i in range(len(index))] == [tuple(r) for r in built.rows]
    assert list(index.lookup.distinct) == built.distinct
    assert {w: list(index.lookup.postings(w)) for w in built.words} == built.words


# --- the file: small lookups built from a source file in tmp_path --------------------------------------
def _small(n: int = 5) -> Built:
    rows: list[tuple[Any, ...]] = [(f"f{i}.py", f"fn{i}", ["msg", i], {"1.0": [i]}) for i in range(n)]
    return Built(
        releases=["1.0", "2.0"],
        rows=rows,
        words={"msg": list(range(n)), "odd": [i for i in range(n) if i % 2]},
        distinct=[1 + i % 2 for i in range(n)],
        versions=[["1.0"] if i % 2 else ["1.0", "2.0"] for i in range(n)],
    )


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "data"
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(root))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    return root


def _opened(source: Path, calls: list[int], rebuild: bool = False, stale: tuple[str, ...] = ()) -> Lookup:
    def build() -> Built:
        calls.append(1)
        return _small()

    return open_lookup("why-test", [source], build, stale, rebuild)


def test_a_lookup_is_built_once_then_read_from_the_cache(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "source.json"
    source.write_text("1")
    calls: list[int] = []
    first = _opened(source, calls)
    (path,) = cache.glob("why-test-*.lookup")
    second = _opened(source, calls)
    assert calls == [1]
    assert second.releases == ("1.0", "2.0") and second.versions == ("1.0", "2.0")
    assert [second.row(i) for i in range(len(second))] == [first.row(i) for i in range(5)]
    assert second.row(3) == ("f3.py", "fn3", ["msg", 3], {"1.0": [3]})
    assert list(second.postings("odd")) == [1, 3] and list(second.postings("absent")) == []
    assert list(second.distinct) == [1, 2, 1, 2, 1]
    in_two = second.in_release("2.0")
    assert [i for i in range(5) if in_two(i)] == [0, 2, 4]
    assert not any(map(second.in_release("3.0"), range(5)))
    assert path.read_bytes().startswith(MAGIC)


def test_a_changed_source_gives_a_new_lookup_and_removes_the_old(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "source.json"
    source.write_text("1")
    calls: list[int] = []
    _opened(source, calls)
    (old,) = cache.glob("why-test-*.lookup")
    source.write_text("22")  # another size: another key
    _opened(source, calls)
    (new,) = cache.glob("why-test-*.lookup")
    assert calls == [1, 1] and new != old


@pytest.mark.parametrize("damage", ["garbage", "truncated", "table", "record", "other key", "empty"])
def test_a_damaged_or_stale_file_is_rebuilt_never_trusted(cache: Path, tmp_path: Path, damage: str) -> None:
    source = tmp_path / "source.json"
    source.write_text("1")
    calls: list[int] = []
    first = _opened(source, calls)
    (path,) = cache.glob("why-test-*.lookup")
    good = path.read_bytes()
    first.close()
    data = bytearray(good)
    if damage == "garbage":
        data = bytearray(b"not a lookup file")
    elif damage == "truncated":
        data = data[: len(data) - 3]
    elif damage == "table":
        data[len(MAGIC) + 200] ^= 0xFF  # inside the table (the key is shorter than 150 bytes here)
    elif damage == "record":
        data[-4] ^= 0xFF  # inside the last record
    elif damage == "other key":  # a file of other sources under this name: the key inside decides
        other = tmp_path / "other.json"
        other.write_text("other")
        _opened(other, [])
        (theirs,) = (p for p in cache.glob("why-test-*.lookup") if p != path)
        data = bytearray(theirs.read_bytes())
    elif damage == "empty":
        data = bytearray()
    path.write_bytes(bytes(data))
    try:
        lookup = _opened(source, calls)
        rows = [lookup.row(i) for i in range(len(lookup))]
    except Damaged:  # only a damaged record gets past the open: the reader rebuilds (as SiteIndex.site does)
        assert damage == "record"
        lookup = _opened(source, calls, rebuild=True)
        rows = [lookup.row(i) for i in range(len(lookup))]
    assert rows == [tuple(r) for r in _small().rows]
    assert calls == [1, 1]
    assert path.read_bytes() == good


def test_a_damaged_record_of_a_framework_is_rebuilt_by_the_site_index(cache: Path) -> None:
    message_store.site_index.cache_clear()
    try:
        index = site_index("huggingface_hub")
        want = [(s.file, s.function, s.template, s.at) for s in (index.site(i) for i in range(len(index)))]
        (path,) = cache.glob("why-huggingface_hub-*.lookup")
        index.lookup.close()
        data = bytearray(path.read_bytes())
        data[-4] ^= 0xFF  # inside the last site's record
        path.write_bytes(bytes(data))
        message_store.site_index.cache_clear()
        again = site_index("huggingface_hub")
        got = [(s.file, s.function, s.template, s.at) for s in (again.site(i) for i in range(len(again)))]
        assert got == want
        assert path.read_bytes() != bytes(data)
    finally:
        message_store.site_index.cache_clear()


def test_without_a_data_cache_the_lookup_lives_in_memory(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "source.json"
    source.write_text("1")
    monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
    calls: list[int] = []
    lookup = _opened(source, calls)
    assert [lookup.row(i) for i in range(len(lookup))] == [tuple(r) for r in _small().rows]
    assert not cache.exists()
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE")
    cache.write_text("a file where the directory should be")  # cannot be written: the same bytes in memory
    lookup = _opened(source, calls)
    assert lookup.row(4) == _small().rows[4] and calls == [1, 1]


def test_the_whole_list_copies_of_earlier_releases_are_removed(cache: Path, tmp_path: Path) -> None:
    cache.mkdir()
    (cache / "why-vllm-0123abcd.marshal").write_bytes(marshal.dumps(("key", [])))
    (cache / "why-vllm-notacopy.marshal").write_bytes(b"")  # not the name of a copy: left alone
    source = tmp_path / "source.json"
    source.write_text("1")
    _opened(source, [], stale=("why-vllm-" + "[0-9a-f]" * 8 + ".marshal",))
    assert sorted(p.name for p in cache.iterdir() if p.suffix == ".marshal") == ["why-vllm-notacopy.marshal"]


def test_clear_cache_removes_the_lookup_files(cache: Path, tmp_path: Path) -> None:
    from argtrace.resolver import data_cache

    source = tmp_path / "source.json"
    source.write_text("1")
    _opened(source, []).close()
    (cache / "notes.txt").write_text("not argtrace's")
    assert data_cache.clear() == (cache, 1)
    assert [p.name for p in cache.iterdir()] == ["notes.txt"]
