"""The sixth carriers batch (docs/real_cases.md, "Carriers, 6th batch"): launches carried by Dockerfiles,
Podman quadlets and GitHub Actions workflows, measured before argtrace read any of them (a Dockerfile and a
quadlet were read as a shell script or a systemd unit, a workflow refused as YAML that is no launch).

Each ``tests/data/real_cases_carriers6/`` file is a copy of a public file; its header names the URL at a
commit and what was left out. Two failures, nine correct launches; the machine is a new user's (no resolver
environment, no Hugging Face cache).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_carriers6"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(name: str, *words: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", name, *words], cwd=CASES)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def shown(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["severity"], f["code"]) for f in alarms(report)]


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


# --- the two failures -----------------------------------------------------------------------------------


def test_bootc_quadlet_reads_the_containers_env_file_in_exec() -> None:
    """Was TP060 "the unit has no ExecStart=" (read as a plain systemd unit, a wrong error); now TP064 naming
    the [Container] EnvironmentFile= systemd never reads, with the parser's refusals of '' folded under it."""
    report = check("fail_bootc_quadlet_container_env_in_exec.container")
    # the parser's refusals of '' rest on the same assumption (the manager's own environment): warnings
    assert shown(report) == [("warning", "TP064"), ("warning", "PA010"), ("warning", "PA010")]
    tp064 = report["findings"][0]
    assert tp064["at"] == "fail_bootc_quadlet_container_env_in_exec.container:27"
    assert tp064["basis"] == "assumed"
    assert tp064["message"] == (
        "`${VLLM_MODEL}`, `${VLLM_API_KEY}`, `${VLLM_MAX_NUM_SEQS}`, `${VLLM_GPU_MEMORY_UTILIZATION}` in "
        "Exec=: VLLM_MODEL, VLLM_API_KEY, VLLM_MAX_NUM_SEQS, VLLM_GPU_MEMORY_UTILIZATION are set nowhere in "
        "the service's environment (`EnvironmentFile=/etc/openclaw-platform/vllm.env` under [Container] "
        "(line 17) sets the container's only), so each `${NAME}` gets an empty value from systemd"
    )
    assert tp064["fix"] == (
        "Give systemd the variable under [Service] (`Environment=NAME=value`, or the same "
        "`EnvironmentFile=` there), or write the value in `Exec=`."
    )
    assert [c["code"] for c in tp064["consequences"]] == ["PA010", "PA010"]
    assert words(report) == [
        [
            "vllm",
            "serve",
            "--model",
            "",
            "--host",
            "0.0.0.0",
            "--port",
            "8000",
            "--api-key",
            "",
            "--max-num-seqs",
            "",
            "--gpu-memory-utilization",
            "",
        ]
    ]
    hop = report["transport"]["hops"][0]
    assert hop["via"] == "podman quadlet"
    assert hop["unit"] == "fail_bootc_quadlet_container_env_in_exec.service"
    assert hop["container_environment"] == ["HF_HOME", "HUGGING_FACE_HUB_TOKEN"]
    assert hop["service_environment"] == ["PATH", "PODMAN_SYSTEMD_UNIT"]


def test_igorkirnbb_run_line_starts_the_server_at_build_time() -> None:
    """Was SH040 (`RUN` taken for an unknown wrapper, a wrong reason); now TP088 at the RUN line."""
    report = check("fail_igorkirnbb_run_starts_server.Dockerfile")
    assert shown(report) == [("error", "TP088")]
    tp088 = report["findings"][0]
    assert tp088["at"] == "fail_igorkirnbb_run_starts_server.Dockerfile:10"
    assert tp088["message"] == (
        "`RUN vllm serve Qwen/Qwen2.5-VL-72B-Instruct` starts the server while `docker build` makes the "
        "image, not when a container starts: the build waits on it (or fails where the builder has no GPU), "
        "and the container runs the image's ENTRYPOINT/CMD instead"
    )
    assert report["servers"] == []
    assert report["transport"]["hops"][0]["note"] == (
        "the image has neither ENTRYPOINT nor CMD here: the base image's CMD (not known here) runs"
    )


# --- the nine correct launches: no error, no warning, and the argv the container gets --------------------


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        (
            "ok_bootc_quadlet_exec_values.container",
            [
                "vllm",
                "serve",
                "--model",
                "Qwen3-8B-Q4_K_M",
                "--host",
                "0.0.0.0",
                "--port",
                "8000",
                "--generation-config",
                "vllm",
            ],
        ),
        (
            "ok_koyeb_shell_entrypoint_defaults.Dockerfile",
            [
                "python3",
                "-m",
                "vllm.entrypoints.openai.api_server",
                "--model",
                "meta-llama/Meta-Llama-3.1-8B-Instruct",
            ],
        ),
        (
            "ok_msbabo_shell_entrypoint_port.Dockerfile",
            [
                "python3",
                "-m",
                "vllm.entrypoints.openai.api_server",
                "--port",
                "8000",
                "--model",
                "google/gemma-2b-it",
            ],
        ),
        (
            "ok_gracee3_exec_entrypoint_cmd.Dockerfile",
            [
                "python3",
                "-m",
                "vllm.entrypoints.openai.api_server",
                "--model",
                "/model",
                "--host",
                "0.0.0.0",
                "--port",
                "8000",
            ],
        ),
        (
            "ok_fluder_arg_env_shell_cmd.Dockerfile",
            ["python", "-m", "vllm.entrypoints.api_server", "--model", None, "--tensor-parallel-size", None],
        ),
        (
            "ok_igorkirnbb_bundled_model_build_arg.Dockerfile",
            [
                "python3",
                "-m",
                "vllm.entrypoints.openai.api_server",
                "--model",
                None,
                "--gpu-memory-utilization",
                "0.95",
            ],
        ),
        (
            "ok_rubric_comment_inside_cmd.Dockerfile",
            [
                "python",
                "-m",
                "sglang.launch_server",
                "--model-path",
                "Qwen/Qwen3-30B-A3B",
                "--host",
                "0.0.0.0",
                "--port",
                "8000",
                "--reasoning-parser",
                "qwen3",
                "--grammar-backend",
                "llguidance",
            ],
        ),
        (
            "ok_vllm_macos_smoke_test.yml",
            [
                "vllm",
                "serve",
                "Qwen/Qwen3-0.6B",
                "--max-model-len=2K",
                "--load-format=dummy",
                "--hf-overrides",
                '{"num_hidden_layers": 2}',
                "--enforce-eager",
                "--port",
                "8000",
            ],
        ),
    ],
)
def test_correct_launches_are_clean_with_the_containers_argv(name: str, argv: list[str | None]) -> None:
    report = check(name)
    assert alarms(report) == []
    assert words(report) == [argv]


def test_rubric_comment_line_inside_the_cmd_continuation_is_dockers_not_bashs() -> None:
    """Docker drops a comment line inside a continuation before joining the lines (BuildKit's parser), so
    the flag after it stays in the command; read as bash, the same text cut the command there (SH004)."""
    report = check("ok_rubric_comment_inside_cmd.Dockerfile")
    assert [f["code"] for f in report["findings"] if f["code"].startswith(("SH004", "SH001"))] == []
    # the ENV values the container starts with; the base image's PATH and LD_LIBRARY_PATH are not read
    # (unknown, not unset), so neither is `$LD_LIBRARY_PATH` inside an ENV value
    assert report["process"]["env"] == {
        "CUDA_HOME": "/usr/local/cuda-12",
        "HF_TOKEN": "",
        "LD_LIBRARY_PATH": None,
        "PATH": None,
        "PYTHONPATH": "/:/workspace",
        "SERVER_API_KEY": "",
    }


def test_fluder_build_args_are_unknown_not_empty() -> None:
    report = check("ok_fluder_arg_env_shell_cmd.Dockerfile")
    # said once each, under the PA013 that names the same word by its flag
    folded = [c for f in report["findings"] for c in (f, *f.get("consequences", ()))]
    reasons = {f["message"].split("`")[1]: f["message"] for f in folded if f["code"] == "SH018"}
    assert set(reasons) == {"$model", "$gpu"}
    assert "made from model: a `--build-arg` or the base image's ENV, not known here" in reasons["$model"]


def test_llama_stack_composite_action_reads_the_docker_run_step() -> None:
    """A composite action's `run:` step: the docker run in it is followed; the image (a CPU build of vLLM
    on quay.io) is not one whose entrypoint is known, which TP040 says as a note."""
    report = check("ok_llama_stack_setup_vllm_action.yml")
    assert alarms(report) == []
    assert [f["code"] for f in report["findings"]] == ["TP040"]
    vias = [h["via"] for h in report["transport"]["hops"]]
    assert vias == ["github actions", "docker run"]
    assert report["transport"]["hops"][0]["shell"] == "bash"
