"""The seed's situation: Qwen3.6-27B, MTP (EAGLE) with extra_buffer on an RTX PRO 6000 (96 GB).

The engineer went through several ten-minute OOM launches adjusting mem_fraction_static,
max_mamba_cache_size and mamba_full_memory_ratio; argtrace must name the stage and give settings that fit.
"""

from __future__ import annotations

from pathlib import Path

from argtrace.gpus import GIB, parse_gpu_spec
from argtrace.layers.memory import sglang as sg
from argtrace.layers.memory.analyze import analyze_memory
from argtrace.layers.memory.config import load_config, read_model_spec
from argtrace.layers.memory.weights import estimate_weights
from tests.conftest import REPO, run_cli

MODEL = REPO / "tests" / "data" / "models" / "qwen3.6-27b"
SEED_FLAGS = {"speculative_algorithm": "EAGLE", "mamba_scheduler_strategy": "extra_buffer"}


def test_seed_launch_is_oom_at_the_mamba_cache_and_suggestions_fit() -> None:
    result = analyze_memory(MODEL, "rtx-pro-6000x4", SEED_FLAGS, "sglang", None)
    memory = result.sections["memory"]
    assert memory["verdict"] == "oom" and memory["oom_stage"] == "mamba_cache"
    # 48 running requests x 4 draft tokens x 147 MB of intermediate state are reserved first
    assert memory["speculative"]["reserve_bytes"] == 48 * 4 * 153944064
    assert memory["suggested"], memory
    spec = read_model_spec(load_config(MODEL))
    gpu = parse_gpu_spec("rtx-pro-6000").profile
    for suggestion in memory["suggested"]:
        settings = {**SEED_FLAGS, **{k: v for k, v in suggestion["settings"].items() if v is not None}}
        r = sg.resolve_args(spec, gpu, settings, {})
        plan = sg.plan(spec, r, estimate_weights(spec, 1, None), gpu.total_bytes)
        assert plan.verdict == "fits", (suggestion, plan.oom_stage)
        assert plan.max_total_num_tokens == suggestion["max_total_num_tokens"]
    codes = [f.code for f in result.findings]
    assert "MM001" in codes and "MM008" in codes
    # Short by the reserve's overdraft plus one Mamba slot (a negative slot count hands nothing back), and
    # the bar shows what the caches needed instead of a half-empty GPU.
    overdraft = memory["rest_bytes"] - memory["speculative"]["reserve_bytes"]
    assert abs(memory["margin_bytes"] - (overdraft - 153944064)) <= 2
    needed = [row for row in memory["breakdown"] if row["name"] == "caches needed (not allocated)"]
    assert needed == [
        {"name": "caches needed (not allocated)", "bytes": memory["rest_bytes"] - memory["margin_bytes"]}
    ]
    assert [row["name"] for row in memory["breakdown"]][:3] == [
        "context + other processes",
        "weights",
        "caches needed (not allocated)",
    ]


def test_extra_buffer_slot_ratio_follows_the_overlap_schedule() -> None:
    spec = read_model_spec(load_config(MODEL))
    gpu = parse_gpu_spec("rtx-pro-6000").profile
    no_v2 = sg.resolve_args(spec, gpu, SEED_FLAGS, {})
    v2 = sg.resolve_args(spec, gpu, SEED_FLAGS, {"SGLANG_ENABLE_SPEC_V2": "1"})
    plain = sg.resolve_args(spec, gpu, {}, {})
    assert (sg.mamba_ratio(plain), sg.mamba_ratio(no_v2), sg.mamba_ratio(v2)) == (3, 4, 5)
    memory = analyze_memory(
        MODEL, "rtx-pro-6000", SEED_FLAGS, "sglang", None, env={"SGLANG_ENABLE_SPEC_V2": "1"}
    ).sections["memory"]
    assert memory["mamba_extra_bytes_per_slot"] == 2 * 153944064


def test_default_mem_fraction_static_follows_server_args() -> None:
    """_handle_gpu_memory_settings on a 97887 MiB GPU: chunked 8192, graph bs 256, +4096 MB for EAGLE,
    then x0.95 x ViT factor for the multimodal checkpoint."""
    spec = read_model_spec(load_config(MODEL))
    gpu = parse_gpu_spec("rtx-pro-6000").profile
    r = sg.resolve_args(spec, gpu, SEED_FLAGS, {})
    reserved = 512 + 8192 * 1.5 + 256 * 2 + 1 / 8 * 1024 + 4096
    assert r.reserved_mem_mb == reserved
    base = round((97887 - reserved) / 97887, 3)
    # SGLang reads the ViT's ``num_hidden_layers`` (default 24); Qwen3.6's vision config says ``depth``: 27
    # is not read (0.5.10.post1's own code agrees: tests/memory/test_framework_sizing.py).
    ratio = 24 * 1152**2 / (24 * 1024**2)
    assert abs(r.mem_fraction_static - base * 0.95 * (1 - 0.1 * (ratio - 1))) < 1e-9
    assert r.max_running_requests == 48 and r.speculative_num_draft_tokens == 4


def test_spec_buffers_are_allocated_for_running_requests_plus_one() -> None:
    spec = read_model_spec(load_config(MODEL))
    gpu = parse_gpu_spec("rtx-pro-6000").profile
    settings = {
        **SEED_FLAGS,
        "mem_fraction_static": 0.95,
        "max_running_requests": 8,
        "max_mamba_cache_size": 40,
    }
    r = sg.resolve_args(spec, gpu, settings, {})
    plan = sg.plan(spec, r, estimate_weights(spec, 1, None), gpu.total_bytes)
    assert plan.max_mamba_cache_size == 40
    assert plan.mamba_bytes == 41 * 153944064
    assert plan.mamba_spec_bytes == (plan.max_running_requests + 1) * 4 * 153944064
    assert plan.draft_kv_bytes == (plan.max_total_num_tokens + 1) * 4 * 512 * 2  # one layer of KV


def test_cli_json_contract(tmp_path: Path) -> None:
    result = run_cli(
        [
            "mem",
            "--format",
            "json",
            "--model-config",
            str(MODEL),
            "--gpu",
            "rtx-pro-6000",
            "--plot",
            str(tmp_path / "budget.svg"),
            "--",
            "--speculative-algorithm",
            "NEXTN",
            "--mamba-scheduler-strategy",
            "extra_buffer",
        ]
    )
    assert result.status == 1
    memory = result.json["memory"]
    for key in (
        "weights_bytes",
        "kv_bytes_per_token",
        "mamba_conv_bytes_per_slot",
        "mamba_ssm_bytes_per_slot",
        "mamba_extra_bytes_per_slot",
        "draft_bytes",
        "reserved_bytes",
        "max_total_num_tokens",
        "max_mamba_cache_size",
        "max_running_requests",
        "mem_fraction_static",
        "verdict",
        "oom_stage",
        "suggested",
    ):
        assert key in memory, key
    assert (tmp_path / "budget.svg").read_text().startswith("<svg")
    png = tmp_path / "budget.png"
    run_cli(["mem", "--model-config", str(MODEL), "--gpu", "rtx-pro-6000", "--plot", str(png)])
    assert png.read_bytes().startswith(b"\x89PNG")
    assert memory["weights_bytes"] > 40 * GIB
