"""The 2026-12-05 wrong-alarm sweep, sixteenth (fa37): correct launches of 2025-2026 from sources earlier
sweeps did not read (each repository path grepped first), mostly the frameworks' own pages a user copies:
SGLang's platform pages (Xeon CPU servers, Intel XPU, Apple Silicon through MLX), model and feature pages
(Qwen3-Omni, LLaDA, Unlimited-OCR, GLM-5.2 and DeepSeek-V4 with an NVFP4 KV cache on SM90, suffix and adaptive
speculative decoding, encode/language disaggregation) and its LWS PD decode manifest (DP attention, DeepEP,
two nodes); vLLM's vendor and feature pages (Nebius, JarvisLabs, RunPod, dstack, the gRPC server, pre-serve
warmup, EAGLE-3 and suffix decoding in an offline LLM); a course's `uvx vllm serve` lesson and two Python
starters through SGLang's `launch_server_cmd`. Each file under ``tests/data/real_cases_fa37/`` is a
reconstruction (its header names the source and what it keeps; a Markdown page's header is an HTML comment),
checked as a new user: no options, no resolver environment, no Hugging Face cache. docs/real_cases.md
("Working launches of 2025-2026 from new sources, 16th sweep") has the table and the mechanisms.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks.detect import detect_server
from tests.batches import recorded_check
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa37"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# launch -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    # was no server and an SH040 warning ("argtrace does not follow `uvx`")
    "learnvllm_uvx_vllm_serve_lesson.md": 1,
    "pulse_sglang_doc_patch_launch_server_cmd.py": 1,
    "sglangdocs_adaptive_spec_eagle_page.md": 1,
    "sglangdocs_apple_metal_mlx_page.md": 1,
    # had an untrue SC2086 note on the `<MODEL_ID_OR_PATH>` placeholder (argtrace's own `${...}` rewrite)
    "sglangdocs_cpu_server_xeon_page.md": 5,
    "sglangdocs_diffusion_llada_page.md": 1,
    # had an untrue SC2154 note ("secret is referenced but not assigned") on `--env "HF_TOKEN=<secret>"`; the
    # SkyPilot task in a yaml block is not read (a page's yaml is read only when no shell block starts one)
    "sglangdocs_install_docker_skypilot_page.md": 1,
    "sglangdocs_lws_pd_decode_dp16_deepep.yaml": 2,
    "sglangdocs_qwen3_omni_tp4_page.md": 1,
    "sglangdocs_unlimited_ocr_fa3_page.md": 1,
    # notes only: 0.5.23 refuses `--disaggregation-mode encode|language` (the page's design, no release)
    "sglangdocs_vlm_encode_language_disagg_page.md": 2,
    "torchscript_sglang_launch_server_cmd_ci_patch.py": 1,
    "vllmdocs_dstack_service_yaml_page.md": 1,
    "vllmdocs_eagle3_offline_llm_tp2.py": 1,
    "vllmdocs_jarvislabs_gemma4_uv_page.md": 1,
    # had untrue SC2154 ("model_name is referenced but not assigned") and SC2086 notes on `<model-name>`
    "vllmdocs_runpod_api_server_placeholder_page.md": 1,
    "vllmdocs_suffix_decoding_offline_llm.py": 1,
}

_NOT_FLAG = (
    '{flag} is not a sglang {release} flag: the server refuses to start ("unrecognized arguments", exit 2)'
)
_XPU_SPLIT = (
    "{n} blanks after the line-continuation backslash on line {line}, before its comment: the command ends "
    "on line {line} with an extra argument `' '`, and line {next} runs as a separate command"
)
# launches the source itself breaks, or that every bundled release refuses (kept: true findings)
KEPT: dict[str, tuple[int, list[tuple[str, str, str]]]] = {
    # `--tp 2 \   # using multi GPUs`: the backslash escapes a blank, the comment ends the command
    "sglangdocs_xpu_trailing_comments_page.md": (
        1,
        [
            (
                "SH003",
                "error",
                _XPU_SPLIT.format(n=3, line=18, next=19) + "; the flags after it never reach the server",
            ),
            ("SH003", "error", _XPU_SPLIT.format(n=3, line=19, next=20)),
            ("SH003", "error", _XPU_SPLIT.format(n=3, line=20, next=21)),
            (
                "PA010",
                "error",
                "once these flags reach the server: argument --page-size: invalid int value: ' ' "
                "(argparse exit 2)",
            ),
            (
                "PA001",
                "error",
                "once these flags reach the server: ' ' (after intel_xpu) is not a value of any flag: sglang "
                '0.5.23 rejects it with "unrecognized arguments" (exit 2)',
            ),
            (
                "PA001",
                "error",
                "' ' (after 2) is not a value of any flag: sglang 0.5.23 rejects it with \"unrecognized "
                'arguments" (exit 2)',
            ),
        ],
    ),
    # the NVFP4 KV cache pages build SGLang from a "delivery commit": no released sglang (0.5.23 is PyPI's
    # newest) has --fp4-kv-cache-recipe, so on any release the server refuses it
    "sglangdocs_dsv4_nvfp4_kv_sm90_required_vars_page.md": (
        1,
        [("PA001", "warning", _NOT_FLAG.format(flag="--fp4-kv-cache-recipe", release="0.5.20"))],
    ),
    "sglangdocs_glm52_nvfp4_kv_sm90_page.md": (
        1,
        [("PA001", "warning", _NOT_FLAG.format(flag="--fp4-kv-cache-recipe", release="0.5.19"))],
    ),
    # the page's flags are not in any released sglang up to 0.5.23 (it names a v0.5.7 ROCm image)
    "sglangdocs_suffix_decoding_mi300_page.md": (
        1,
        [
            (
                "PA001",
                "warning",
                _NOT_FLAG.format(flag="--speculative-suffix-max-spec-factor", release="0.5.23"),
            ),
            (
                "PA001",
                "warning",
                _NOT_FLAG.format(flag="--speculative-suffix-min-token-prob", release="0.5.23"),
            ),
        ],
    ),
    # no bundled vLLM (up to 0.33.0) has --warmup-config; PyPI's 0.34.0 is not bundled, so not checked
    "vllmdocs_warmup_config_page.md": (
        1,
        [
            (
                "PA001",
                "warning",
                '--warmup-config is not a vllm 0.33.0 flag: the server refuses to start ("unrecognized '
                'arguments", exit 2); did you mean --config?',
            )
        ],
    ),
}
# correct launches still read wrongly (strict xfail: the known misses this sweep leaves)
MISSED: dict[str, str] = {
    # `python -m vllm.entrypoints.grpc_server` (its own parser: --host, --port and the engine's flags) is not
    # a module argtrace reads: 2 SH040 warnings and no server
    "vllmdocs_grpc_server_kv_events_page.md": "the gRPC server module is not read",
    # `nebius ai endpoint create --container-command vllm --args "serve ..."`: the CLI is not followed
    "vllmdocs_nebius_endpoint_container_args_page.md": "the Nebius CLI's container is not read",
}
_HEADER = "Reconstructed (not copied) after https://"


def report_of(name: str, *options: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, tuple(options)))


def test_every_case_is_listed_and_names_its_source() -> None:
    files = sorted(str(p.relative_to(CASES)) for p in CASES.rglob("*") if p.is_file())
    assert files == sorted([*CLEAN, *KEPT, *MISSED])
    for name in files:
        lines = (CASES / name).read_text(encoding="utf-8").splitlines()
        prefix = "<!-- " if name.endswith(".md") else "# "
        assert any(line.startswith(prefix + _HEADER) for line in lines[:3]), name


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_a_correct_launch_gets_no_error_or_warning(name: str) -> None:
    report = report_of(name)
    assert len(report["servers"]) == CLEAN[name]
    assert alarms(report) == []


@pytest.mark.parametrize("name", sorted(KEPT))
def test_a_launch_the_source_breaks_keeps_its_findings(name: str) -> None:
    report = report_of(name)
    servers, said = KEPT[name]
    assert len(report["servers"]) == servers
    assert [(f["code"], f["severity"], f["message"]) for f in alarms(report)] == said


@pytest.mark.parametrize("name", sorted(MISSED))
@pytest.mark.xfail(
    strict=True, reason="a correct launch argtrace does not read yet (docs/real_cases.md, fa37)"
)
def test_a_correct_launch_not_read_yet(name: str) -> None:
    report = report_of(name)
    assert report["servers"] and alarms(report) == []


# --- uvx (uv tool run) runs the package's command ---------------------------------------------------------


def _check(tmp_path: Path, name: str, text: str, *options: str) -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, name], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_the_uvx_lesson_reads_the_server_uvx_runs() -> None:
    report = report_of("learnvllm_uvx_vllm_serve_lesson.md")
    (server,) = report["servers"]
    assert server["argv"] == [
        "uvx",
        "vllm",
        "serve",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--port",
        "8000",
        "--dtype",
        "auto",
    ]
    assert [f["message"] for f in report["findings"] if f["code"] == "PR007"] == [
        "`vllm` runs in the environment `uvx` selects, not the one PATH finds here; the framework release "
        "installed there is unknown (not read)"
    ]


@pytest.mark.parametrize(
    ("line", "runner"),
    [
        ("uvx vllm serve m --port 8000", "uvx"),
        ("uvx --from vllm==0.11.0 vllm serve m", "uvx --from vllm==0.11.0"),
        ("uvx --python 3.12 --with flashinfer-python vllm serve m", "uvx"),
        ("uv tool run --from sglang sglang serve --model-path m", "uv tool run --from sglang"),
        ("uv --offline tool run vllm serve m", "uv tool run"),
    ],
)
def test_uvx_options_are_skipped_as_uvx_reads_them(line: str, runner: str) -> None:
    det = detect_server(shlex.split(line))
    assert det is not None and det.runner == runner


@pytest.mark.parametrize("line", ["uvx --version vllm serve m", "uvx --help", "uvx --from"])
def test_a_uvx_that_runs_nothing_starts_no_server(line: str) -> None:
    assert detect_server(shlex.split(line)) is None


# --- shellcheck's opinion of a page's `<name>` placeholder -----------------------------------------------


_PAGE = (
    "# Page\n\n```bash\npython -m vllm.entrypoints.openai.api_server \\\n"
    "    --model {model} --port 8000\n```\n"
)


def _sc(report: dict[str, Any]) -> list[str]:
    return [f["code"] for f in report["findings"] if f["code"].startswith("SC")]


def test_a_pages_placeholder_gets_no_shellcheck_note(tmp_path: Path) -> None:
    report = _check(tmp_path, "README.md", _PAGE.format(model="<model-name>"))
    assert len(report["servers"]) == 1
    assert _sc(report) == []


def test_a_variable_the_page_writes_keeps_its_shellcheck_notes(tmp_path: Path) -> None:
    # `$model_name` is the page's own: it reads a variable it never sets, unquoted (shellcheck says both)
    report = _check(tmp_path, "README.md", _PAGE.format(model="$model_name"))
    assert sorted(_sc(report)) == ["SC2086", "SC2154"]


def test_a_scripts_unset_variable_keeps_its_notes(tmp_path: Path) -> None:
    # a script reads what it writes: the rewrite is a page's alone
    report = _check(tmp_path, "s.sh", "#!/bin/bash\nvllm serve $model_name --port 8000\n")
    assert sorted(_sc(report)) == ["SC2086", "SC2154"]


@pytest.mark.parametrize(
    ("line", "release"),
    [
        ("uvx --from vllm==0.11.0 vllm serve m --foo", "vllm 0.11.0"),
        ("uvx --from=vllm==0.11.0 vllm serve m --foo", "vllm 0.11.0"),
        ("uv tool run --from 'vllm[audio]==0.11.0' vllm serve m --foo", "vllm 0.11.0"),
        ("pipx run --spec sglang==0.5.9 sglang serve --model-path m --foo", "sglang 0.5.9"),
        ("uvx vllm@0.11.0 serve m --foo", "vllm 0.11.0"),
    ],
)
def test_the_release_a_runner_installs_decides_the_analysis(tmp_path: Path, line: str, release: str) -> None:
    report = _check(tmp_path, "s.sh", line + "\n")
    assert not [f for f in report["findings"] if f["code"] in ("PR011", "PR007")]
    assert [(f["code"], f["severity"], f["message"]) for f in alarms(report)] == [
        (
            "PA001",
            "error",
            f'--foo is not a {release} flag: the server refuses to start ("unrecognized arguments", exit 2)',
        )
    ]


def test_uvx_command_at_latest_is_the_package_with_no_release_named(tmp_path: Path) -> None:
    report = _check(tmp_path, "s.sh", "uvx vllm@latest serve Qwen/Qwen3-8B\n")
    assert [s["argv"][:3] for s in report["servers"]] == [["uvx", "vllm@latest", "serve"]]
    assert [f["code"] for f in report["findings"] if f["code"] in ("PR011", "PR007")] == ["PR011", "PR007"]


def test_a_command_at_version_outside_uvx_is_no_console_script() -> None:
    # only uvx reads `NAME@VERSION`; bash looks for a program named `vllm@0.11.0`
    assert detect_server(["vllm@0.11.0", "serve", "m"]) is None
