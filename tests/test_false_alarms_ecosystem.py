"""The ecosystem sweep (2026-12-03): official launches from the frameworks' deployment pages, SkyPilot's
examples, the LWS and llm-d repositories and a model card, checked as a new user (no options).

32 of the 35 are in the plain gate (``tests/test_false_alarms.py``: ``okr_*`` cases, with the new
``systemd/`` and ``skypilot/`` kinds). The other three are here with what argtrace says of them, and each
mechanism fixed by the sweep has a variant that must still fire (docs/false_alarms.md, "The ecosystem sweep").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

DATA = Path(__file__).resolve().parent / "data" / "okrecipes"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(cwd: Path, *argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv], cwd=cwd)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def alarms(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["severity"], f["code"]) for f in report["findings"] if f["severity"] in ("error", "warning")]


def codes(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == code]


# ---- the three launches outside the plain gate


def test_sglang_slurm_page_gives_every_task_node_rank_zero() -> None:
    # SGLang's multi-node page: `srun ... --node-rank "$SLURM_NODEID" &` in the batch script. The batch
    # shell expands $SLURM_NODEID (0 on the job's first node, where it runs) before srun starts the two
    # tasks, so both get --node-rank 0: a true finding, not a false alarm
    report = check(DATA, "sglang_slurm_405b_tp16.sh")
    assert alarms(report) == [("error", "PA033")]
    (finding,) = codes(report, "PA033")
    assert "every task gets node_rank 0" in finding["message"]


@pytest.mark.parametrize("name", ["vllm_lb_two_containers.sh", "vllm_nginx_two_containers.sh"])
def test_a_locally_built_image_is_not_read(name: str) -> None:
    # `docker build -f docker/Dockerfile . --tag vllm`, then `docker run ... vllm --model M`: the image's
    # ENTRYPOINT (vLLM's Dockerfile: `vllm serve`) is not known here, so the words after it are not read as
    # a server start. Not fixed: said as TP040 (info), no alarm
    report = check(DATA, name)
    assert report["servers"] == []
    assert alarms(report) == []
    assert [f["severity"] for f in codes(report, "TP040")] == ["info"]


# ---- systemd-run


def _server_env(report: dict[str, Any]) -> list[str]:
    assert len(report["servers"]) == 1
    return sorted(report["process"]["env"])


def test_systemd_run_is_followed_and_the_service_gets_the_managers_environment(tmp_path: Path) -> None:
    # systemd-run(1): a transient service gets the manager's environment, not the caller's; -E NAME=V and
    # -p Environment= add to it, -E NAME passes the caller's value
    command = (
        "export CALLER_ONLY=1 HF_TOKEN=abc; systemd-run --user -E HF_TOKEN -E VLLM_LOGGING_LEVEL=DEBUG "
        "-p 'Environment=A=1 B=2' --unit=vllm vllm serve Qwen/Qwen3-0.6B --port 8000"
    )
    report = check(tmp_path, "-c", command)
    assert alarms(report) == []
    words = [w["text"] for w in report["servers"][0]["words"]]
    assert words[0] == "systemd-run" and words[-5:] == ["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "8000"]
    # PATH stays: systemd-run looks the command up in the caller's PATH itself
    assert _server_env(report) == ["A", "B", "HF_TOKEN", "PATH", "VLLM_LOGGING_LEVEL"]
    assert report["process"]["env"]["VLLM_LOGGING_LEVEL"] == "DEBUG"


def test_systemd_run_scope_keeps_the_callers_environment(tmp_path: Path) -> None:
    report = check(tmp_path, "-c", "export CALLER_ONLY=1; systemd-run --scope vllm serve Qwen/Qwen3-0.6B")
    assert "CALLER_ONLY" in _server_env(report)


def test_systemd_run_shell_runs_no_server(tmp_path: Path) -> None:
    # -S/--shell starts $SHELL: the words after the options are not run as a command
    report = check(tmp_path, "-c", "systemd-run --shell vllm serve Qwen/Qwen3-0.6B")
    assert report["servers"] == []


# ---- DisaggregatedSet and a LeaderWorkerSet without a leaderTemplate

_DS = """apiVersion: disaggregatedset.x-k8s.io/v1
kind: DisaggregatedSet
metadata:
  name: ds
spec:
  roles:
    - name: prefill
      spec:
        leaderWorkerTemplate:
          size: 1
          workerTemplate:
            spec:
              containers:
                - name: s
                  image: lmsysorg/sglang:v0.5.18
                  command: [python3, -m, sglang.launch_server, --model-path, m,
                            --disaggregation-mode, prefill, --tp, "2"]
                  resources:
                    limits:
                      nvidia.com/gpu: "1"
    - name: decode
      spec:
        leaderWorkerTemplate:
          size: 1
          workerTemplate:
            spec:
              containers:
                - name: s
                  image: lmsysorg/sglang:v0.5.18
                  command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, decode]
"""


def test_disaggregatedset_roles_are_read_as_leader_worker_sets(tmp_path: Path) -> None:
    (tmp_path / "ds.yaml").write_text(_DS)
    report = check(tmp_path, "ds.yaml")
    modes = [[w["text"] for w in s["words"]][6] for s in report["servers"]]
    assert modes == ["prefill", "decode"]
    # the broken variant still fires: --tp 2 on a pod with one GPU (TP042 folded under it)
    assert alarms(report) == [("error", "PA036")]
    (finding,) = codes(report, "PA036")
    assert [c["code"] for c in finding["consequences"]] == ["TP042"]


# ---- a SkyPilot envs entry left null for `sky launch --env`

_TASK = "envs:\n  HF_TOKEN:\nresources:\n  accelerators: H100:1\nrun: |\n  vllm serve Qwen/Qwen3-0.6B\n"


def test_a_null_envs_entry_with_no_env_given_is_a_note(tmp_path: Path) -> None:
    (tmp_path / "task.yaml").write_text(_TASK)
    (note,) = codes(check(tmp_path, "task.yaml"), "TP066")
    assert (note["severity"], note["basis"]) == ("info", "assumed")
    assert note["message"].endswith("unless `sky launch` is given `--env HF_TOKEN`")


def test_a_null_envs_entry_missing_from_the_env_given_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "task.yaml").write_text(_TASK)
    (error,) = codes(check(tmp_path, "--env", "OTHER=1", "task.yaml"), "TP066")
    assert error["severity"] == "error"


# ---- a script that exits when a caller variable is unset

_GUARD = (
    "#!/bin/bash\n"
    'if [ -z "$OKR_TOKEN" ]; then\n  echo "set OKR_TOKEN"\n  exit 1\nfi\n'
    "vllm serve Qwen/Qwen3-0.6B --port 8000\n"
)


def test_a_guard_on_a_caller_variable_is_read_past(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text(_GUARD)
    report = check(tmp_path, "launch.sh")
    assert [[w["text"] for w in s["words"]] for s in report["servers"]] == [
        ["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "8000"]
    ]
    (note,) = codes(report, "SH046")
    assert (note["severity"], note["basis"], note["at"]) == ("info", "assumed", "launch.sh:4:3")
    assert "when $OKR_TOKEN is not set" in note["message"]
    assert codes(report, "SH019") == []


def test_past_the_guard_the_callers_other_variables_are_unknown_not_unset(tmp_path: Path) -> None:
    # a platform that sets the guarded variable sets the others the script reads after it (vllm#18986's
    # NODE_WORKER_0_HOST): no "empty value" warning for them once the guard is read past
    text = _GUARD.replace("--port 8000", '--port 8000 --data-parallel-address "$OKR_HOST"')
    (tmp_path / "launch.sh").write_text(text)
    report = check(tmp_path, "launch.sh")
    assert len(report["servers"]) == 1 and alarms(report) == []
    assert len(codes(report, "SH046")) == 1


def test_the_guard_with_the_variable_given_needs_no_note(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text(_GUARD)
    report = check(tmp_path, "--env", "OKR_TOKEN=t", "launch.sh")
    assert len(report["servers"]) == 1 and codes(report, "SH046") == []


def test_an_exit_the_script_takes_whatever_the_caller_sets_is_still_the_end(tmp_path: Path) -> None:
    # no caller variable decides it: still "no server start" (SH019), nothing read past the exit
    (tmp_path / "launch.sh").write_text("#!/bin/bash\nexit 1\nvllm serve Qwen/Qwen3-0.6B\n")
    report = check(tmp_path, "launch.sh")
    assert report["servers"] == [] and codes(report, "SH046") == []
    assert len(codes(report, "SH019")) == 1


# ---- a SkyPilot task's `setup:` pins the release its `run:` starts


def test_the_setup_pin_is_the_release_of_the_run_server(tmp_path: Path) -> None:
    # SkyPilot's deepseek-r1-671B.yaml: setup installs sglang 0.4.2.post4, run starts it; before, the server
    # was analysed as the newest bundled SGLang and --enable-dp-attention called "deprecated in 0.5.23"
    task = (
        'resources:\n  accelerators: H100:8\nsetup: |\n  uv pip install "sglang[all]==0.4.2.post4"\n'
        "run: |\n  python -m sglang.launch_server --model-path m --tp 8 --enable-dp-attention\n"
    )
    (tmp_path / "task.yaml").write_text(task)
    report = check(tmp_path, "task.yaml")
    assert (report["framework"]["source"], report["framework"]["version"]) == ("pip-line", "0.4.2.post4")
    assert codes(report, "PA005") == [] and codes(report, "PR011") == []
