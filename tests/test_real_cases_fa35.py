"""The 2026-12-05 wrong-alarm sweep, fourteenth (fa35): correct launches of 2025-2026 as users copy them from
the frameworks' own documentation and from vendors and blogs, none of whose files was in tests/ or docs/
(each path and URL grepped first): SGLang cookbook pages per model not read before (DeepSeek-R1, V3.1,
GLM-4.5, GLM-4.5V, Ministral 3), SGLang's MiMo-V2.5-Pro page for MI355X (EAGLE with
``--enable-multi-layer-eagle`` under SGLANG_ENABLE_SPEC_V2), vLLM recipes' AMD and NVIDIA pages not read
before (DeepSeek-V4 on ROCm with ``--compilation-config``, MiniMax-M3 in a ``docker run --entrypoint vllm``,
Qwen3.5 over two GB200 nodes with ``--nnodes``/``--headless``, DeepSeek-R1 FP4 on B200 with an MTP
``--speculative-config``), the GPT-OSS recipe's ``launch_server.sh`` with ``vllm serve --config`` files beside
it, vLLM's own blog posts (Llama 4, gpt-oss, Qwen3-Next), a 2026 Qwen3-Next MTP guide, GPUStack's GPT-OSS
H100 page (``--async-scheduling``) and an MI300X blog (``--tensor-parallel`` abbreviated). Each file under
``tests/data/real_cases_fa35/`` is a reconstruction (its header names the source and what it keeps; a
Markdown page's header is an HTML comment), checked as a new user: no options, no resolver environment, no
Hugging Face cache. docs/real_cases.md ("Working launches of 2025-2026 from new sources, 14th sweep") has the
table and the mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa35"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# launch -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    "gitcode_qwen3_next_mtp_speculative_config.sh": 2,
    "gpustack_gpt_oss_120b_h100_async_scheduling.sh": 1,
    "hebbal_vllm_mi300x_gpt_oss_tensor_parallel_prefix.sh": 1,
    "recipes_amd_qwen3_next_usage_page.md": 1,
    "recipes_deepseek_amd_gpu_page.md": 1,
    "recipes_dsv4_amd_page.md": 2,
    "recipes_gpt_oss_config_yaml/launch_server.sh": 1,
    "recipes_gpt_oss_eagle3_config_yaml/launch_server.sh": 1,
    "recipes_minimax_m2_amd_page.md": 1,
    # was no server (`--group-add "$(stat -c '%g' /dev/kfd)"`: an option value not known statically stopped
    # the `docker run` from being read), then a PR001 warning for `-e VLLM_USE_V1=1` on the image's 0.25.0
    "recipes_minimax_m3_page.md": 1,
    "recipes_qwen35_plus_page.md": 6,
    "recipes_qwen3_235b_rocm_page.md": 2,
    "sglangdocs_mimo_v25_pro_mi355x_multi_layer_eagle.sh": 1,
    "sglangdocs_hy3_preview_eagle_page.md": 2,
    "sglcookbook_deepseek_r1_page.md": 3,
    "sglcookbook_deepseek_v31_page.md": 3,
    "sglcookbook_glm45_page.md": 3,
    "sglcookbook_glm45v_page.md": 2,
    "sglcookbook_ministral3_page.md": 2,
    "vllmblog_gpt_oss_gptoss_image_and_wheel.sh": 2,
    "vllmblog_llama4_h100_h200_long_context.sh": 4,
    "vllmblog_qwen3_next_nightly_tp4.sh": 1,
    "vllmexamples_kimik3_dspark_lmcache_mp_connector.sh": 1,
}
# pages whose block the shell really splits (checked in the source: the line ends in `\` and two blanks, or
# has no `\` at all): the flags after the break never reach the server, and argtrace rightly says so (kept)
KEPT: dict[str, tuple[int, list[tuple[str, str, str]]]] = {
    "recipes_dsr1_b200_page.md": (
        2,
        [
            (
                "SH004",
                "error",
                "line 44 starts with `--quantization=modelopt_fp4`: the line before it does not end with a "
                "backslash, so the command ended there and `--quantization=modelopt_fp4 --trust-remote-code "
                "--max-model-len=2048 --block-size=128 --max-num-seqs=256 --enable-expert-parallel "
                "--gpu-memory-utilization=0.8 --tensor-parallel-size=1 --data-parallel-size=4` runs as a "
                "separate command (`--quantization=modelopt_fp4: command not found`); these flags never "
                "reach the server",
            )
        ],
    ),
    "recipes_llama4_scout_amd_page.md": (
        1,
        [
            (
                "SH003",
                "error",
                "2 blanks after the line-continuation backslash at the end of line 50: the command ends on "
                "line 50 with an extra argument `' '`, and line 51 runs as a separate command; the flags "
                "after it never reach the server",
            ),
            # folded under SH003 (its consequence), counted with it
            (
                "PA001",
                "error",
                "' ' (after 8) is not a value of any flag: vllm 0.33.0 rejects it with \"unrecognized "
                'arguments" (exit 2)',
            ),
        ],
    ),
    "recipes_mistral3_amd_page.md": (
        1,
        [
            (
                "SH003",
                "error",
                "2 blanks after the line-continuation backslash at the end of line 49: the command ends on "
                "line 49 with an extra argument `' '`, and line 50 runs as a separate command; the flags "
                "after it never reach the server",
            )
        ],
    ),
}
# the config files the GPT-OSS launch scripts pass to `vllm serve --config`
SUPPORT = [
    "recipes_gpt_oss_config_yaml/GPT-OSS_Blackwell.yaml",
    "recipes_gpt_oss_config_yaml/GPT-OSS_Hopper.yaml",
    "recipes_gpt_oss_eagle3_config_yaml/GPT-OSS_EAGLE3_Blackwell.yaml",
    "recipes_gpt_oss_eagle3_config_yaml/GPT-OSS_EAGLE3_Hopper.yaml",
]
_HEADER = "Reconstructed (not copied) after https://"


def report_of(name: str, *options: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, tuple(options)))


def test_every_case_is_listed_and_names_its_source() -> None:
    files = sorted(str(p.relative_to(CASES)) for p in CASES.rglob("*") if p.is_file())
    assert files == sorted([*CLEAN, *KEPT, *SUPPORT])
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
def test_a_page_whose_block_the_shell_splits_is_refused(name: str) -> None:
    report = report_of(name)
    servers, said = KEPT[name]
    assert len(report["servers"]) == servers
    assert [(f["code"], f["severity"], f["message"]) for f in alarms(report)] == said


def test_the_minimax_m3_container_runs_vllm_serve_from_its_entrypoint() -> None:
    report = report_of("recipes_minimax_m3_page.md")
    (server,) = report["servers"]
    assert server["argv"][:3] == ["vllm", "serve", "/models/MiniMax-M3-MXFP8"]
    (note,) = [f for f in report["findings"] if f["code"] == "PR001"]
    assert (note["severity"], note["message"]) == (
        "info",
        "VLLM_USE_V1 is read by vllm 0.6.6.post1, 0.7.3, 0.8.5.post1, 0.9.2, 0.10.2, 0.11.0 but not by vllm "
        "0.25.1: the release ignores it; 1 is its default in vllm 0.11.0 (vllm/envs.py:900), the last "
        "release that reads it: the launch asks for no more than that release did without it",
    )


# --- a `docker run` option whose value is not known statically ----------------------------------------------


def _servers(tmp_path: Path, options: str) -> list[list[str]]:
    (tmp_path / "run.sh").write_text(
        f"docker run -d --ipc host {options} vllm/vllm-openai-rocm:v0.25.0 Qwen/Qwen3-8B "
        "--tensor-parallel-size 8\n"
    )
    result = run_cli(["check", "--format", "json", "--no-resolve", "run.sh"], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    return [s["argv"] for s in result.json["servers"]]


@pytest.mark.parametrize(
    "options",
    [
        "--group-add \"$(stat -c '%g' /dev/kfd)\"",
        '--cap-add "$(cat caps)"',
        '--security-opt "$(cat opts)"',
        '--name "$(hostname)" --restart "$(cat policy)"',
        '--net "$(cat net)"',  # the older spelling of --network, absent from `docker run --help`
    ],
)
def test_an_unknown_value_of_an_option_that_shapes_nothing_read_leaves_the_command(
    tmp_path: Path, options: str
) -> None:
    assert _servers(tmp_path, options) == [["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "8"]]


@pytest.mark.parametrize(
    "options",
    [
        '--entrypoint "$(cat ep)"',  # the container's command itself
        '--runtime "$(cat rt)"',  # its GPUs
        '--shm-size "$(cat shm)"',  # its /dev/shm
        '--not-a-docker-option "$(cat x)"',  # docker refuses the line: where the image stands is not known
    ],
)
def test_an_unknown_value_of_an_option_argtrace_reads_stays_unread(tmp_path: Path, options: str) -> None:
    assert _servers(tmp_path, options) == []


# --- a variable only older releases read, set to the default of the last of them --------------------------


def _pr001(command: str, version: str) -> tuple[str, str]:
    argv = ["check", "--format", "json", "--no-resolve", "--framework-version", version, "-c", command]
    (f,) = [f for f in run_cli(argv).json["findings"] if f["code"] == "PR001"]
    return f["severity"], f["message"]


def test_a_leftover_variable_at_its_last_default_is_a_note() -> None:
    severity, message = _pr001("VLLM_USE_V1=1 vllm serve Qwen/Qwen3-8B", "0.15.1")
    assert severity == "info"
    assert message.endswith(
        "the release ignores it; 1 is its default in vllm 0.11.0 (vllm/envs.py:900), the last release that "
        "reads it: the launch asks for no more than that release did without it"
    )


def test_a_leftover_variable_asking_for_what_is_gone_stays_a_warning() -> None:
    # VLLM_USE_V1=0 asks for the V0 engine, which vLLM 0.15.1 no longer has: the value is lost
    assert _pr001("VLLM_USE_V1=0 vllm serve Qwen/Qwen3-8B", "0.15.1") == (
        "warning",
        "VLLM_USE_V1 is read by vllm 0.6.6.post1, 0.7.3, 0.8.5.post1, 0.9.2, 0.10.2, 0.11.0 but not by vllm "
        "0.15.1: the release ignores it",
    )
