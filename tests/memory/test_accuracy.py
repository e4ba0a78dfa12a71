"""Predictions against real startup logs (tests/data/logs/memory, each file's first line names its source).

Per-token KV bytes and per-slot Mamba state bytes must be exact: the sizes SGLang prints (two decimals of
GiB) must follow from them. Pool sizes must be within 5 % given the log's own ``avail mem``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

MODELS = REPO / "tests" / "data" / "models"
LOGS = REPO / "tests" / "data" / "logs" / "memory"


def mem(*argv: str) -> dict:
    result = run_cli(["mem", "--format", "json", *argv])
    assert result.status in (0, 1), result.stderr
    return result.json


def from_log(model: str, log: str, gpu: str, *flags: str) -> dict:
    return mem(
        "--model-config", str(MODELS / model), "--gpu", gpu, "--from-log", str(LOGS / log), "--", *flags
    )


def test_every_fixture_names_its_source() -> None:
    for path in LOGS.glob("*.log"):
        assert path.read_text().startswith("# source: "), path


def test_qwen35_9b_tp2_rtx4090() -> None:
    data = from_log(
        "qwen3.5-9b",
        "qwen3.5-9b-tp2-rtx4090.log",
        "rtx-4090x2",
        "--tp-size",
        "2",
        "--mem-fraction-static",
        "0.8",
        "--context-length",
        "262144",
    )
    m = data["memory"]
    # 8 full-attention layers x (4 KV heads / TP 2) x (256 + 256) x 2 bytes
    assert m["kv_bytes_per_token"] == 8 * 2 * 512 * 2 == 16384
    # 24 GDN layers: conv (32*128 + 2*16*128)/2 x 3 x bf16; SSM (32/2) x 128 x 128 x fp32
    assert m["mamba_conv_bytes_per_slot"] == 24 * 4096 * 3 * 2 == 589824
    assert m["mamba_ssm_bytes_per_slot"] == 24 * 16 * 128 * 128 * 4 == 25165824
    rows = {r["quantity"]: r for r in m["from_log"]["rows"]}
    for name in (
        "K size GB (#tokens from log)",
        "V size GB (#tokens from log)",
        "conv_state GB (max_mamba_cache_size from log)",
        "ssm_state GB (max_mamba_cache_size from log)",
    ):
        assert rows[name]["ok"], rows[name]
    assert abs(m["max_total_num_tokens"] - 327310) / 327310 < 0.05
    assert abs(m["max_mamba_cache_size"] - 186) / 186 < 0.05
    assert m["max_running_requests"] == 62
    assert all(r["ok"] for r in m["from_log"]["rows"]), m["from_log"]["rows"]
    assert "MM009" not in [f["code"] for f in data["findings"]]


def test_qwen36_27b_fp8_h100_sglang_0_5_18() -> None:
    data = from_log(
        "qwen3.6-27b-fp8",
        "qwen3.6-27b-fp8-h100.log",
        "h100",
        "--mem-fraction-static",
        "0.85",
        "--max-running-requests",
        "32",
    )
    m = data["memory"]
    assert m["kv_bytes_per_token"] == 16 * 4 * 512 * 2 == 65536
    assert m["mamba_conv_bytes_per_slot"] == 48 * 10240 * 3 * 2 == 2949120
    assert m["mamba_ssm_bytes_per_slot"] == 48 * 48 * 128 * 128 * 4 == 150994944
    rows = {r["quantity"]: r for r in m["from_log"]["rows"]}
    for name in (
        "K size GB (#tokens from log)",
        "conv_state GB (max_mamba_cache_size from log)",
        "ssm_state GB (max_mamba_cache_size from log)",
        "max_total_num_tokens",
        "max_mamba_cache_size",
        "weights GB (estimate vs Load weight end)",
    ):
        assert rows[name]["ok"], rows[name]
    assert abs(m["max_total_num_tokens"] - 330323) / 330323 < 0.05
    assert abs(m["max_mamba_cache_size"] - 124) / 124 < 0.05


def test_llama_8b_capped_by_max_total_tokens() -> None:
    data = from_log("llama-3.1-8b", "llama-3.1-8b-lora.log", "h100")
    m = data["memory"]
    assert m["kv_bytes_per_token"] == 32 * 8 * 256 * 2 == 131072
    assert m["max_total_num_tokens"] == 20480
    assert all(
        r["ok"] for r in m["from_log"]["rows"] if "GB" in r["quantity"] and "weights" not in r["quantity"]
    )


def test_deepseek_v3_mla_fp8_kv() -> None:
    data = from_log(
        "deepseek-v3", "deepseek-v3-fp8kv.log", "b200x8", "--kv-cache-dtype", "fp8_e4m3", "--tp-size", "8"
    )
    m = data["memory"]
    # MLA: (kv_lora_rank + qk_rope_head_dim) x 61 layers x 1 byte, not split by TP
    assert m["kv_bytes_per_token"] == (512 + 64) * 61 == 35136
    rows = {r["quantity"]: r for r in m["from_log"]["rows"]}
    assert rows["KV size GB (#tokens from log)"]["ok"], rows


@pytest.mark.parametrize(
    ("model", "tp", "expected_gib", "tolerance"),
    [
        # Load weight end "mem usage" of the fixtures above (bf16 checkpoints)
        ("qwen3.5-9b", 2, 8.85, 0.05),
    ],
)
def test_weights_from_config(model: str, tp: int, expected_gib: float, tolerance: float) -> None:
    from argtrace.layers.memory.config import load_config, read_model_spec
    from argtrace.layers.memory.weights import estimate_weights

    spec = read_model_spec(load_config(MODELS / model))
    got = estimate_weights(spec, tp, None).bytes_per_rank / (1 << 30)
    assert abs(got - expected_gib) / expected_gib < tolerance, got


def test_fp8_27b_weights_match_the_h100_log() -> None:
    """28.47 GB (Load weight end) for the FP8 27B: linear layers at 1 byte + 128x128 block scales."""
    import json

    from argtrace.layers.memory.config import read_model_spec
    from argtrace.layers.memory.weights import estimate_weights

    raw = json.loads((MODELS / "qwen3.6-27b" / "config.json").read_text())
    raw["quantization_config"] = {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}
    got = estimate_weights(read_model_spec(raw), 1, None).bytes_per_rank / (1 << 30)
    assert abs(got - 28.47) / 28.47 < 0.05, got


def test_published_parameter_counts() -> None:
    from argtrace.layers.memory.config import load_config, read_model_spec
    from argtrace.layers.memory.weights import count_params

    expected = {
        "llama-3.1-8b": 8.03e9,
        "qwen3-next-80b-a3b": 80e9,
        "deepseek-v3": 671e9,
        "nemotron-h-8b": 8.1e9,
    }
    for model, params in expected.items():
        target, _ = count_params(read_model_spec(load_config(MODELS / model)))
        assert abs(target.total - params) / params < 0.03, (model, target.total)


def test_path_tolerates_a_directory_or_the_file(tmp_path: Path) -> None:
    a = mem("--model-config", str(MODELS / "llama-3.1-8b"), "--gpu", "h100")["memory"]
    b = mem("--model-config", str(MODELS / "llama-3.1-8b" / "config.json"), "--gpu", "h100")["memory"]
    assert a["max_total_num_tokens"] == b["max_total_num_tokens"]


def test_qwen3_235b_fp8_tp4_vllm_and_sglang() -> None:
    """vLLM issue #21348: the same model on both frameworks, 4x H100."""
    log = "qwen3-235b-a22b-fp8-tp4-h100.log"
    m = from_log("qwen3-235b-a22b-fp8", log, "h100x4", "--tp", "4", "--mem-fraction-static", "0.93")["memory"]
    # 94 layers x (4 KV heads / TP 4) x (128 + 128) x 2 bytes
    assert m["kv_bytes_per_token"] == 94 * 1 * 256 * 2 == 48128
    rows = {r["quantity"]: r for r in m["from_log"]["rows"]}
    assert rows["K size GB (#tokens from log)"]["ok"] and rows["V size GB (#tokens from log)"]["ok"]
    v = mem(
        "--model-config",
        str(MODELS / "qwen3-235b-a22b-fp8"),
        "--gpu",
        "h100x4",
        "--framework",
        "vllm",
        "--from-log",
        str(LOGS / log),
        "--",
        "--tensor-parallel-size",
        "4",
    )["memory"]
    assert v["kv_bytes_per_token"] == 48128
    rows = {r["quantity"]: r for r in v["from_log"]["rows"]}
    row = rows["GPU KV cache size (tokens, from the log's available memory)"]
    assert row["ok"] and abs(row["predicted"] - 178880) / 178880 < 0.05
