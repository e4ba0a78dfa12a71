"""Every bundled release (issue 15): each schema loads from the shared storage (frameworks/schema_store.py),
says how it was made, has its parser's core flags and its environment variables; the six releases bundled
before the shared storage load exactly as their original files did; loading one release reads only its own
file and its framework's shared part."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks import schema_pack, schema_store
from argtrace.frameworks.schema import SCHEMA_DIR, bundled_versions, load_schema

# sha256 of the canonical JSON (sorted keys) of each schema file as main bc055c9 bundled it, one full file
# per release: the shared storage must give back exactly these dicts.
ORIGINAL_DIGESTS = {
    "sglang-0.5.10.post1": "5fe1d784b2b8202ac92663e0faa1b73c54d099b58f15c4c5a795262847010089",
    "sglang-0.5.15.post1": "37a1b7ec19f4754032482e2cfb905c6433dc92e4e601a6be7345d1294010e532",
    "sglang-0.5.19": "cbc2bf4824baeef20dd54102f1f2b58436cf5488b13f6e0d9b7c48e87ae7e379",
    "sglang-0.5.23": "5fe2e57e7829c291633a6acd5647e7d6c6f8bf580c404175a2714709e5cac42d",
    "vllm-0.11.0": "e7d0941a6df2fe38a478eae8392e7c5cfb77b48b628790882aa45bf25738fbdf",
    "vllm-0.33.0": "554a7a5dd46965163d2218bcd73426232ae5dfd28b7047e17bd11560a374d822",
}
# Flags every release's parser has had, from SGLang 0.4.0 and vLLM 0.6 on.
CORE_FLAGS = {
    "sglang": ("--model-path", "--port", "--host", "--tp-size", "--mem-fraction-static", "--dtype"),
    "vllm": (
        "--port",
        "--host",
        "--tensor-parallel-size",
        "--max-model-len",
        "--dtype",
        "--gpu-memory-utilization",
    ),
}
ENV_PREFIX = {"sglang": ("SGLANG_", "SGL_"), "vllm": ("VLLM_",)}
BUNDLED = [(fw, v) for fw in ("sglang", "vllm") for v in bundled_versions(fw, include_user=False)]


def canonical_digest(data: dict[str, Any]) -> str:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("name", sorted(ORIGINAL_DIGESTS))
def test_the_releases_bundled_before_load_exactly_as_before(name: str) -> None:
    framework, version = name.split("-", 1)
    assert canonical_digest(dict(load_schema(framework, version).data)) == ORIGINAL_DIGESTS[name]


@pytest.mark.parametrize(("framework", "version"), BUNDLED)
def test_every_bundled_release(framework: str, version: str) -> None:
    schema = load_schema(framework, version)
    data = schema.data
    assert data["format"] == 1 and data["framework"] == framework and data["version"] == version
    assert data["generated_by"] == "scripts/gen_schemas.py"
    assert re.fullmatch(r"[0-9a-f]{64}", data["wheel_sha256"])
    assert data["wheel"].startswith(f"{framework}-{version}-") and data["wheel"].endswith(".whl")
    if data["source"] == "ast":
        assert data["generated_with"]["method"] == "ast"
        assert data["wheel_sha256"] in data["generated_with"]["from"]
    else:
        assert data["source"] == (
            f"{framework}=={version} wheel from PyPI ({data['wheel']}, sha256 {data['wheel_sha256']})"
        )
        method = data["generated_with"].get("method", "own environment")
        assert method in ("own environment", "overlay")
        if method == "overlay":
            assert data["generated_with"]["dependencies_from"].startswith(f"{framework}==")
            assert isinstance(data["generated_with"]["stubbed_modules"], list)
    for flag in CORE_FLAGS[framework]:
        assert schema.option(flag) is not None, f"{flag} missing in {framework} {version}"
    assert schema.option("--help") is not None
    names = schema.env_var_names
    assert len(names) >= 20, len(names)
    assert any(n.startswith(ENV_PREFIX[framework]) for n in names)
    assert all(e.where for e in schema.env_vars)
    assert set(data["json_flags"]) <= schema.dests


def test_loading_one_release_reads_only_its_file_and_the_shared_part(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    real = Path.read_text

    def spy(self: Path, *args: Any, **kwargs: Any) -> str:
        read.append(self.as_posix())
        return real(self, *args, **kwargs)

    load_schema.cache_clear()
    schema_store._shared.cache_clear()
    monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")  # the build itself (a kept copy reads no JSON at all)
    monkeypatch.setattr(Path, "read_text", spy)
    try:
        load_schema("sglang", "0.5.10.post1").options  # noqa: B018 (builds the option list)
    finally:
        monkeypatch.undo()
        load_schema.cache_clear()
    schema_files = [Path(n).name for n in read if "/data/schemas/" in n]
    assert schema_files == ["sglang-0.5.10.post1.json", "sglang-shared.json"]


def test_the_storage_is_marked_and_shares_entries() -> None:
    stored = json.loads((SCHEMA_DIR / "sglang-0.5.10.post1.json").read_text())
    assert stored["stored"] == "shared"
    assert any(isinstance(i, int) for i in stored["options"])
    full = dict(load_schema("sglang", "0.5.10.post1").data)
    assert "stored" not in full and all(isinstance(o, dict) for o in full["options"])


def test_pack_round_trips_any_schema(tmp_path: Path) -> None:
    """pack(expand(x)) == x for the files of two releases re-stored in a scratch directory."""
    originals = {v: dict(load_schema("vllm", v).data) for v in ("0.11.0", "0.33.0")}
    staged = []
    for version, data in originals.items():
        path = tmp_path / "in" / f"vllm-{version}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(data))
        staged.append(path)
    out = tmp_path / "out"
    out.mkdir()
    sizes = schema_pack.pack(out, staged)
    assert set(sizes) == {"vllm"}
    assert sorted(p.name for p in out.iterdir()) == [
        "vllm-0.11.0.json",
        "vllm-0.33.0.json",
        "vllm-shared.json",
    ]
    for version, data in originals.items():
        back = schema_store.expand(json.loads((out / f"vllm-{version}.json").read_text()), out)
        assert back == data
    shared = json.loads((out / "vllm-shared.json").read_text())
    assert shared["options"] and all(isinstance(o, dict) for o in shared["options"])


def test_installed_size_stays_small() -> None:
    """docs/frameworks.md states the size of the bundled schema data; keep it honest."""
    total = sum(p.stat().st_size for p in SCHEMA_DIR.glob("*.json"))
    assert total < 12_000_000, total


def parse_exit(
    framework: str, version: str, argv: list[str], entrypoint: str | None = None
) -> tuple[int, str | None]:
    """argtrace's rebuilt parser of one release on the words after the entry point: (exit status, error)."""
    from argtrace.frameworks import sglang, vllm
    from argtrace.layers.parser import run_parser

    from .parser.helpers import server

    schema = load_schema(framework, version)
    entrypoint = entrypoint or ("sglang.launch_server" if framework == "sglang" else "vllm serve")
    srv = server(argv, entrypoint=entrypoint)
    prepared = (sglang if framework == "sglang" else vllm).prepare_argv(srv, schema)
    if prepared.fatal:
        return prepared.fatal[0], prepared.fatal[1]
    outcome = run_parser(prepared, schema)
    return outcome.exit_status, outcome.first_error


# A flag of a range of releases only: SGLang's --mamba-scheduler-strategy (added in 0.5.7, an alias of
# --mamba-radix-cache-strategy from 0.5.14, gone from 0.5.20 on). Its releases are read from each
# bundled schema file (not typed here), and must be a contiguous range with releases outside on both sides.
RANGE_FLAG = "--mamba-scheduler-strategy"
SGLANG_RELEASES = bundled_versions("sglang", include_user=False)
RANGE_RELEASES = tuple(v for v in SGLANG_RELEASES if load_schema("sglang", v).option(RANGE_FLAG) is not None)


def test_a_range_flag_is_known_exactly_in_its_releases() -> None:
    from argtrace.frameworks.release_index import release_index

    index = release_index("sglang")
    assert index.releases_knowing_flag(RANGE_FLAG) == RANGE_RELEASES
    assert index.releases == tuple(SGLANG_RELEASES)
    first, last = SGLANG_RELEASES.index(RANGE_RELEASES[0]), SGLANG_RELEASES.index(RANGE_RELEASES[-1])
    assert RANGE_RELEASES == tuple(SGLANG_RELEASES[first : last + 1])
    assert 0 < first < last < len(SGLANG_RELEASES) - 1  # added after the oldest, dropped before the newest
    assert (SGLANG_RELEASES[first], SGLANG_RELEASES[last + 1]) == ("0.5.7", "0.5.20")  # added, dropped


@pytest.mark.parametrize("version", SGLANG_RELEASES)
def test_a_range_flag_is_accepted_inside_its_range_and_rejected_outside(version: str) -> None:
    status, error = parse_exit("sglang", version, ["--model-path", "m", RANGE_FLAG, "auto"])
    if version in RANGE_RELEASES:
        assert (status, error) == (0, None)
    else:
        assert status == 2
        assert error == f"unrecognized arguments: {RANGE_FLAG} auto"


# A vLLM flag of a range of releases only, the releases read from the bundled schemas (not typed here):
# --swap-space (CPU swap space per GPU) from the oldest bundled release until vLLM dropped it.
VLLM_RANGE_FLAG = "--swap-space"
VLLM = tuple(bundled_versions("vllm", include_user=False))


def vllm_releases_knowing(flag: str) -> tuple[str, ...]:
    return tuple(v for v in VLLM if load_schema("vllm", v).option(flag) is not None)


def test_the_vllm_range_flag_is_known_in_one_unbroken_range_of_releases() -> None:
    from argtrace.frameworks.release_index import release_index

    inside = vllm_releases_knowing(VLLM_RANGE_FLAG)
    first, last = VLLM.index(inside[0]), VLLM.index(inside[-1])
    assert inside == VLLM[first : last + 1]  # no gap: added once, dropped once
    assert 0 < len(inside) < len(VLLM) and last < len(VLLM) - 1  # some releases refuse it
    assert inside[-1] == "0.17.1" and VLLM[last + 1] == "0.18.1"  # the parser of 0.18.1 no longer has it
    assert release_index("vllm").releases_knowing_flag(VLLM_RANGE_FLAG) == inside


@pytest.mark.parametrize("version", VLLM)
def test_the_vllm_range_flag_is_accepted_inside_its_range_and_rejected_outside(version: str) -> None:
    status, error = parse_exit("vllm", version, ["m", VLLM_RANGE_FLAG, "4"])
    if version in vllm_releases_knowing(VLLM_RANGE_FLAG):
        assert (status, error) == (0, None)
    else:
        assert status == 2
        assert error == f"unrecognized arguments: {VLLM_RANGE_FLAG} 4"


MODULE = "vllm.entrypoints.openai.api_server"


@pytest.mark.parametrize(
    ("version", "lacks"),
    [
        ("0.6.6.post1", ["model_tag", "--config"]),
        ("0.7.3", ["model_tag", "--config"]),
        (
            "0.9.2",
            ["model_tag", "--headless", "--data-parallel-start-rank", "--api-server-count", "--config"],
        ),
    ],
)
def test_the_old_module_entry_point_parses_without_what_vllm_serve_adds(
    version: str, lacks: list[str]
) -> None:
    """vLLM <= 0.9: `vllm serve` adds model_tag (required up to 0.7), --config and in 0.9 --headless and the
    API-server flags to its subparser before make_arg_parser; `python -m vllm.entrypoints.openai.api_server`
    parses make_arg_parser alone. The generator records it (`lacks`); the parser honours it."""
    schema = load_schema("vllm", version)
    module = next(e for e in schema.entrypoints if e["command"] == f"python -m {MODULE}")
    assert module["lacks"] == lacks
    assert parse_exit("vllm", version, ["--model", "m"], MODULE) == (0, None)
    assert parse_exit("vllm", version, ["m"], MODULE) == (2, "unrecognized arguments: m")
    assert parse_exit("vllm", version, ["m", "--port", "8000"]) == (0, None)
    required = version != "0.9.2"  # model_tag became optional (nargs="?") in 0.8
    assert parse_exit("vllm", version, ["--port", "8000"]) == (
        (2, "the following arguments are required: model_tag") if required else (0, None)
    )


def test_from_0_10_the_module_entry_point_has_the_serve_parser() -> None:
    for version in ("0.10.2", "0.33.0"):
        module = next(
            e for e in load_schema("vllm", version).entrypoints if e["command"] == f"python -m {MODULE}"
        )
        assert "lacks" not in module
        assert parse_exit("vllm", version, ["m"], MODULE) == (0, None)


def test_check_of_an_old_module_launch_finds_no_missing_model_tag() -> None:
    """End to end: `check` of the 0.6-era launch form, the module with --model, raises nothing about
    model_tag (PA020 follows the entry point's parser too), and --swap-space is known there."""
    from .conftest import REPO, run_cli

    command = f"python -m {MODULE} --model /m --swap-space 4"
    result = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", "0.6.6.post1", "-c", command],
        cwd=REPO,
    )
    codes = sorted(f["code"] for f in result.json["findings"])
    assert codes == ["PA024"], result.json["findings"]  # only: 0.18.1 no longer accepts --swap-space


BASE_ARGV = {"sglang": ["--model-path", "m"], "vllm": ["m"]}
SAMPLED_RANGES = 6  # flags per framework, spread over the ones the data shows in an inner range


def _value_words(spec: Any) -> list[str] | None:
    """Words that make the option parse (None: no simple value, the flag is not sampled)."""
    from argtrace.frameworks.schema import VALUELESS_ACTIONS

    if spec.action in VALUELESS_ACTIONS or spec.nargs == 0:
        return []
    if spec.nargs not in (None, "?"):
        return None
    if spec.choices:
        return [str(spec.choices[0])]
    return {"int": ["1"], "float": ["0.5"], "str": ["x"], None: ["x"]}.get(spec.type)


def inner_range_flags(framework: str) -> list[tuple[str, tuple[str, ...], list[str]]]:
    """(flag, the releases that know it, value words) for flags the release index says exist in a
    contiguous run of bundled releases with a release outside it on each side (added, then removed),
    sampled evenly; value words from the newest knowing release's schema."""
    from argtrace.frameworks.release_index import release_index

    index = release_index(framework)
    n = len(index.releases)
    found = []
    for flag, known in sorted(index.flags.items()):
        if not flag.startswith("--") or flag == "--help":
            continue
        if known[0] == 0 or known[-1] == n - 1 or list(known) != list(range(known[0], known[-1] + 1)):
            continue
        releases = index.releases_knowing_flag(flag)  # abbreviations included
        if releases != tuple(index.releases[i] for i in known):
            continue  # an outside release takes it as the abbreviation of a longer flag
        spec = load_schema(framework, releases[-1]).option(flag)
        words = _value_words(spec) if spec is not None else None
        first = load_schema(framework, releases[0]).option(flag)
        if any(s is not None and s.raw.get("removed") for s in (spec, first)):
            continue  # its action raises there (SGLang 0.5.1-0.5.3 DeprecatedAction): known, refused
        if words is not None:
            found.append((flag, releases, words))
    step = max(1, len(found) // SAMPLED_RANGES)
    return found[::step][:SAMPLED_RANGES]


@pytest.mark.parametrize("framework", ["sglang", "vllm"])
def test_flags_of_a_range_of_releases_are_accepted_inside_and_rejected_outside(framework: str) -> None:
    """For flags the data shows only in an inner range of releases: the first and last release of the range
    accept it, the releases just before and just after reject it as argparse does (exit 2)."""
    from argtrace.frameworks.release_index import release_index

    releases = release_index(framework).releases
    sampled = inner_range_flags(framework)
    if len(releases) < 3:
        pytest.skip(f"{len(releases)} {framework} releases bundled: no inner range")
    if not sampled and framework == "vllm":
        pytest.skip("no vLLM flag is known only inside a range of the bundled releases")
    assert sampled, f"no {framework} flag is known only inside a range of the bundled releases"
    for flag, inside, words in sampled:
        before = releases[releases.index(inside[0]) - 1]
        after = releases[releases.index(inside[-1]) + 1]
        for version in {inside[0], inside[-1]}:
            status, error = parse_exit(framework, version, [*BASE_ARGV[framework], flag, *words])
            assert (status, error) == (0, None), (flag, version, error)
        for version in (before, after):
            status, error = parse_exit(framework, version, [*BASE_ARGV[framework], flag, *words])
            assert status == 2, (flag, version)
            assert error == f"unrecognized arguments: {' '.join([flag, *words])}", (flag, version, error)


# `check` on a flag of a range of releases, at both edges of the range: the release where it changed, in
# both directions, as the findings say it. The edges are the ones the schema files show (the range tests
# above read them from the data): SGLang --mamba-scheduler-strategy 0.5.7-0.5.19, vLLM
# --calculate-kv-scales 0.7.3-0.27.1.
CHECK_RANGE = {
    "sglang": ("python -m sglang.launch_server --model-path m --mamba-scheduler-strategy auto", RANGE_FLAG),
    "vllm": ("vllm serve m --calculate-kv-scales", "--calculate-kv-scales"),
}
EDGE_FINDINGS = [
    (
        "sglang",
        "0.5.6.post2",
        "PA004",
        "error",
        "--mamba-scheduler-strategy only exists from sglang 0.5.7 on; sglang 0.5.6.post2 rejects it with "
        '"unrecognized arguments" (exit 2)',
    ),
    (
        "sglang",
        "0.5.7",
        "PA024",
        "info",
        "--mamba-scheduler-strategy works in sglang 0.5.7 but sglang 0.5.20 no longer accepts it (use "
        "--mamba-radix-cache-strategy); the script breaks on upgrade",
    ),
    (
        "sglang",
        "0.5.19",
        "PA005",
        "info",
        "--mamba-scheduler-strategy is deprecated in sglang 0.5.19: '--mamba-scheduler-strategy' is "
        "deprecated and will be removed in a future release. Use '--mamba-radix-cache-strategy' instead.",
    ),
    (
        "sglang",
        "0.5.20",
        "PA003",
        "error",
        "--mamba-scheduler-strategy was accepted up to sglang 0.5.19 but sglang 0.5.20 does not know it: the "
        'server refuses to start ("unrecognized arguments", exit 2); in sglang 0.5.20 the setting is '
        "--mamba-radix-cache-strategy",
    ),
    (
        "vllm",
        "0.6.6.post1",
        "PA004",
        "error",
        "--calculate-kv-scales only exists from vllm 0.7.3 on; vllm 0.6.6.post1 rejects it with "
        '"unrecognized arguments" (exit 2)',
    ),
    (
        "vllm",
        "0.7.3",
        "PA024",
        "info",
        "--calculate-kv-scales works in vllm 0.7.3 but vllm 0.28.0 no longer accepts it; the script breaks "
        "on upgrade",
    ),
    (
        "vllm",
        "0.27.1",
        "PA024",
        "info",
        "--calculate-kv-scales works in vllm 0.27.1 but vllm 0.28.0 no longer accepts it; the script breaks "
        "on upgrade",
    ),
    (
        "vllm",
        "0.28.0",
        "PA003",
        "error",
        "--calculate-kv-scales was accepted up to vllm 0.27.1 but vllm 0.28.0 does not know it: the server "
        'refuses to start ("unrecognized arguments", exit 2)',
    ),
]


def test_the_check_range_edges_are_the_data_s() -> None:
    from argtrace.frameworks.release_index import release_index

    for framework, (_command, flag) in CHECK_RANGE.items():
        releases = release_index(framework).releases
        inside = release_index(framework).releases_knowing_flag(flag)
        edges = [v for fw, v, *_ in EDGE_FINDINGS if fw == framework]
        # the release before the range, its first and last, the release after it
        assert edges == [
            releases[releases.index(inside[0]) - 1],
            inside[0],
            inside[-1],
            releases[releases.index(inside[-1]) + 1],
        ]


@pytest.mark.parametrize(("framework", "version", "code", "severity", "message"), EDGE_FINDINGS)
def test_check_names_the_release_where_a_range_flag_changed(
    framework: str, version: str, code: str, severity: str, message: str
) -> None:
    from .conftest import run_cli

    command = CHECK_RANGE[framework][0]
    result = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", version, "-c", command]
    )
    assert result.json["framework"]["version"] == version
    parser = [
        (f["code"], f["severity"], f["message"]) for f in result.json["findings"] if f["layer"] == "parser"
    ]
    assert parser == [(code, severity, message)]


# ------------------------------------------------------------------------------ raise-site indexes

RAISE_SITE_FIRST_MODULE = {"sglang": "sglang/srt/server_args.py", "vllm": "vllm/engine/arg_utils.py"}


@pytest.mark.parametrize(("framework", "version"), BUNDLED)
def test_every_bundled_release_has_its_raise_sites(framework: str, version: str) -> None:
    """Stored shared like the schemas (schema_store.RAISE_SITE_KEYS); load_index gives the full index."""
    from argtrace.resolver.raise_index import RAISE_DIR, load_index

    stored = json.loads((RAISE_DIR / f"{framework}-{version}.json").read_text())
    assert stored["stored"] == "shared"
    index = load_index(framework, version)
    assert index is not None and "stored" not in index
    assert index["version"] == version and index["generated_by"] == "scripts/gen_schemas.py"
    assert index["source"] == load_schema(framework, version).data["source"]
    assert index["modules"][0] == RAISE_SITE_FIRST_MODULE[framework]
    assert index["sites"] and all(isinstance(s, dict) for s in index["sites"])
    for site in index["sites"]:
        assert site["file"] in index["modules"] and isinstance(site["line"], int) and site["exception"]


def test_the_raise_site_storage_round_trips(tmp_path: Path) -> None:
    """pack + expand give back the full raise-site indexes of two releases, sharing the unchanged sites."""
    from argtrace.resolver.raise_index import load_index

    originals = {v: load_index("sglang", v) for v in ("0.5.9", "0.5.11")}
    for version, data in originals.items():
        (tmp_path / f"sglang-{version}.json").write_text(json.dumps(data))
    schema_pack.pack(tmp_path, keys=schema_store.RAISE_SITE_KEYS, identity=schema_pack.raise_site_identity)
    schema_store._shared.cache_clear()
    for version, data in originals.items():
        stored = json.loads((tmp_path / f"sglang-{version}.json").read_text())
        assert any(isinstance(i, int) or "@" in i for i in stored["sites"])  # shared or patched
        assert schema_store.expand(stored, tmp_path, schema_store.RAISE_SITE_KEYS) == data
    schema_store._shared.cache_clear()


def test_patches_are_stored_without_a_key_order() -> None:
    """A patch's "order" cost 0.97 MB over vLLM's schemas and raise sites (a shared entry's keys are sorted,
    so most patches carried one); nothing reads a key order. SGLang's files keep theirs until packed again."""
    for directory in (SCHEMA_DIR, SCHEMA_DIR.parent / "raise_sites"):
        for path in directory.glob("vllm-*.json"):
            assert '"order":' not in path.read_text(), path
    patch = schema_pack._patch({"a": 1, "b": 2}, {"b": 3, "c": 4}, 7)
    assert patch == {"@": 7, "~": {"b": 3, "c": 4}, "-": ["a"]}
    assert schema_store._entry([{"a": 1, "b": 2}], {"@": 0, "~": {"b": 3, "c": 4}, "-": ["a"]}) == {
        "b": 3,
        "c": 4,
    }
