"""Start-up, session 30 (issue 18): what a check reads is made or unpacked when first asked for. The
framework parser's value converters, the release index's converters and choice lists, a bundled release's
variables, RS032's combination sites and RS055's override sites are each equal to what building them whole
gives, kept or built; the late layers a check of the example skips are imported for a launch that needs
them, with their findings."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks import release_index as release_index_module
from argtrace.frameworks import schema_store
from argtrace.frameworks.actions import registered_options
from argtrace.frameworks.schema import SCHEMA_DIR, Schema, load_schema
from argtrace.layers import start_overrides, start_raises
from argtrace.layers.parser.build import _converter, build_parser, option_converter
from argtrace.layers.parser.recording import _Recorder
from argtrace.package_data import package_file

SRC = str(Path(__file__).resolve().parent.parent / "src")
RELEASES = [("sglang", "0.5.19"), ("sglang", "0.4.6.post5"), ("vllm", "0.33.0")]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "data"
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(root))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    return root


def _made_whole(schema: Schema) -> dict[str, tuple[bool, bool, str | None]]:
    """Each option's (converter known, takes a value, converter's name) as the parser made them before."""
    out = {}
    for spec, kind, strings in registered_options(schema):
        if kind in ("help", "version") or not spec.option_strings:
            continue
        action = build_parser(schema).parser._option_string_actions[strings[0]]
        takes_values = action.nargs != 0
        conv, known = _converter(spec, schema, takes_values)
        out[strings[0]] = (known, conv is not None, getattr(conv, "__name__", None))
    return out


@pytest.mark.parametrize(("framework", "release"), RELEASES)
def test_each_options_converter_made_when_read_is_the_one_made_with_the_parser(
    framework: str, release: str
) -> None:
    schema = load_schema(framework, release)
    build_parser.cache_clear()
    parser = build_parser(schema).parser
    recorders = [a for a in parser._actions if isinstance(a, _Recorder) and a.option_strings]
    assert len(recorders) > 100
    assert all(a._converter is not None for a in recorders)  # nothing made by building the parser
    whole = _made_whole(schema)
    seen = {
        a.option_strings[0]: (a.exact, a.type is not None, getattr(a.type, "__name__", None))
        for a in recorders
    }
    assert seen == whole
    # the unknown converters: every option's, as building them all gave
    unknown = {
        spec.dest
        for spec, kind, _ in registered_options(schema)
        if kind not in ("help", "version") and not option_converter(spec, schema)[1]
    }
    assert build_parser(schema).unknown_converters == frozenset(unknown)


def test_a_parse_makes_the_converters_of_the_options_it_meets_and_of_string_defaults() -> None:
    schema = load_schema("sglang", "0.5.19")
    build_parser.cache_clear()
    parser = build_parser(schema).parser
    parser.reset()
    namespace, extras = parser.parse_known_args(
        ["--model-path", "/m", "--tp-size", "two", "--mem-fraction-static", "0.8"]
    )
    made = {
        a.option_strings[0]
        for a in parser._actions
        if isinstance(a, _Recorder) and a.option_strings and a._converter is None
    }
    assert {"--tp-size", "--mem-fraction-static", "--model-path"} <= made
    assert len(made) < 200  # of ~500 options
    assert (namespace.mem_fraction_static, extras) == (0.8, [])
    assert [(e.option, e.raw, e.errors) for e in parser.events if e.option == "--tp-size"] == [
        (
            "--tp-size",
            ["two"],
            [("invalid", "argument --tp-size/--tensor-parallel-size: invalid int value: 'two'")],
        )
    ]


def test_the_release_index_s_packed_converters_and_choice_lists_are_the_file_s(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = release_index_module._raw("sglang")

    def fresh() -> release_index_module.ReleaseIndex:
        release_index_module.release_index.cache_clear()
        return release_index_module.release_index("sglang")

    try:
        first, kept = fresh(), fresh()
        monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
        built = fresh()
    finally:
        release_index_module.release_index.cache_clear()
    for index in (first, kept, built):
        assert index.converters == {k: tuple(map(tuple, v)) for k, v in raw["converters"].items()}
        sets = raw["choice_sets"]
        assert len(index.packed_choice_sets) == len(sets) > 10
        assert [index.choice_set(i) for i in range(len(sets))] == [frozenset(c) for c in sets]
    assert first == kept == built
    # a value outside a flag's choices: the releases whose list lacks it (read through choice_set)
    assert kept.refusing_value("--attention-backend", "no-such-backend") == tuple(
        r
        for r, i in zip(kept.releases, range(len(kept.releases)), strict=True)
        if i in kept.flags["--attention-backend"]
        and "no-such-backend" not in kept.choice_set(_label_at(kept, "--attention-backend", i))
    )


def _label_at(index: release_index_module.ReleaseIndex, flag: str, release: int) -> int:
    """The choice list position of ``flag`` in the ``release``-th release (from its runs)."""
    known = index.flags[flag]
    at = 0
    for label, count in index.choices[flag]:
        if release in known[at : at + count]:
            return label
        at += count
    raise AssertionError(flag)


@pytest.mark.parametrize(("framework", "release"), RELEASES)
def test_a_schema_with_its_variables_packed_equals_the_expanded_file(
    cache: Path, monkeypatch: pytest.MonkeyPatch, framework: str, release: str
) -> None:
    path = SCHEMA_DIR / f"{framework}-{release}.json"
    kept = [schema_store.load_schema_data(path, SCHEMA_DIR) for _ in range(2)]
    monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
    built = schema_store.load_schema_data(path, SCHEMA_DIR)
    whole = schema_store.load_expanded(path, SCHEMA_DIR)
    for data in (*kept, built):
        assert isinstance(data, schema_store.PackedSchema)
        assert "env_vars" in data and data._plain["env_vars"] is None  # asked without unpacking
        records = schema_store.records_by_name(whole["env_vars"])
        assert list(data.env_records) == list(records) and len(data.env_records) == len(records) > 20
        name = next(iter(records))
        assert data.env_records[name] == records[name] and "NO_SUCH_VARIABLE" not in data.env_records
        assert list(data) == list(whole) and dict(data) == whole  # the key order and every value
    # a schema made from plain data answers the same as one made from the packed copy
    packed = Schema(framework=framework, version=release, data=kept[0], path=str(path))
    plain = Schema(framework=framework, version=release, data=whole, path=str(path))
    assert packed.env_var_names == plain.env_var_names
    assert packed.deprecated_env_names == plain.deprecated_env_names
    assert packed.env_vars == plain.env_vars
    for name in sorted(plain.env_var_names):
        assert packed.env_var(name) == plain.env_var(name)
        assert packed.env_var(name, first=True) == plain.env_var(name, first=True)
    # each load is a copy of its own: a caller's change stays in its copy
    kept[0].env_records[name].append("changed")
    assert kept[1].env_records[name] == records[name]


def test_the_packed_combination_sites_unpack_to_the_index_s_sites(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start_raises._packed_sites.cache_clear()
    start_raises._combination_sites.cache_clear()
    try:
        named_sets, packed = start_raises._packed_sites("sglang", "0.5.23")
        sites = start_raises._combination_sites("sglang", "0.5.23")
    finally:
        start_raises._packed_sites.cache_clear()
        start_raises._combination_sites.cache_clear()
    assert len(named_sets) == len(packed) == len(sites) > 50
    for named, data, (site, named_too, tests) in zip(named_sets, packed, sites, strict=True):
        assert (
            named
            == named_too
            == start_raises.options_named(
                str(site["message"]), frozenset(start_raises._options("sglang", "0.5.23"))
            )
        )
        assert marshal.loads(data) == (site, list(tests))
        # the conditions with their locals substituted where the index resolved them (site_tests)
        assert tests == tuple(start_raises.compile_test(str(c)) for c in start_raises.site_tests(site))


def test_the_packed_override_sites_are_the_data_file_s_with_their_tests_compiled(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sites = json.loads(package_file("frameworks/data/sglang_overrides.json").read_text())["sites"]

    def packed() -> tuple[Any, ...]:
        start_overrides._packed_sites.cache_clear()
        start_overrides._sites.cache_clear()
        return start_overrides._packed_sites()

    try:
        first, kept = packed(), packed()
        assert [p.name.rsplit("-", 1)[0] for p in cache.glob("*.marshal")] == ["sglang-override-sites"]
        monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
        built = packed()
    finally:
        start_overrides._packed_sites.cache_clear()
    # the same sites (marshal's bytes may differ: which strings it writes as references)
    unpacked = [
        [(at, named, marshal.loads(data)) for (at, named), data in zip(*copy, strict=True)]
        for copy in (first, kept, built)
    ]
    assert unpacked[0] == unpacked[1] == unpacked[2]
    assert len(kept[0]) == len(kept[1]) == len(sites) > 100
    for (at, named), data, site in zip(*kept, sites, strict=True):
        assert at == tuple(site["at"]) and named == tuple(site["named"])
        tests = [start_raises.compile_test(str(c)) for c in site["conditions"]]
        assert marshal.loads(data) == (site, tests)


LATE = ("argtrace.layers.hicache_host", "argtrace.layers.container_shm", "argtrace.layers.ngram_trie")
LAUNCH = "python3 -m sglang.launch_server --model-path /m"


def _late(tmp_path: Path, script: str) -> list[object]:
    """The findings' codes and which late layers were imported, for a check of ``script`` in a fresh
    interpreter (the release given: the findings rest on its parser's values)."""
    (tmp_path / "launch.sh").write_text(script)
    code = (
        "import contextlib, io, json, sys\n"
        "from argtrace.cli import main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    main(['check', '--format', 'json', '--no-resolve', '--no-shellcheck',\n"
        "          '--framework-version', '0.5.23', 'launch.sh'])\n"
        "d = json.loads(buf.getvalue())\n"
        "print(json.dumps([sorted(f['code'] for f in d['findings']),\n"
        f"    sorted(m for m in {LATE!r} if m in sys.modules)]))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC, ARGTRACE_WARM="0", XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("ARGTRACE_CACHE_DIR", None), env.pop("ARGTRACE_DATA_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, check=True
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    ("script", "codes", "imported"),
    [
        (  # a fixed HiCache host pool on four ranks (MM014)
            f"{LAUNCH} --tp-size 4 --enable-hierarchical-cache --hicache-size 150\n",
            ["MM014"],
            ["argtrace.layers.hicache_host"],
        ),
        (  # a HiCache size without the hierarchical cache: the layer is imported and finds nothing
            f"{LAUNCH} --tp-size 4 --hicache-size 150\n",
            [],
            ["argtrace.layers.hicache_host"],
        ),
        (  # docker run with Docker's 64 MiB /dev/shm for four ranks (MM015)
            "docker run --gpus all lmsysorg/sglang:v0.5.23 " + LAUNCH + " --tp-size 4\n",
            ["MM015"],
            ["argtrace.layers.container_shm"],
        ),
        (  # an NGRAM trie no larger than its depth (RS066)
            f"{LAUNCH} --speculative-algorithm NGRAM --speculative-ngram-capacity 18\n",
            ["RS066"],
            ["argtrace.layers.ngram_trie"],
        ),
        (  # another speculative algorithm: the NGRAM layer is not imported
            f"{LAUNCH} --speculative-algorithm EAGLE --speculative-ngram-capacity 18\n",
            [],
            [],
        ),
    ],
)
def test_a_late_layer_is_imported_for_a_launch_that_has_what_it_tests_first(
    tmp_path: Path, script: str, codes: list[str], imported: list[str]
) -> None:
    found, modules = _late(tmp_path, script)
    assert [c for c in found if c in ("MM014", "MM015", "RS066")] == codes
    assert modules == imported
