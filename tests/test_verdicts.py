"""Honest verdicts (issue 11): the release from the evidence, what each finding rests on, no error on an
assumption, and usage errors for bad shared options."""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.frameworks.release import (
    ReleaseEvidence,
    decide_release,
    describe_releases,
    release_from_image,
    releases_from_install_lines,
)
from argtrace.frameworks.release_index import release_index
from argtrace.frameworks.schema import bundled_versions, load_schema, version_key
from argtrace.model import Finding
from argtrace.verdicts import gpu_assumption, release_assumption, settle
from tests.conftest import REPO, run_cli

# The bundled SGLang releases and those that know --mamba-scheduler-strategy (last in 0.5.19), read from
# the schema files (issue 15 adds releases a family at a time; the release index must agree with them).
SGLANG = tuple(bundled_versions("sglang", include_user=False))
MAMBA_SCHEDULER = tuple(
    v for v in SGLANG if load_schema("sglang", v).option("--mamba-scheduler-strategy") is not None
)
MAMBA_RADIX = tuple(v for v in SGLANG if load_schema("sglang", v).option("--mamba-radix-cache-strategy"))


@pytest.mark.parametrize(
    ("framework", "image", "release"),
    [
        ("sglang", "lmsysorg/sglang:v0.5.10.post1", "0.5.10.post1"),
        ("sglang", "docker.io/lmsysorg/sglang:v0.4.6.post5-cu124-srt", "0.4.6.post5"),
        ("sglang", "lmsysorg/sglang:v0.5.2rc2-cu126", "0.5.2rc2"),
        ("sglang", "lmsysorg/sglang:latest", None),
        ("sglang", "lmsysorg/sglang", None),
        ("sglang", "lmsysorg/sglang:dev", None),
        ("sglang", "vllm/vllm-openai:v0.11.0", None),
        ("vllm", "vllm/vllm-openai:v0.11.0", "0.11.0"),
        ("vllm", "vllm/vllm-openai:nightly", None),
        ("vllm", "myregistry:5000/vllm/vllm-openai:v0.9.2", "0.9.2"),
        ("vllm", "registry.example.com/team/vllm:v0.11.0", None),
        ("vllm", None, None),
    ],
)
def test_release_from_official_image_tags(framework: str, image: str | None, release: str | None) -> None:
    bundled = list(SGLANG) if framework == "sglang" else ["0.11.0", "0.33.0"]
    assert release_from_image(framework, image, bundled) == release


def test_pip_lines_name_the_release() -> None:
    commands = [
        (["pip", "install", "sglang[all]==0.5.10.post1"], "setup.sh:2:1"),
        (["python3", "-m", "pip", "install", "-U", "vllm==0.11.0"], "setup.sh:3:1"),
        (["uv", "pip", "install", "'sglang==0.5.19'"], "setup.sh:4:1"),
        (["echo", "sglang==0.5.23"], "setup.sh:5:1"),
        (["pip", "download", "sglang==0.5.15.post1"], "setup.sh:6:1"),
    ]
    found = releases_from_install_lines("sglang", commands)
    assert [(e.version, e.source, e.at) for e in found] == [
        ("0.5.10.post1", "pip-line", "setup.sh:2:1"),
        ("0.5.19", "pip-line", "setup.sh:4:1"),
    ]
    assert found[0].describe() == "`sglang[all]==0.5.10.post1` installed at setup.sh:2:1"


def test_the_strongest_evidence_decides_and_a_named_release_wins_with_its_conflicts() -> None:
    image = ReleaseEvidence("0.5.23", "image", "c.yaml:3", "image lmsysorg/sglang:v0.5.23")
    logged = ReleaseEvidence("0.5.19", "log", "s.log:1", "the log's `sglang==0.5.19`")
    decided = decide_release("sglang", None, [image, logged])
    assert (decided.version, decided.source, decided.analysed_with, decided.evidence) == (
        "0.5.19",
        "log",
        "0.5.19",
        logged,
    )
    named = decide_release("sglang", "0.5.10.post1", [image, logged])
    assert (named.version, named.source, named.conflicts) == (
        "0.5.10.post1",
        "bundled-schema",
        (image, logged),
    )


def test_no_evidence_gives_the_releases_that_accept_the_launch() -> None:
    decided = decide_release(
        "sglang",
        None,
        [],
        launch_flags=["--mamba-scheduler-strategy", "--tp", "--no-such-flag"],
        launch_env=["SGLANG_ENABLE_SPEC_V2"],
    )
    assert (decided.version, decided.source) == (None, "none")
    assert MAMBA_SCHEDULER[-1] == "0.5.19" and {"0.5.10.post1", "0.5.15.post1"} <= set(MAMBA_SCHEDULER)
    assert decided.accepted_by == MAMBA_SCHEDULER
    assert decided.analysed_with == "0.5.19"
    assert describe_releases(list(decided.accepted_by), list(SGLANG)) == f"{MAMBA_SCHEDULER[0]}-0.5.19"
    assert describe_releases(["0.5.10.post1", "0.5.23"], list(SGLANG)) == "0.5.10.post1, 0.5.23"


def _build_index() -> dict[str, object]:
    """``scripts/gen_release_index.py``'s ``build_index`` (the generator loads every schema; the package
    only reads the index it wrote)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_release_index", REPO / "scripts/gen_release_index.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built: dict[str, object] = module.build_index()
    return built


def test_the_release_index_is_generated_from_the_bundled_schemas() -> None:
    import json

    # one file per framework (a check reads its framework's alone), nothing else in the directory
    directory = REPO / "src/argtrace/frameworks/data/release_index"
    on_disk = {path.stem: json.loads(path.read_text()) for path in sorted(directory.iterdir())}
    assert on_disk == json.loads(json.dumps(_build_index()))
    index = release_index("sglang")
    assert index.releases == SGLANG
    # --tp is the unique abbreviation of --tp-size in every release (argparse's allow_abbrev)
    assert index.releases_knowing_flag("--tp=2") == SGLANG
    # the renamed flag: from the release that added it (0.5.14, the first bundled one with it) to the newest
    assert index.releases_knowing_flag("--mamba-radix-cache-strategy") == MAMBA_RADIX
    assert MAMBA_RADIX[0] == "0.5.14" and MAMBA_RADIX == SGLANG[SGLANG.index("0.5.14") :]


def _finding(code: str, layer: str, severity: str = "error", setting: str | None = None) -> Finding:
    return Finding(code=code, severity=severity, layer=layer, message="m", setting=setting)  # type: ignore[arg-type]


def test_settle_caps_what_rests_on_an_assumed_gpu() -> None:
    findings = [
        _finding("RS001", "resolution"),
        _finding("MM001", "memory"),
        _finding("SH004", "shell"),
        _finding("PR100", "process"),
    ]
    gpu = gpu_assumption("h100")
    settled = settle(findings, release=None, gpu=gpu, holds_on_every_release=lambda f: True)
    assert [(f.code, f.severity, f.rests_on, f.assumptions) for f in settled] == [
        ("RS001", "warning", "assumed", (gpu,)),
        ("MM001", "info", "assumed", (gpu,)),
        ("SH004", "error", "static", ()),
        ("PR100", "error", "static", ()),
    ]


def test_settle_under_an_unknown_release() -> None:
    release = release_assumption("sglang", "0.5.19")
    findings = [_finding("PA001", "parser", setting="a"), _finding("PA005", "parser", "warning", "b")]
    settled = settle(findings, release=release, gpu=None, holds_on_every_release=lambda f: f.setting == "a")
    assert [(f.code, f.severity, f.rests_on) for f in settled] == [
        ("PA001", "error", "schema"),
        ("PA005", "info", "assumed"),
    ]
    assert release.option == "--framework-version"


def test_compose_image_tag_decides_the_release(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(
        "services:\n"
        "  sglang:\n"
        "    image: lmsysorg/sglang:v0.5.10.post1\n"
        "    command: python3 -m sglang.launch_server --model-path /m --tp-size 2 --mamba-scheduler-strategy"
        " extra_buffer\n"
    )
    result = run_cli(["check", "--no-resolve", "--format", "json", "compose.yaml"], cwd=tmp_path)
    assert result.json["framework"] == {
        "name": "sglang",
        "version": "0.5.10.post1",
        "source": "image",
        "evidence": "image lmsysorg/sglang:v0.5.10.post1 at compose.yaml:4",
    }
    assert [f for f in result.json["findings"] if f["severity"] != "info"] == []
    conflict = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", "0.5.23", "compose.yaml"],
        cwd=tmp_path,
    )
    [pr010] = [f for f in conflict.json["findings"] if f["code"] == "PR010"]
    assert (pr010["severity"], pr010["message"]) == (
        "warning",
        "--framework-version 0.5.23 was given, but image lmsysorg/sglang:v0.5.10.post1 at compose.yaml:4 "
        "shows sglang 0.5.10.post1: the analysis follows 0.5.23",
    )


def test_a_logs_version_line_decides_the_release(tmp_path: Path) -> None:
    log = REPO / "tests/data/logs/vllm_0.20_qwen36_mtp.log"
    command = "vllm serve /m --max-model-len 32768"
    result = run_cli(["check", "--no-resolve", "--format", "json", "--log", str(log), "-c", command])
    framework = result.json["framework"]
    assert (framework["version"], framework["source"]) == ("0.20.0", "log")
    # the latest version line of the latest launch
    line = "Initializing a V1 LLM engine (v0.20.0) with config:"
    assert framework["evidence"] == f"the log's `{line}` at {log}:14"


def test_the_shipped_example_without_options_names_no_assumed_release_as_fact() -> None:
    result = run_cli(["check", "--format", "json", "examples/launch_mtp.sh", "0", "30000"], cwd=REPO)
    data = result.json
    assert data["framework"]["version"] is None and data["framework"]["source"] == "none"
    # the example passes --mamba-scheduler-strategy: the releases that know it (from the schemas)
    assert data["framework"]["accepted_by"] == list(MAMBA_SCHEDULER)
    severe = [(f["code"], f["severity"], f["basis"]) for f in data["findings"] if f["severity"] != "info"]
    # The one error is the script's own (static): the flags cut off by the comment line never arrive.
    assert severe == [("SH004", "error", "static")]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["check", "--gpu", "h900", "-c", "x"],
            "argtrace check: --gpu: unknown GPU profile 'h900'; known: a10, a100-40g, a100-80g, a40, "
            "a800-80g, b200, gh200, h100, h100-nvl, h20, h200, l20, l4, l40s, mi300x, rtx-3090, rtx-4090, "
            "rtx-5090, rtx-a6000, rtx-pro-6000, t4, v100, v100-16g (append xN for N GPUs, e.g. h100x8), or "
            "describe the device as nvidia-smi prints it: --gpu 'NAME, MEMORY MiB, CC' (nvidia-smi "
            "--query-gpu=name,memory.total,compute_cap --format=csv,noheader)\n",
        ),
        (
            ["check", "--framework-version", "banana", "-c", "x"],
            "argtrace check: --framework-version 'banana' is not a release version "
            "(e.g. 0.5.10.post1, 0.11.0)\n",
        ),
        (
            ["mem", "--model-config", "examples", "--", "--tp-size", "1"],
            "argtrace mem: --model-config examples/config.json: no such file\n",
        ),
        (
            ["mem", "--model-config", "tests/data/not-a-model.json", "--", "--tp-size", "1"],
            "argtrace mem: --model-config tests/data/not-a-model.json: holds no model config "
            "(no `architectures` or `model_type`)\n",
        ),
    ],
)
def test_bad_shared_options_are_one_line_usage_errors(argv: list[str], message: str, tmp_path: Path) -> None:
    result = run_cli(argv, cwd=REPO)
    assert (result.status, result.stdout, result.stderr) == (2, "", message)


@pytest.mark.parametrize("version", SGLANG)
def test_settings_are_named_as_the_server_names_them(version: str) -> None:
    command = "python3 -m sglang.launch_server --model-path /m --tp-size 2 --dp 2"
    result = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", version, "-c", command]
    )
    named = {s["name"]: (s["dest"], s["flag"], s["effective"]) for s in result.json["settings"]}
    # their argparse dests are tensor_/data_parallel_size, renamed by from_cli_args (field_names.json)
    old = version_key(version) <= version_key("0.5.13.post1")  # from_cli_args renames (field_names.json)
    assert named["tp_size"] == ("tensor_parallel_size" if old else "tp_size", "--tp-size", 2)
    assert named["dp_size"] == ("data_parallel_size" if old else "dp_size", "--dp-size", 2)


@pytest.mark.parametrize("version", SGLANG)
def test_memory_sizing_honours_the_tensor_parallel_size_on_every_release(version: str) -> None:
    # Llama 3.1 8B in bf16 is 16.06 GB of weights: 8.03 GB per rank at TP 2, on every release.
    result = run_cli(
        [
            "check",
            "--no-resolve",
            "--format",
            "json",
            "--framework-version",
            version,
            "--gpu",
            "h100x2",
            "--model-config",
            "tests/data/models/llama-3.1-8b",
            "-c",
            "python3 -m sglang.launch_server --model-path /m --tp-size 2",
        ],
        cwd=REPO,
    )
    assert result.json["memory"]["weights_bytes"] == 8_030_543_872


def test_field_names_come_from_the_frameworks_from_cli_args() -> None:
    import json

    data = json.loads((REPO / "src/argtrace/frameworks/data/field_names.json").read_text())
    assert data["sglang"]["0.5.10.post1"]["tensor_parallel_size"] == "tp_size"
    assert data["sglang"]["0.5.23"] == {}
    # The generator's AST reading, on the real 0.5.10.post1 source when its resolver environment exists.
    from argtrace.resolver.environments import find_environment

    env = find_environment("sglang", "0.5.10.post1")
    if env is None:
        pytest.skip("no sglang 0.5.10.post1 resolver environment")
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("gen_field_names", REPO / "scripts/gen_field_names.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_field_names"] = module
    spec.loader.exec_module(module)
    source = next(Path(env.path).glob("lib/python3*/site-packages/sglang/srt/server_args.py"))
    assert module.renames(source.read_text()) == data["sglang"]["0.5.10.post1"]


# --- a word no bundled release takes as an option, with the release unknown ----------------------------


def _parser_findings(command: str) -> list[tuple[str, str, str]]:
    result = run_cli(["check", "--format", "json", "--no-resolve", "-c", command])
    return [
        (f["code"], f["severity"], f["basis"]) for f in result.json["findings"] if f["code"].startswith("PA")
    ]


def test_near_spelling_counts_insertions_deletions_substitutions_and_swaps() -> None:
    from argtrace.layers.parser.releases import near_spelling

    flags = ["--tensor-parallel-size", "--tp-size", "--kv-offloading-backend", "--port"]
    assert near_spelling("--tensor-paralel-size", flags) == "--tensor-parallel-size"  # one deletion
    assert near_spelling("--tp-szie=2", flags) == "--tp-size"  # a swap of neighbours, the value ignored
    assert near_spelling("--prot", flags) == "--port"
    assert near_spelling("--kv-offloading-quantum", flags) is None  # many edits from every flag
    assert near_spelling("--tp-sizes-x", flags) is None  # three insertions


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # a misspelling of a known flag fails whichever release runs: an error on the schema
        ("vllm serve m --tensor-paralel-size 2", [("PA001", "error", "schema")]),
        ("python3 -m sglang.launch_server --model-path m --tp-szie 2", [("PA001", "error", "schema")]),
        # another framework's flag, and a known flag's underscore spelling: the same
        ("vllm serve m --enable-metrics", [("PA002", "error", "schema")]),
        ("python3 -m sglang.launch_server --model-path m --enable_metrics", [("PA014", "error", "schema")]),
        # like no known flag: every bundled release refuses it, a newer one might not (a warning, assumed)
        ("vllm serve m --kv-offloading-quantum 2", [("PA001", "warning", "assumed")]),
    ],
)
def test_a_word_no_bundled_release_takes_is_judged_by_how_near_a_known_flag_it_is(
    command: str, expected: list[tuple[str, str, str]]
) -> None:
    assert _parser_findings(command) == expected


def test_every_container_of_an_image_with_an_assumed_entrypoint_rests_on_it(tmp_path: Path) -> None:
    """TP044 is said once per image, but each container running it carries the assumption: a parser
    finding on the second `docker run` rests on it as the first one's does (at most a warning)."""
    script = tmp_path / "run.sh"
    script.write_text(
        "#!/bin/bash\n"
        "docker run --gpus all vllm/vllm-openai:latest --model /m --bogus-flag 1\n"
        "docker run --gpus all vllm/vllm-openai:latest --model /m2 --bogus-flag 1\n"
    )
    findings = run_cli(["check", "--format", "json", "--no-resolve", str(script)]).json["findings"]
    assert [f["at"] for f in findings if f["code"] == "TP044"] == [f"{script}:2:1"]
    assert [(f["at"], f["severity"], f["basis"]) for f in findings if f["code"] == "PA001"] == [
        (f"{script}:2:1", "warning", "assumed"),
        (f"{script}:3:1", "warning", "assumed"),
    ]


@pytest.mark.parametrize(
    ("framework", "version", "expected"),
    [
        ("vllm", "0.10.0", "0.10.2"),  # its family's bundled patch, newer than it
        ("vllm", "0.10.1+gptoss", "0.10.2"),
        ("vllm", "0.11.1", "0.11.0"),  # 0.11.0 and 0.11.2 are both bundled: the newest not newer
        ("vllm", "0.9.0", "0.9.2"),
        ("vllm", "0.33.0", "0.33.0"),
        ("vllm", "0.34.0", "0.33.0"),  # no family bundled: the nearest older one
        ("vllm", "0.5.0", "0.6.6.post1"),  # older than every bundled one: the oldest
        ("sglang", "0.5.5", "0.5.5.post3"),
        ("sglang", "0.5.10", "0.5.10.post1"),
        ("sglang", "0.5.24", "0.5.23"),
    ],
)
def test_an_unbundled_release_is_analysed_with_the_bundled_one_of_its_family(
    framework: str, version: str, expected: str
) -> None:
    from argtrace.frameworks.schema import nearest_bundled

    assert nearest_bundled(framework, version, bundled_versions(framework, include_user=False)) == expected
