"""The fourth carriers batch (docs/real_cases.md, "Carriers, 4th batch"): Ray Serve LLM serve configs and
KubeRay RayServices, measured before argtrace read either (every serve config was refused as "YAML, but
neither a docker compose file nor a Kubernetes manifest"; a RayService gave no server at all).

Each ``tests/data/real_cases_carriers4/`` file is a public report's config or a documented example; its header
names the URL and what we changed. Four failures, eight correct configs; the machine is a new user's (no
resolver environment, no Hugging Face cache). Options follow the reports: ``--framework-version`` where the
report names vLLM's release, ``--gpu`` where it names the GPU.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FRAMEWORK_BUG, Missed, alarms, names_the_cause_and_the_change, run_cli, v

CASES = Path(__file__).resolve().parent / "data" / "real_cases_carriers4"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(name: str, *options: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *options, name], cwd=CASES)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def shown(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["severity"], f["code"]) for f in alarms(report)]


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


# --- the four failures ---------------------------------------------------------------------------------


def test_ray64466_task_is_no_engine_argument_of_vllm_0_22() -> None:
    """Was c (the serve config refused as no launch); now a: PA003 names `task` (written at line 17) and the
    change. Ray's own words are `Unknown engine argument: task`; the parser's are the command line's."""
    report = check("fail_ray64466_task_embed.yaml", *v("0.22.0"))
    assert shown(report) == [("warning", "PA003")]
    pa003 = alarms(report)[0]
    assert pa003["at"] == "fail_ray64466_task_embed.yaml:17"
    assert pa003["message"] == (
        "--task was accepted up to vllm 0.12.0 but vllm 0.22.1 does not know it: the server refuses to start "
        '("unrecognized arguments", exit 2)'
    )
    assert names_the_cause_and_the_change(report, "--task", "remove the flag")
    assert words(report) == [
        [
            "vllm",
            "serve",
            "Qwen/Qwen2.5-0.5B-Instruct",
            "--served-model-name",
            "qwen-0.5b",
            "--task",
            "embed",
            "--distributed-executor-backend",
            "ray",
        ]
    ]


MISSED = (
    Missed(
        "fail_ray58975_voxtral.yaml",
        "the error is only in the report's attached file, not in the issue; the same engine_kwargs work with "
        "`vllm serve` (the reporter says so), and argtrace finds nothing wrong in them either",
    ),
    Missed(
        "fail_kuberay4366_rayservice_dp.yaml",
        "data parallelism across two one-T4 nodes through Ray's DP deployment: the failure is in how Ray "
        "places the DP ranks (not shown in the issue's text), not in a value of the config",
    ),
    Missed("fail_ray55585_model_alias.yaml", FRAMEWORK_BUG + " (Ray 2.46.0's architecture lookup)", ()),
)


@pytest.mark.parametrize(
    ("case", "options", "servers"),
    [
        (
            MISSED[0],
            (*v("0.11.0"), "--gpu", "h100"),
            [
                [
                    "vllm",
                    "serve",
                    "/mnt/models/voxtral-24b",
                    "--served-model-name",
                    "voxtral",
                    "--enable-log-requests",
                    "--trust-remote-code",
                    "--gpu-memory-utilization",
                    "0.9",
                    "--enable-prefix-caching",
                    "--max-model-len",
                    "2048",
                    "--tokenizer-mode",
                    "mistral",
                    "--config-format",
                    "mistral",
                    "--load-format",
                    "mistral",
                    "--distributed-executor-backend",
                    "ray",
                ]
            ],
        ),
        (
            MISSED[1],
            ("--gpu", "t4"),
            [
                [
                    "vllm",
                    "serve",
                    "Qwen/Qwen2.5-0.5B-Instruct",
                    "--served-model-name",
                    "qwen2.5-0.5b-instruct",
                    "--data-parallel-size",
                    "2",
                    "--data-parallel-backend",
                    "ray",
                    "--data-parallel-size-local",
                    "1",
                    "--max-model-len",
                    "2048",
                    "--dtype",
                    "float16",
                    "--gpu-memory-utilization",
                    "0.95",
                    "--enforce-eager",
                    "--distributed-executor-backend",
                    "ray",
                ]
            ],
        ),
        (
            MISSED[2],
            (*v("0.8.5"), "--gpu", "l40s"),
            [
                [
                    "vllm",
                    "serve",
                    "deepseek-ai/DeepSeek-R1",
                    "--served-model-name",
                    "big_model",
                    "--distributed-executor-backend",
                    "ray",
                ]
            ],
        ),
    ],
    ids=[m.name for m in MISSED],
)
def test_failures_argtrace_now_reads_but_cannot_see(
    case: Missed, options: tuple[str, ...], servers: Any
) -> None:
    """Were c (not read); still c, each for the reason given: the config is read into the server Ray starts,
    and no error or warning claims a cause the report does not show."""
    report = check(case.name, *options)
    assert [code for _sev, code in shown(report)] == list(case.besides)
    assert words(report) == servers


# --- the eight correct configs (each must give no error and no warning) --------------------------------

CORRECT = {
    "ok_ray_docs_llm_config_example.yaml": (2, ["PR011", "PR007", "RS004"]),
    "ok_ray_docs_llama_3_1_8b.yaml": (1, ["PR011", "PR007", "RS004"]),
    "ok_ray_docs_transcription.yaml": (2, ["PR011", "PR007", "RS004"]),
    "ok_ray_docs_direct_streaming.yaml": (1, ["PR011", "PR007", "RS004"]),
    "ok_ray_docs_custom_vllm.yaml": (0, ["TP082"]),
    "ok_kuberay_llm_serve.yaml": (1, ["PR011", "PR007", "PA007", "RS004"]),
    "ok_kuberay_vllm_custom_deployment.yaml": (0, []),
    "ok_ray_docs_standalone/config.yaml": (2, ["PR011", "PR007", "RS004"]),
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_documented_configs_give_no_error_and_no_warning(name: str) -> None:
    report = check(name)
    servers, notes = CORRECT[name]
    assert alarms(report) == []
    assert len(report["servers"]) == servers
    assert [f["code"] for f in report["findings"]] == notes


def test_the_documented_hf_token_stays_masked() -> None:
    """serve_my_llama_3_1_8B.yaml passes `hf_token` through engine_kwargs: it becomes --hf-token, masked."""
    result = run_cli(["check", "--format", "json", "ok_ray_docs_llama_3_1_8b.yaml"], cwd=CASES)
    assert "YOUR-TOKEN-HERE" not in result.stdout
    assert words(result.json)[0][5:8] == ["--max-model-len", "8192", "--hf-token"]
