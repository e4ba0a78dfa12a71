"""The third carriers batch (docs/real_cases.md, "Carriers, 3rd batch"): launches carried by systemd service
units and SkyPilot task YAML, measured before argtrace read either (every one was "not followed").

Each ``tests/data/real_cases_carriers3/`` file is our reconstruction of a public report or file; its header
names the URL and what we changed. Four failures, four correct launches; the machine is a new user's (no
resolver environment, no Hugging Face cache).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import shown
from tests.conftest import run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_carriers3"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(name: str, *options: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *options, name], cwd=CASES)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


# --- the four failures ---------------------------------------------------------------------------------


def test_systemd27036_a_dollar_word_swallows_the_bash_script() -> None:
    """Was SH040 and four shellcheck warnings about `[Unit]` (read as a shell script); now TP061."""
    report = check("fail_systemd27036_bash_c_dollar_word.service")
    assert shown(report) == [("error", "TP061", "static")]
    tp061 = report["findings"][0]
    assert tp061["at"] == "fail_systemd27036_bash_c_dollar_word.service:11"
    assert tp061["message"] == (
        "systemd reads the word `$VENV/bin/vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000` as one variable "
        "named `VENV/bin/vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000` (a word starting with `$` is "
        "replaced by the variable the whole rest of it names); no such variable exists, so the word "
        "vanishes: the shell gets no script after -c"
    )
    assert tp061["fix"] == (
        "Write `${VENV}/bin/vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000`: braces substitute inside a "
        "word."
    )
    assert report["transport"]["hops"][0]["exec_start"] == [
        {"prefixes": "", "path": "/bin/bash", "argv": ["/bin/bash", "-c"]}
    ]


def test_procexp169_braced_options_arrive_as_one_argument() -> None:
    """Was SH019 and shellcheck's `[Unit]` warnings; now TP063 with the one word in the server's argv."""
    report = check("fail_procexp169_braced_args_one_word.service")
    # the parser's refusal of the one word (PA001, cases12's spaced_words.py) is folded under TP063
    assert shown(report) == [("error", "TP063", "static"), ("error", "PA001", "-")]
    assert [c["code"] for c in report["findings"][0]["consequences"]] == ["PA001"]
    tp063 = next(f for f in report["findings"] if f["code"] == "TP063")
    assert tp063["message"] == (
        "`${VLLM_ARGS}` reaches the server as ONE argument (4 words of VLLM_ARGS, blanks included): its "
        "argument parser does not read them as options"
    )
    assert words(report) == [
        [
            "/opt/vllm/bin/vllm",
            "serve",
            "Qwen/Qwen2.5-14B-Instruct",
            "--tensor-parallel-size 2 --max-model-len 8192",
        ]
    ]


def test_sky2955_tensor_parallel_over_nodes_without_ray() -> None:
    """Was refused ("YAML, but neither a docker compose file nor a Kubernetes manifest"); now TP042 against
    the accelerators of one node."""
    report = check("fail_sky2955_tp_over_nodes.sky.yaml")
    assert shown(report) == [("error", "TP042", "static")]
    tp042 = next(f for f in report["findings"] if f["code"] == "TP042")
    assert tp042["message"] == (
        "the server needs 2 GPU(s) (tensor_parallel_size 2 x pipeline_parallel_size 1 x data_parallel_size "
        "1) "
        "but resources.accelerators A10G:1 (per node) gives the container 1"
    )
    hop = report["transport"]["hops"][0]
    assert (hop["via"], hop["num_nodes"], hop["accelerators"], hop["gpus_per_node"]) == (
        "skypilot",
        2,
        "A10G:1",
        1,
    )


def test_sky6920_run_variable_read_in_setup() -> None:
    """Was refused as not a launch; now TP067, and the server's --tensor-parallel-size has no value."""
    report = check("fail_sky6920_gpus_per_node_in_setup.sky.yaml")
    assert shown(report) == [("error", "TP067", "static")]
    tp067 = report["findings"][0]
    assert tp067["at"] == "fail_sky6920_gpus_per_node_in_setup.sky.yaml:16"
    assert tp067["message"] == (
        "`setup:` reads SKYPILOT_NUM_GPUS_PER_NODE, which SkyPilot sets for `run:` only "
        "(sky/backends/task_codegen.py:654): it is empty here"
    )
    assert words(report) == [
        ["vllm", "serve", "NousResearch/Meta-Llama-3-8B-Instruct", "--port", "8081", "--dtype", "auto",
         "--tensor-parallel-size"]
    ]  # fmt: skip


# --- the four correct launches ---------------------------------------------------------------------------


def test_proxmoxved_unit_with_its_environment_file() -> None:
    """The env file beside the unit is read (assumed to be the node's /opt/vllm/vllm.env). It sets VLLM_PORT,
    which vLLM reads for its internal ports, to the API port: the server starts (they move up), so RS020 is
    information only, and the launch raises no error and no warning."""
    report = check("ok_proxmoxved_vllm_envfile.service")
    assert shown(report) == []
    (rs020,) = [f for f in report["findings"] if f["code"] == "RS020"]
    assert rs020["severity"] == "info"
    assert rs020["message"].startswith("VLLM_PORT=8000 equals the API port: ")
    assert words(report) == [
        ["/opt/vllm/bin/vllm", "serve", "Qwen/Qwen2.5-0.5B-Instruct", "--host", "0.0.0.0", "--port", "8000",
         "--dtype", "auto", "--gpu-memory-utilization", "0.90"]
    ]  # fmt: skip
    env_file = report["transport"]["hops"][0]["env_files"][0]
    assert env_file["read"] == "./vllm.env"
    assert env_file["assumed"] == (
        "/opt/vllm/vllm.env is not on this machine; read the copy beside the unit (./vllm.env)"
    )
    assert env_file["variables"] == [
        "VLLM_MODEL", "VLLM_HOST", "VLLM_PORT", "HF_HOME", "HF_TOKEN", "VLLM_API_KEY", "VLLM_SERVE_ARGS",
    ]  # fmt: skip


def test_qwen3vl_sglang_unit_is_clean() -> None:
    report = check("ok_qwen3vl_sglang_eagle3.service")
    assert shown(report) == []
    assert words(report)[0][:5] == [
        "/home/ubuntu/codes/qwen3vl-on-aws/.venv-sglang/bin/python",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "/opt/dlami/nvme/models/Qwen3-VL-8B-Instruct",
    ]


def test_skypilot_sglang_example_is_clean() -> None:
    report = check("ok_sky_sglang.sky.yaml")
    assert shown(report) == []
    assert words(report) == [
        ["python", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-2-7b-chat-hf", "--host",
         "0.0.0.0", "--port", "8000"]
    ]  # fmt: skip


def test_skypilot_multinode_vllm_over_a_ray_cluster_is_clean() -> None:
    """TP 8 x PP 2 = 16 GPUs: 8 per node on 2 nodes joined by `ray start` in run:."""
    report = check("ok_sky_vllm_multinode.sky.yaml")
    assert shown(report) == []
    assert words(report)[0][5:9] == ["--tensor-parallel-size", "8", "--pipeline-parallel-size", "2"]
