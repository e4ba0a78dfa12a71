"""The tenth memory batch (2026-12-02, memory10): 15 public reports of 2025-2026 where a vLLM or SGLang launch
ran out of GPU memory or was refused for memory, and 3 that started (files in tests/data/memory_10/, each
with its URL, release, GPU and what the report shows). Most name a model whose config.json is not shipped
(Qwen3.8, Qwen3-VL-235B, MiniMax-M2.7, DeepSeek V4, Nemotron 120B) or a GPU without a profile (RTX 4060,
H800, DGX Spark, modified 22/48 GB cards): the memory layer then makes no claim, which is what these tests
pin alongside the two mechanisms the batch fixed:

* ``argtrace mem`` without ``--gpu`` settles its findings on the assumed GPU as ``check`` does
  (``verdicts.settle``: basis ``assumed``, a note, the assumption named): vllm#40756's launch at
  utilization 0.45 started on the commenter's GPU; `mem` called it an error on the assumed H100;
* ``mem --from-log`` reads vLLM's "KV cache is needed" error line also as 2026 reports quote it, without
  the "(" before the GiB (club-3090#35, spark-vllm-docker#396).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.memory.fromlog import read_vllm_log
from tests.conftest import REPO, run_cli

DATA = REPO / "tests" / "data" / "memory_10"
MODELS = REPO / "tests" / "data" / "models"


def command(name: str) -> list[str]:
    """The launch a case file quotes (its ``$ `` line), split as the shell would (no quotes but the JSON)."""
    import shlex

    (line,) = [x[2:] for x in (DATA / name).read_text().splitlines() if x.startswith("$ ")]
    return shlex.split(line)


def mem(*args: str) -> tuple[int, dict[str, Any]]:
    result = run_cli(["mem", "--format", "json", *args])
    return result.status, json.loads(result.stdout)


def codes(report: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(f["code"], f["severity"], f.get("basis")) for f in report["findings"]]


MTP_40756 = [
    "vllm", "serve", "Qwen/Qwen3.6-27B-FP8", "--max-num-seqs", "32", "--max-model-len", "262144",
    "--enforce-eager", "--gpu-memory-utilization", "0.45",
    "--speculative-config", '{"method":"mtp","num_speculative_tokens":3}',
]  # fmt: skip


def test_40756_started_launch_is_not_an_error_on_the_assumed_gpu() -> None:
    """vllm#40756: the commenter's working launch (v0.20.0, GPU not shown). On the assumed H100 the KV cache
    of one 262,144-token request does not fit in 0.45 of the card; that rests on the assumed GPU."""
    assert command("ok_vllm40756_qwen36_27b_fp8_mtp.txt")[:3] == ["vllm", "serve", "Qwen/Qwen3.6-27B-FP8"]
    status, report = mem("--model-config", str(MODELS / "qwen3.6-27b-fp8"), "--framework-version", "0.20.0",
                         "--", *MTP_40756)  # fmt: skip
    assert status == 0
    assert codes(report) == [("MM004", "info", "assumed"), ("MM001", "info", "assumed")]
    (mm001,) = [f for f in report["findings"] if f["code"] == "MM001"]
    assert mm001["message"] == (
        "vLLM 0.20.0: out of memory at kv_cache on h100: To serve at least one request with the model's max "
        "seq len (262144), (17.79 GiB KV cache is needed, which is larger than the available KV cache memory "
        "(4.77 GiB). Based on the available memory, the estimated maximum model length is 61600. (short by "
        "13.02 GiB per GPU)"
    )
    assert mm001["assumed"] == [{"what": "gpu", "value": "h100", "option": "--gpu NAME[xCOUNT]"}]
    assert mm001["setting"] == "gpu_memory_utilization"
    assert report["memory"]["verdict"] == "oom"


def test_40756_named_gpus_keep_their_verdicts() -> None:
    """The same launch with the GPU named: an H100 is an error (the shortfall is larger than every estimate),
    an H200 fits with nothing to say."""
    status, report = mem("--model-config", str(MODELS / "qwen3.6-27b-fp8"), "--gpu", "h100",
                         "--framework-version", "0.20.0", "--", *MTP_40756)  # fmt: skip
    assert (status, codes(report)) == (1, [("MM001", "error", "static")])
    status, report = mem("--model-config", str(MODELS / "qwen3.6-27b-fp8"), "--gpu", "h200",
                         "--framework-version", "0.20.0", "--", *MTP_40756)  # fmt: skip
    assert (status, codes(report), report["memory"]["verdict"]) == (0, [], "fits")


def test_assumed_gpu_sglang_variant() -> None:
    """Not a report: SGLang's sizing too. Qwen3-Next-80B in bf16 on one GPU: no --gpu -> a note resting on
    the assumed H100; --gpu h100 -> the error it was."""
    argv = ["--", "python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-Next-80B-A3B-Instruct"]
    status, report = mem("--model-config", str(MODELS / "qwen3-next-80b-a3b"), *argv)
    assert status == 0
    assert codes(report) == [
        ("MM004", "info", "assumed"), ("MM001", "info", "assumed"), ("MM008", "info", "assumed"),
    ]  # fmt: skip
    (mm001,) = [f for f in report["findings"] if f["code"] == "MM001"]
    assert mm001["message"] == (
        "out of memory at weights on h100: the weights alone do not fit on one GPU "
        "(short by 69.63 GiB per GPU)"
    )
    status, report = mem("--model-config", str(MODELS / "qwen3-next-80b-a3b"), "--gpu", "h100", *argv)
    assert (status, codes(report)) == (1, [("MM001", "error", "static"), ("MM008", "info", "static")])


def test_35854_the_same_launch_fits_on_four_l20() -> None:
    """vllm#35854: Qwen3.5-35B-A3B TP4 at utilization 0.7 failed on four modified 22 GB RTX 2080 Ti (no
    profile: no verdict) and "All Passed for 4 * L20": on l20x4 argtrace says it fits, nothing to report.
    The command as posted has a stray `/` before --served-model-name; the log shows the server got past
    parsing, so it is dropped here."""
    argv = command("vllm35854_qwen35_35b_a3b_4x2080ti.txt")
    assert argv[4] == "/--served-model-name"
    argv[4] = "--served-model-name"
    status, report = mem("--model-config", str(MODELS / "qwen3.6-35b-a3b"), "--gpu", "l20x4",
                         "--framework-version", "0.16.1", "--", *argv)  # fmt: skip
    assert (status, codes(report), report["memory"]["verdict"]) == (0, [], "fits")
    assert report["memory"]["max_mamba_cache_size"] == 446


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        ("club3090_35_long_text_rtx3090.txt", (180000, 3.05, 2.17, 111456, None)),
        ("sparkdocker396_minimax_m27_awq_2xspark.txt", (196608, 23.25, 22.5, 190272, 22.5)),
        ("syvai39_qwen38_27b_rtx3090.txt", (65536, 4.76, 1.56, 15984, None)),
    ],
)
def test_from_log_reads_the_kv_needed_line_with_or_without_the_paren(
    name: str, fields: tuple[Any, ...]
) -> None:
    log = read_vllm_log(DATA / name)
    got = (log.error_max_len, log.error_needed_gib, log.error_available_gib, log.error_estimated_len,
           log.available_gib)  # fmt: skip
    assert got == fields


def test_from_log_still_reads_vllms_own_text(tmp_path: Path) -> None:
    line = (
        "ValueError: To serve at least one request with the model's max seq len (262144), (24.0 GiB KV cache "
        "is needed, which is larger than the available KV cache memory (3.18 GiB). Based on the available "
        "memory, the estimated maximum model length is 34736. Try increasing `gpu_memory_utilization`\n"
    )
    (tmp_path / "a.log").write_text(line)
    log = read_vllm_log(tmp_path / "a.log")
    assert (log.error_max_len, log.error_needed_gib, log.error_available_gib, log.error_estimated_len) == (
        262144, 24.0, 3.18, 34736,
    )  # fmt: skip


NO_CONFIG = [
    ("vllm41695_qwen3coder30b_fp8_rtx5090.txt", ("--gpu", "rtx-5090")),
    ("vllm18124_qwen25vl_3b_a100.txt", ("--gpu", "a100-80g")),
    ("recipes831_qwen38_27b_rtx_pro_6000.txt", ("--gpu", "rtx-pro-6000")),
    ("qwen3vl1684_235b_8xa100.txt", ("--gpu", "a100-80gx8", "--framework-version", "0.11.0")),
    ("qwen3vl1493_235b_8xh20.txt", ("--gpu", "h20x8")),
    ("sglang35777_qwen38_27b_nvfp4_rtx5090.txt", ("--gpu", "rtx-5090")),
]


@pytest.mark.parametrize(("name", "options"), NO_CONFIG)
def test_no_config_no_memory_claim(name: str, options: tuple[str, ...], tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """A new user's `check` on these launches (no HF cache, no resolver): the model's config.json is not on
    the machine, so the memory layer says nothing, right or wrong (these stay c: no verdict)."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "cache"))
    import shlex

    result = run_cli(["check", "--format", "json", *options, "-c", shlex.join(command(name))])
    report = json.loads(result.stdout)
    assert [f["code"] for f in report["findings"] if f["layer"] == "memory"] == []
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == []


def test_from_log_reads_vllms_memory_summary_line() -> None:
    """club-3090#1087 (started, 2x RTX 5090) quotes only gpu_worker.py's summary line: the profile run's
    measured parts and the KV memory it left are read from it."""
    from argtrace.layers.memory.fromlog import _profile_rows

    log = read_vllm_log(DATA / "ok_club3090_1087_qwen38_27b_fp8_2x5090.txt")
    assert (log.available_gib, log.consumed_gib, log.activation_gib, log.cudagraph_gib) == (
        12.26,
        15.03,
        1.59,
        0.09,
    )
    section = {"activation_bytes": 1 << 30, "cuda_graph_bytes": 1 << 29}
    assert _profile_rows(log, section) == [
        {
            "quantity": "peak activation GiB (vLLM's profile run)",
            "predicted": 1.0,
            "logged": 1.59,
            "exact": False,
            "ok": False,
            "line": 3,
        },
        {
            "quantity": "CUDA graph memory GiB (vLLM's profile run)",
            "predicted": 0.5,
            "logged": 0.09,
            "exact": False,
            "ok": True,
            "line": 3,
        },
    ]


def test_available_line_wins_over_the_summary(tmp_path: Path) -> None:
    (tmp_path / "b.log").write_text(
        "INFO [gpu_worker.py:789] Free memory on device (30.27/31.4 GiB) on startup. Current kv cache "
        "memory in use is 12.26 GiB.\nINFO [gpu_worker.py:460] Available KV cache memory: 10.55 GiB\n"
    )
    assert read_vllm_log(tmp_path / "b.log").available_gib == 10.55
    (tmp_path / "c.log").write_text(
        "INFO [gpu_worker.py:460] Available KV cache memory: 10.55 GiB\n"
        "INFO Current kv cache memory in use is 12.26 GiB.\n"
    )
    assert read_vllm_log(tmp_path / "c.log").available_gib == 10.55


def test_summary_line_of_the_2026_build() -> None:
    """vllm#48601's build (tests/data/logs/memory/real) splits weights and non-torch memory in that line."""
    from argtrace.layers.memory.fromlog import _VLLM_USAGE

    log = REPO / "tests" / "data" / "logs" / "memory" / "real" / "vllm-48601-qwen3.6-27b-fp8-tp4-h100.log"
    match = _VLLM_USAGE.search(log.read_text().splitlines()[1])
    assert match is not None
    assert match.groups() == ("7.39", "1.54", "2.04")
