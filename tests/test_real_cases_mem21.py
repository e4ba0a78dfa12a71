"""Memory at start-up, 3rd batch (mem21; docs/real_cases.md): 15 public reports of 2025-2026 where a vLLM or
SGLang launch ran out of GPU memory or was refused for it, and 5 correct launches of the same models
(tests/data/real_cases_mem21/, each file's header names its URL; the models' config.json under models/, their
sources in the directory's README), run as a new user: ``check`` with the GPU and release the report names
and the model's config.json, ``why`` on a quoted error.

Mechanisms fixed here (measured first):

* several vLLM servers of one launch on one GPU (MM013, layers/memory/shared_gpu.py): their fractions of the
  device against the release's rule (0.9.1+ refuse a start below the request; 0.8.0-0.9.0's V1 worker takes
  the other servers' memory from its budget);
* Llama 4 is a known architecture (a shared expert in every MoE layer, interleaved dense layers of
  intermediate_size_mlp: vLLM 0.33.0 llama4.py), and the Qwen2.5-VL / Qwen3-VL / Qwen3-VL-MoE checkpoints are
  sized as their language models;
* an out-of-memory at the weights whose one-GPU shard exceeds the whole card holds on every release (error);
* ``--quantization fp8`` on a checkpoint without quantization_config counts fp8 weights (online quantization);
* ``docker run --gpus 0`` reads no GPU count (moby's releases differ on a count of 0);
* RS021 (the KV pool below the context length) on an assumed GPU is a note like the pool it compares;
* RS047 read from the release before a named one that lies between two registries that disagree is a note.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.transport.images import docker_gpus
from tests.batches import check_case, finding, shown_codes, table_counts, unsourced
from tests.conftest import REPO, alarms, run_cli

CASES = REPO / "tests" / "data" / "real_cases_mem21"
M = "models/"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# the class of each failure report before this batch's fixes and after them (docs/real_cases.md)
CLASSES = {
    "vllm#19125": ("c", "b"),
    "vllm#14376": ("d", "b"),
    "vllm#16712": ("a", "a"),
    "sglang#6817": ("c", "c"),
    "sglang#5755": ("c", "c"),
    "Qwen3-VL#1746": ("b", "b"),
    "sglang#7006": ("c", "c"),
    "sglang#8362": ("c", "c"),
    "vllm#15676": ("d", "c"),
    "Qwen3-VL#1224": ("c", "c"),
    "Qwen3-VL#923": ("c", "c"),
    "InferenceX#1587": ("c", "c"),
    "vllm#22173": ("b", "b"),
    "Qwen3-VL#1684": ("c", "c"),
    "Qwen3-VL#1493": ("d", "c"),  # c since 2026-12-04: the text's vLLM format keeps SGLang's sites out
}

# case -> (file, options a new user passes: the model's config, the GPU and release the report names)
LAUNCHES = {
    "vllm#19125": ("vllm19125_two_qwen05b_4060ti.cmd", ("--model-config", M + "qwen2.5-0.5b-instruct")),
    "vllm#14376": (
        "vllm14376_two_tinyllama_l40s.cmd",
        ("--model-config", M + "tinyllama-1.1b-chat", "--gpu", "l40s"),
    ),
    "vllm#16712": (
        "vllm16712_llama4_scout_2xh100nvl.cmd",
        ("--model-config", M + "llama-4-scout-17b-16e", "--gpu", "h100-nvlx2"),
    ),
    "Qwen3-VL#1746": ("qwen3vl1746_sglang_router_dp8.cmd", ("--model-config", M + "qwen3-vl-235b-a22b")),
    "vllm#15676": (
        "vllm15676_gemma3_27b_tp2_compose.cmd",
        ("--model-config", M + "gemma-3-27b-it", "--framework-version", "0.8.2"),
    ),
    "ok:sglang#23483": (
        "ok_sglang23483_dsv3_lora_tp8_h200.cmd",
        ("--model-config", M + "deepseek-v3", "--gpu", "h200x8"),
    ),
    "ok:Qwen3-VL#1489": (
        "ok_qwen3vl1489_qwen3vl235b_fp8_tp8_ep.cmd",
        ("--model-config", M + "qwen3-vl-235b-a22b", "--gpu", "h100x8"),
    ),
    "ok:vllm#16330": (
        "ok_vllm16330_llama4_scout_4xh100.cmd",
        ("--model-config", M + "llama-4-scout-17b-16e", "--gpu", "h100x4"),
    ),
    "ok:sglang#5858": ("ok_sglang5858_qwen3_235b_fp8_tp4.cmd", ("--model-config", M + "qwen3-235b-a22b-fp8")),
    "ok:Qwen3-VL#1746": (
        "ok_qwen3vl1746_sglang_tp8_readme.cmd",
        ("--model-config", M + "qwen3-vl-235b-a22b"),
    ),
}


@functools.cache
def _checked(name: str) -> str:
    file, options = LAUNCHES[name]
    return json.dumps(check_case(CASES, file, options))


def checked(name: str) -> dict[str, Any]:
    """``check --format json`` on one recorded launch, run once per worker (the inputs are read-only)."""
    report: dict[str, Any] = json.loads(_checked(name))
    return report


def test_batch_counts_and_sources() -> None:
    assert table_counts(CLASSES) == ([1, 2, 9, 3], [1, 4, 10, 0])
    assert [m for m in unsourced(CASES, prefix="# source: ") if m != "README.md"] == []
    # every model config the launches name is shipped and documented in the directory's README
    readme = (CASES / "README.md").read_text()
    for _, options in LAUNCHES.values():
        config = options[options.index("--model-config") + 1]
        assert (CASES / config / "config.json").is_file(), config
        assert f"`{config.removeprefix(M)}/`" in readme, config


@pytest.mark.parametrize("name", [n for n in LAUNCHES if n.startswith("ok:")])
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(checked(name)) == []


def test_two_servers_on_one_gpu_are_read_against_the_releases_rules() -> None:
    # vllm#19125: 0.4 twice on one 8 GB card, release not named: a note naming 0.8.0-0.9.0's rule
    report = checked("vllm#19125")
    assert shown_codes(report) == []
    mm013 = finding(report, "MM013")
    assert mm013["severity"] == "info"
    assert mm013["message"] == (
        "server 2 starts while server 1 (0.4) already holds the same GPU; on vLLM 0.8.0-0.9.0 (V1) it finds "
        "no memory for its KV cache: those releases take what the other servers hold (0.4 of the device) "
        "from its 0.4. Which applies depends on the release, which nothing names"
    )
    assert mm013["fix"].startswith("Give the servers fractions that add up to at most 1")
    # vllm#14376: the same rule for two containers. `--gpus 0` is a count of zero, whose effect depends on
    # the Docker Engine (TP042 warning, vLLM 21st batch); what rests on the `latest` tag's entrypoint is a
    # note (PA023), the analysed release's images running another one
    report = checked("vllm#14376")
    assert finding(report, "MM013")["severity"] == "info"
    assert shown_codes(report) == [("TP042", "warning")]


@pytest.mark.parametrize(
    ("first", "second", "release", "expected"),
    [
        ("0.6", "0.6", "0.9.2", ("MM013", "error")),  # 1.2 of the device: request_memory refuses
        ("0.45", "0.5", "0.9.2", None),  # 0.95: every release read starts it
    ],
)
def test_shared_gpu_variants(tmp_path: Path, first: str, second: str, release: str, expected: Any) -> None:
    script = tmp_path / "launch.sh"
    script.write_text(
        "#!/bin/bash\n"
        f"vllm serve Qwen/Qwen2.5-0.5B-Instruct --port 8000 --gpu-memory-utilization {first} &\n"
        f"vllm serve Qwen/Qwen2.5-0.5B-Instruct --port 8001 --gpu-memory-utilization {second}\n"
    )
    result = run_cli(["check", "--format", "json", "--framework-version", release, str(script)])
    found = [(f["code"], f["severity"]) for f in result.json["findings"] if f["code"] == "MM013"]
    assert found == ([expected] if expected else [])
    if expected:
        message = next(f["message"] for f in result.json["findings"] if f["code"] == "MM013")
        assert "add up to 1.2; vLLM 0.9.2 refuses a start with less free memory than its request" in message


def test_docker_gpus_count_zero_is_a_count_of_zero() -> None:
    # what the daemon makes of it is TP042's (layers/container_gpus.py): none from Docker 27.3.0, the
    # image's own NVIDIA_VISIBLE_DEVICES before
    assert docker_gpus("0", {}) == (0, "docker run --gpus 0")
    assert docker_gpus("count=0", {}) == (0, "docker run --gpus count=0")
    assert docker_gpus("2", {}) == (2, "docker run --gpus 2")


def test_llama4_scout_weights_do_not_fit_two_h100_nvl() -> None:
    report = checked("vllm#16712")
    assert shown_codes(report) == [("MM001", "error")]
    mm001 = finding(report, "MM001")
    assert "the weights alone do not fit on one GPU" in mm001["message"]
    assert "(short by 8.68 GiB per GPU)" in mm001["message"]
    assert "MM003" not in [f["code"] for f in report["findings"]]
    # 109B parameters in bf16 over 2 ranks
    assert report["memory"]["weights_bytes"] == 108641737216
    assert report["memory"]["total_params"] > 108_000_000_000


def test_online_fp8_is_counted_at_one_byte() -> None:
    memory = checked("ok:Qwen3-VL#1489")["memory"]
    assert memory["verdict"] == "fits"
    assert any(
        n.startswith("--quantization fp8 on a checkpoint without quantization_config")
        for n in memory["notes"]
    )
    assert memory["weights_bytes"] < 32 * (1 << 30)


def test_sglang_dp_router_names_the_replicated_weights_on_the_assumed_gpu() -> None:
    report = checked("Qwen3-VL#1746")
    assert shown_codes(report) == []  # H800 has no profile: the verdict rests on the assumed H100
    mm001 = finding(report, "MM001")
    assert mm001["severity"] == "info"
    assert "the weights alone do not fit on one GPU" in mm001["message"]


def test_rs021_on_an_assumed_gpu_is_a_note() -> None:
    report = checked("ok:Qwen3-VL#1746")
    assert finding(report, "RS021")["severity"] == "info"


def test_gemma3_on_a_release_between_registries_is_a_note() -> None:
    report = checked("vllm#15676")
    assert alarms(report) == []
    rs047 = finding(report, "RS047")
    assert rs047["severity"] == "info"
    assert "vllm 0.8.2 lies between 0.7.3 and 0.8.5.post1, which registers it" in rs047["message"]


def test_vllm_worker_lines_are_not_answered_with_sglang_sites() -> None:
    # Qwen3-VL#1493: vLLM worker lines ending in transformers' "`torch_dtype` is deprecated!" were answered
    # first with SGLang's deprecated-argument warning (a 22-character partial match, "strong"): class d
    text = (CASES / "qwen3vl1493_qwen3vl235b_8xh20_transformers.txt").read_text().split("\n", 3)[3]
    why = run_cli(["why", "--format", "json", text]).json["why"]
    assert why["matches"] == []
    assert why["confidence"] == "none"
