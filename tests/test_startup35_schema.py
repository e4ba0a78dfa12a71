"""A bundled schema's options are kept in the data cache as their specs' rows (schema35, issue 18): the specs
``Schema.options`` makes of them are those ``OptionSpec.from_dict`` makes of the expanded file's entries
(every field, its type, ``raw`` the same entry), closure-typed vLLM options included; the rows are given
away once, and ``["options"]`` stays the entries. PR011's message and the release index's answers it asks
for (``refusing_value``, ``taking_no_value``, now answered once per question) are what the straightforward
computations give."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks import release_index as release_index_module
from argtrace.frameworks import schema_store
from argtrace.frameworks.release import refused_flag_clauses
from argtrace.frameworks.schema import SCHEMA_DIR, OptionSpec, Schema, _converter_types

# the newest and an old SGLang; vLLM releases with closure-typed options (frameworks/data/converters/)
RELEASES = [("sglang", "0.5.19"), ("sglang", "0.4.0.post2"), ("vllm", "0.33.0"), ("vllm", "0.11.0")]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "data"
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(root))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    return root


def _expected(framework: str, release: str, whole: dict[str, Any]) -> list[OptionSpec]:
    """What Schema.options made before the rows: each entry's from_dict, a closure's full type in a copy."""
    closures = _converter_types(framework, release)
    out = []
    for o in whole["options"]:
        full = closures.get(str(o.get("dest")))
        t = o.get("type")
        if full and isinstance(t, str) and "(" not in t and full.startswith(t + "("):
            o = {**o, "type": full}
        out.append(OptionSpec.from_dict(o))
    return out


def _fields(spec: OptionSpec) -> dict[str, Any]:
    """A spec's fields (what its ``flag`` property caches in the instance left out)."""
    return {k: v for k, v in vars(spec).items() if k != "flag"}


def _schema(framework: str, release: str, data: Any) -> Schema:
    return Schema(framework=framework, version=release, data=data, path=str(SCHEMA_DIR))


@pytest.mark.parametrize(("framework", "release"), RELEASES)
def test_the_specs_made_of_rows_are_those_of_the_entries(
    cache: Path, monkeypatch: pytest.MonkeyPatch, framework: str, release: str
) -> None:
    from argtrace.frameworks.schema import _option_row

    path = SCHEMA_DIR / f"{framework}-{release}.json"
    whole = schema_store.load_expanded(path, SCHEMA_DIR)
    expected = _expected(framework, release, whole)
    built = schema_store.load_schema_data(path, SCHEMA_DIR, _option_row)  # builds and keeps the copy
    kept = schema_store.load_schema_data(path, SCHEMA_DIR, _option_row)  # read from the copy
    monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
    uncached = schema_store.load_schema_data(path, SCHEMA_DIR, _option_row)
    closure_typed = 0
    for data in (built, kept, uncached):
        assert isinstance(data, schema_store.PackedSchema)
        specs = _schema(framework, release, data).options
        assert len(specs) == len(expected) > 80
        for spec, want in zip(specs, expected, strict=True):
            assert type(spec) is OptionSpec and spec == want
            assert _fields(spec) == _fields(want)  # raw included (compare=False in ==)
            assert [type(v) for v in _fields(spec).values()] == [type(v) for v in _fields(want).values()]
            assert list(_fields(spec)) == list(_fields(want))
            assert spec.flag == want.flag
            closure_typed += spec.raw is not data["options"][specs.index(spec)]
        # the entries as the file has them, whatever a spec's closure type made of its raw copy
        assert data["options"] == whole["options"] and dict(data) == whole and list(data) == list(whole)
        # the rows are given once: another schema of the same data makes its specs from the entries
        assert data.take_option_rows() is None
        again = _schema(framework, release, data).options
        assert [_fields(s) for s in again] == [_fields(s) for s in expected]
    assert (closure_typed > 0) == bool(_converter_types(framework, release))


def test_an_unpacked_schema_still_makes_its_specs_from_the_entries(cache: Path) -> None:
    path = SCHEMA_DIR / "sglang-0.5.19.json"
    whole = schema_store.load_expanded(path, SCHEMA_DIR)
    plain = _schema("sglang", "0.5.19", whole).options
    assert [_fields(s) for s in plain] == [_fields(s) for s in _expected("sglang", "0.5.19", whole)]
    assert all(s.raw is o for s, o in zip(plain, whole["options"], strict=True))
    # without a row maker the copy holds no rows (the name it is kept under differs)
    data = schema_store.load_schema_data(path, SCHEMA_DIR)
    assert isinstance(data, schema_store.PackedSchema) and data.take_option_rows() is None
    assert data["options"] == whole["options"]


def _fresh(framework: str) -> release_index_module.ReleaseIndex:
    release_index_module.release_index.cache_clear()
    return release_index_module.release_index(framework)


def test_the_index_answers_each_value_and_switch_once_as_computed() -> None:
    index = _fresh("sglang")
    asked = [
        ("--speculative-algorithm", "NEXTN"),
        ("--speculative-algorithm", "EAGLE"),
        ("--moe-runner-backend", "marlin"),
        ("--hybrid-kvcache-ratio", "0.5"),
        ("--tp-size", "2"),
        ("--no-such-flag", "x"),
    ]
    for flag, value in asked:
        first = index.refusing_value(flag, value)
        assert index.refusing_value(flag, value) is first
        assert first == _fresh("sglang")._refusing_value(flag, value)
        index = release_index_module.release_index("sglang")
        switch = index.taking_no_value(flag)
        assert index.taking_no_value(flag) is switch
        assert switch == tuple(index.releases[i] for i in index.no_value.get(flag, ()))
    assert index.refusing_value("--speculative-algorithm", "NEXTN") == ("0.4.1.post7", "0.4.2.post4")
    assert index.taking_no_value("--hybrid-kvcache-ratio") == (
        "0.5.8.post1",
        "0.5.9",
        "0.5.10.post1",
        "0.5.11",
        "0.5.12.post1",
        "0.5.13.post1",
    )
    assert index.taking_no_value("--enable-torch-compile") == index.releases


def _refused_flag_clauses_before(framework: str, flags: list[str], accepted: tuple[str, ...]) -> list[str]:
    """refused_flag_clauses as it was: every release asked of every name."""
    from argtrace.frameworks.release import describe_releases

    index = release_index_module.release_index(framework)
    by_names: dict[tuple[str, ...], list[str]] = {}
    names = list(dict.fromkeys(f.split("=", 1)[0] for f in flags))
    refusing = {name: index.releases_refusing_flag(name) for name in names}
    for release in index.releases:
        if release in accepted:
            continue
        refused = tuple(n for n in names if release in refusing[n])
        if refused:
            by_names.setdefault(refused, []).append(release)
    out = []
    for refused, rs in by_names.items():
        verb = "refuses" if len(rs) == 1 else "refuse"
        span = describe_releases(rs, list(index.releases))
        out.append(f"{framework} {span} {verb} {', '.join(refused)} (its action stops the launch)")
    return out


@pytest.mark.parametrize("framework", ["sglang", "vllm"])
def test_refused_flag_clauses_name_the_releases_every_release_did(framework: str) -> None:
    index = release_index_module.release_index(framework)
    refused = sorted({f for f, known in index.refused.items() if known})
    assert refused  # some action refuses a registered flag in each framework
    for flags in ([], ["--tp-size", "2"], refused[:1], [*refused[:3], "--port=8000"], refused):
        for accepted in ((), index.releases[-3:], index.releases):
            got = refused_flag_clauses(framework, flags, accepted)
            assert got == _refused_flag_clauses_before(framework, flags, accepted)
    assert refused_flag_clauses(framework, refused, ())  # at least one clause


def test_pooled_data_is_the_same_data_with_one_object_per_string() -> None:
    a, b = "".join(["st", "ore"]), "".join(["sto", "re"])
    assert a == b and a is not b
    data = {"options": [{"action": a, "strings": [a, "--x"]}, {"action": b, "pair": (b, 1, None, 2.5)}]}
    pooled = schema_store._pooled(data, {})
    assert pooled == data and list(pooled) == list(data)
    first, second = pooled["options"]
    assert first["action"] is second["action"] is first["strings"][0] is second["pair"][0]
    assert type(second["pair"]) is tuple and type(first["strings"]) is list
    assert data["options"][1]["action"] is b  # the input is left as it was
    path = SCHEMA_DIR / "sglang-0.5.19.json"
    whole = schema_store.load_expanded(path, SCHEMA_DIR)
    assert schema_store._pooled(whole, {}) == whole
