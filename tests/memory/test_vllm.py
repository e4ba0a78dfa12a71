"""vLLM 0.33.0 memory sizing: real start-up logs (tests/data/logs/memory, each names its source) through the
CLI, vLLM's defaults, the start-up check, suggestions, and vLLM's own planner in the resolver environment.

Per-token KV bytes are exact; pool sizes (GPU KV cache tokens, concurrency, the estimated maximum model
length) must fall in the range the log's two-decimal ``Available KV cache memory`` allows.
"""

from __future__ import annotations

import pytest

from argtrace.gpus import GPUS
from argtrace.layers.memory import vllm
from tests.conftest import run_cli
from tests.memory.test_accuracy import LOGS, MODELS, mem


def vllm_mem(model: str, *flags: str, gpu: str = "h100", log: str | None = None) -> dict:
    argv = ["--model-config", str(MODELS / model), "--gpu", gpu, "--framework", "vllm"]
    if log:
        argv += ["--from-log", str(LOGS / log)]
    return mem(*argv, "--", *flags)


def rows_of(data: dict) -> dict[str, dict]:
    return {r["quantity"]: r for r in data["memory"]["from_log"]["rows"]}


@pytest.mark.parametrize(
    ("log", "tokens", "concurrency"),
    [
        ("qwen3.6-35b-a3b-nvfp4-rtx5090-vllm.log", 567978, 4.33),
        ("qwen3.6-35b-a3b-nvfp4-rtx5090-vllm-b.log", 569878, 4.35),
    ],
)
def test_hybrid_qwen36_35b_pages_groups_and_capacity(log: str, tokens: int, concurrency: float) -> None:
    data = vllm_mem(
        "qwen3.6-35b-a3b",
        "--max-model-len",
        "131072",
        "--kv-cache-dtype",
        "fp8",
        "--max-num-seqs",
        "1",
        log=log,
    )
    m = data["memory"]
    # 10 full-attention layers x 2 KV heads x (256 + 256) x 1 byte (fp8)
    assert m["kv_bytes_per_token"] == 10 * 2 * 512 == 10240
    # 30 GDN layers: conv (2*16*128 + 32*128) x 3 x bf16, SSM 32 x 128 x 128 x fp32 (config mamba_ssm_dtype)
    assert m["mamba_conv_bytes_per_slot"] == 30 * 8192 * 3 * 2
    assert m["mamba_ssm_bytes_per_slot"] == 30 * 32 * 128 * 128 * 4
    v = m["vllm"]
    # _align_hybrid_block_size: 16 x cdiv(2146304, 16 x 1024) = 2096 tokens, page 2096 x 1024 = one state
    assert (v["block_size"], v["attn_page_bytes"], v["mamba_state_bytes_per_layer"]) == (
        2096,
        2146304,
        2146304,
    )
    assert (v["group_size"], v["attn_groups"], v["mamba_groups"]) == (10, 1, 3)
    assert v["mamba_cache_mode"] == "align"
    # one 131072-token request: 63 attention blocks + 3 Mamba groups x 2 (align) blocks
    assert v["blocks_per_request"] == 63 + 6
    rows = rows_of(data)
    row = rows["GPU KV cache size (tokens, from the log's available memory)"]
    assert row["predicted"] == tokens and row["logged"] == tokens and row["exact"]
    row = rows["Maximum concurrency for 131,072 tokens per request"]
    assert row["predicted"] == concurrency and row["exact"]
    assert "MM009" not in [f["code"] for f in data["findings"]]


@pytest.mark.parametrize(
    ("log", "estimated", "available"),
    [
        ("qwen3-coder-480b-fp8-dp8-vllm-not-enough.log", 205728, 48.66),
        ("qwen3-coder-480b-fp8-dp8-vllm-not-enough-095.log", 235296, 55.65),
    ],
)
def test_not_enough_kv_cache_error_numbers(log: str, estimated: int, available: float) -> None:
    rows = rows_of(vllm_mem("qwen3-coder-480b-a35b-fp8", log=log))
    # 62 layers x 8 KV heads x (128 + 128) x 2 bytes = 253952 B/token; 262144 tokens = 62.0 GiB
    row = rows["KV cache GiB needed for one 262144-token request"]
    assert (row["predicted"], row["logged"], row["ok"]) == (62.0, 62.0, True)
    row = rows["estimated maximum model length (from the log's available memory)"]
    assert row["logged"] == estimated and row["exact"], row
    lo, hi = row["range"]
    assert lo <= estimated <= hi and hi - lo <= 64


def test_qwen3_235b_blocks_from_available() -> None:
    """Issue #21348's vLLM lines: 8.11 GiB -> 11308 blocks of 16 tokens on this rank; the log's 178,880 is
    another rank's smaller pool (vLLM takes the minimum over ranks), within 1.2 %."""
    data = vllm_mem(
        "qwen3-235b-a22b-fp8",
        "--tensor-parallel-size",
        "4",
        "--max-model-len",
        "40960",
        gpu="h100x4",
        log="qwen3-235b-a22b-fp8-tp4-h100.log",
    )
    assert data["memory"]["kv_bytes_per_token"] == 48128
    row = rows_of(data)["GPU KV cache size (tokens, from the log's available memory)"]
    assert row["predicted"] == 11308 * 16 == 180928
    assert row["ok"] and not row["exact"]


def test_defaults_by_gpu_openai_server() -> None:
    assert vllm.batch_defaults(GPUS["h100"]) == (8192, 1024)
    assert vllm.batch_defaults(GPUS["b200"]) == (16384, 1024)
    assert vllm.batch_defaults(GPUS["a100-80g"]) == (2048, 256)  # A100 excluded by name (PR #17885)
    assert vllm.batch_defaults(GPUS["rtx-4090"]) == (2048, 256)
    assert vllm.batch_defaults(GPUS["l40s"]) == (2048, 256)


def test_max_seq_len_error_and_suggestions() -> None:
    data = vllm_mem("llama-3.1-8b", "--max-model-len", "131072", gpu="rtx-4090")
    m = data["memory"]
    assert (m["verdict"], m["oom_stage"]) == ("oom", "kv_cache")
    v = m["vllm"]
    assert v["needed_bytes_one_request"] == 131072 * 131072 == 16 * (1 << 30)
    assert v["error"].startswith(
        "To serve at least one request with the model's max seq len (131072), (16.0 GiB KV cache is needed, "
        "which is larger than the available KV cache memory ("
    )
    assert f"the estimated maximum model length is {v['estimated_max_model_len']}." in v["error"]
    # check memory = available minus the null block; the estimate is whole 16-token blocks of it
    check = m["available_kv_cache_bytes"] - v["bytes_per_block"]
    assert v["estimated_max_model_len"] == check // v["bytes_per_block"] * 16
    suggested = m["suggested"]
    assert suggested and all(s["settings"]["max_model_len"] < 131072 for s in suggested)
    assert all(s["max_concurrency"] >= 1 for s in suggested)
    mm001 = next(f for f in data["findings"] if f["code"] == "MM001")
    assert mm001["fix"] == f"use {' '.join(suggested[0]['flags'])} ({suggested[0]['cost']})"
    # the suggestion, run back through argtrace, fits
    again = vllm_mem("llama-3.1-8b", *suggested[0]["flags"], gpu="rtx-4090")["memory"]
    assert again["verdict"] == "fits"
    assert again["max_total_num_tokens"] == suggested[0]["max_total_num_tokens"]


def test_weights_do_not_fit_suggests_tensor_parallel() -> None:
    data = vllm_mem("qwen3.6-35b-a3b", "--max-model-len", "32768", gpu="rtx-4090x4")
    m = data["memory"]
    assert m["oom_stage"] == "weights"
    tps = [s["settings"]["tensor_parallel_size"] for s in m["suggested"]]
    assert tps and tps[0] == min(tps) and all(tp > 1 for tp in tps)


def test_mtp_speculative_draft_weights_and_state_blocks() -> None:
    base = vllm_mem("qwen3.6-27b", "--max-model-len", "65536")["memory"]
    spec = vllm_mem(
        "qwen3.6-27b",
        "--max-model-len",
        "65536",
        "--speculative-config",
        '{"method": "mtp", "num_speculative_tokens": 3}',
    )["memory"]
    assert base["draft_bytes"] == 0 and spec["draft_bytes"] > 0
    assert spec["speculative"] == {
        "method": "mtp",
        "num_speculative_tokens": 3,
        "draft_attention_layers": 1,
        "mamba_blocks_per_request": 5,
    }
    # the MTP layer joins the attention group: 16 + 1 layers per group
    assert (base["vllm"]["group_size"], spec["vllm"]["group_size"]) == (16, 17)
    assert spec["available_kv_cache_bytes"] == base["available_kv_cache_bytes"] - spec["draft_bytes"]


def test_bad_input_never_a_traceback() -> None:
    for flags in (
        ["--speculative-config", "{not json"],
        ["--speculative-config", '{"method": "mtp", "num_speculative_tokens": "x"}'],
        ["--tensor-parallel-size", "3"],
        ["--gpu-memory-utilization", "0.05"],
    ):
        result = run_cli(
            [
                "mem",
                "--format",
                "json",
                "--model-config",
                str(MODELS / "qwen3.6-27b"),
                "--framework",
                "vllm",
                "--",
                *flags,
            ]
        )
        assert result.status in (0, 1), (flags, result.stderr)
        assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_no_prefix_caching_keeps_one_state_block() -> None:
    """MambaModelConfig: without prefix caching the Mamba cache mode stays none (1 block per request per
    Mamba group instead of align's 2), so the same pool holds more requests."""
    on = vllm_mem("qwen3-next-80b-a3b", "--tensor-parallel-size", "4", gpu="h100x4")["memory"]["vllm"]
    off = vllm_mem(
        "qwen3-next-80b-a3b", "--tensor-parallel-size", "4", "--no-enable-prefix-caching", gpu="h100x4"
    )["memory"]["vllm"]
    assert (on["mamba_cache_mode"], on["mamba_blocks_per_request"]) == ("align", 2)
    assert (off["mamba_cache_mode"], off["mamba_blocks_per_request"]) == ("none", 1)
    assert off["blocks_per_request"] == on["blocks_per_request"] - on["mamba_groups"]


PLANNER_CASES = [
    ("qwen3.6-35b-a3b", "h100", ["--max-model-len", "131072", "--kv-cache-dtype", "fp8"]),
    (
        "qwen3.6-27b",
        "h100",
        ["--max-model-len", "262144", "--speculative-config", '{"method":"mtp","num_speculative_tokens":3}'],
    ),
    ("llama-3.1-8b", "h100", ["--max-model-len", "131072"]),
    ("nemotron-h-8b", "h100x2", ["--max-model-len", "8192", "--tensor-parallel-size", "2"]),
    (
        "qwen3-next-80b-a3b",
        "h100x4",
        [
            "--tensor-parallel-size",
            "4",
            "--no-enable-prefix-caching",
            "--speculative-config",
            '{"method":"qwen3_next_mtp","num_speculative_tokens":2}',
        ],
    ),
    ("deepseek-v3", "b200x8", ["--tensor-parallel-size", "8", "--max-model-len", "163840"]),
    # sliding-window layers in their own KV cache groups (SlidingWindowSpec), 18 + 18 and 12 + 12
    ("gpt-oss-120b", "h100", []),
    ("gpt-oss-20b", "a100-80g", ["--max-model-len", "131072", "--max-num-batched-tokens", "1024"]),
]


@pytest.mark.frameworks
@pytest.mark.slow
@pytest.mark.parametrize(("model", "gpu", "flags"), PLANNER_CASES)
def test_vllm_own_planner_agrees(model: str, gpu: str, flags: list[str]) -> None:
    """With ``--resolver``, vLLM 0.33.0's own kv_cache_planning functions (resolver environment) give the same
    blocks, tokens and error text as the static re-derivation."""
    from argtrace.resolver.environments import find_environment

    if find_environment("vllm", "0.33.0") is None:
        pytest.skip("no vLLM 0.33.0 resolver environment")
    m = mem(
        "--resolver", "--model-config", str(MODELS / model), "--gpu", gpu, "--framework", "vllm", "--", *flags
    )["memory"]
    got = m["framework_kv"]
    assert got["matches"], got
    assert m["source"].startswith("vllm 0.33.0 planner")
    if m["vllm"]["mamba_groups"]:
        # vLLM's MambaStateShapeCalculator / MambaStateDtypeCalculator give the same state per layer
        assert got["mamba_state_bytes"] == m["vllm"]["mamba_state_bytes_per_layer"]
    if m["verdict"] == "fits":
        assert (got["num_blocks"], got["kv_tokens"]) == (m["vllm"]["num_blocks"], m["max_total_num_tokens"])
    else:
        assert got["error"] == m["vllm"]["error"]
