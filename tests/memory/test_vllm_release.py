"""A named vLLM release's own KV sizing (layers/memory/vllm_release.py): V0's profile of a whole
``max_model_len`` prefill (0.6.4.post1), and 0.10.1/0.11.0's profile run (no CUDA graphs reserved, PyTorch's
top-k/top-p sampler, Marlin MXFP4 on SM90), against the public logs of tests/memory/real_logs.py."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import run_cli
from tests.memory.real_logs import CASES, MODELS, verdict, verdict_is_right


def _mem(model: str, gpu: str, version: str | None, *argv: str) -> dict[str, Any]:
    words = ["mem", "--format", "json", "--model-config", str(MODELS / model), "--gpu", gpu]
    if version:
        words += ["--framework-version", version]
    result = run_cli([*words, "--", "vllm", "serve", "m", *argv])
    assert result.status in (0, 1), result.stderr
    return dict(result.json)


def test_rules_only_for_releases_whose_code_was_read() -> None:
    from argtrace.layers.memory.vllm_release import rules_for

    v0 = rules_for("0.6.4.post1")
    assert v0 is not None and (v0.engine, v0.read, v0.chunked_prefill_tokens) == ("v0", "0.6.4.post1", 512)
    v073 = rules_for("v0.7.3")
    assert v073 is not None and v073.chunked_prefill_tokens == 2048
    v1 = rules_for("0.10.1.1")
    assert v1 is not None and (v1.engine, v1.read, v1.mxfp4_sm90_backend) == ("v1", "0.10.1", "marlin")
    v0171 = rules_for("0.17.1")
    assert v0171 is not None and (v0171.sampler_bytes_per_logit, v0171.mxfp4_sm90_backend) == (None, None)
    # not read, but V1 and older than CUDA-graph profiling (0.33.0's envs.py: on by default as of v0.21.0)
    v0190 = rules_for("v0.19.0")
    assert v0190 is not None and (v0190.only_cuda_graphs, v0190.sampler_bytes_per_logit) == (True, None)
    assert [rules_for(v) for v in (None, "0.33.0", "0.21.0", "0.28.0", "0.7.2")] == [None] * 5


def test_releases_before_cuda_graph_profiling_reserve_no_graphs() -> None:
    """GPT-OSS-20B on an A100 with 0.19.0 (myoceane.fr): only the 0.5 GiB CUDA-graph estimate moves, and
    0.33.0 with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 in the launch's environment does the same."""
    flags = ("--max-model-len", "131072", "--gpu-memory-utilization", "0.65")
    named = _mem("gpt-oss-20b", "a100-80g", "0.19.0", *flags)["memory"]
    plain = _mem("gpt-oss-20b", "a100-80g", None, *flags)["memory"]
    assert (named["cuda_graph_bytes"], plain["cuda_graph_bytes"]) == (0, 1 << 29)
    assert named["available_kv_cache_bytes"] - plain["available_kv_cache_bytes"] == 1 << 29
    words = ["mem", "--format", "json", "--model-config", str(MODELS / "gpt-oss-20b"), "--gpu", "a100-80g"]
    env_off = run_cli(
        [*words, "--", "env", "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0", "vllm", "serve", "m", *flags]
    ).json["memory"]
    assert env_off["available_kv_cache_bytes"] == named["available_kv_cache_bytes"] == 39338927693


def test_0171_reserves_no_cuda_graphs_and_prints_tokens_by_blocks() -> None:
    """The offload-profiles study at 0.70 on an RTX 3090 (0.17.1): no CUDA graphs subtracted, the sampler as
    0.33.0's; 0.41 GiB left (0.4 after the null block) where 8192 tokens need 1.0 GiB (the log: 0.95
    available, 1.0 needed). At 0.90
    the "GPU KV cache size" line is num_blocks x 16 (one KV cache group)."""
    failed = _mem(
        "llama-3.1-8b", "rtx-3090", "0.17.1", "--max-model-len", "8192", "--gpu-memory-utilization", "0.7"
    )
    m = failed["memory"]
    assert (m["cuda_graph_bytes"], m["verdict"], m["available_kv_cache_bytes"]) == (0, "oom", 435826525)
    (mm001,) = [f for f in failed["findings"] if f["code"] == "MM001"]
    assert (
        "(1.0 GiB KV cache is needed, which is larger than the available KV cache memory (0.4 GiB)"
        in (mm001["message"])
    )
    fits = _mem("llama-3.1-8b", "rtx-3090", "0.17.1", "--max-model-len", "8192")["memory"]
    assert (fits["max_total_num_tokens"], fits["vllm"]["num_blocks"]) == (42144, 2634)


def test_v0_profiles_a_whole_max_model_len_prefill() -> None:
    """vllm#10517 at 29000 on an RTX 3090 (0.6.4.post1): the profile run is one 29000-token prefill, no CUDA
    graphs are reserved, and V0's own check fails (the log: 23,648 tokens held). The shortfall is within the
    estimated profile run: a warning resting on it."""
    report = _mem("llama-3.1-8b", "rtx-3090", "0.6.4.post1", "--max-model-len", "29000")
    m = report["memory"]
    assert (m["vllm"]["max_num_batched_tokens"], m["vllm"]["max_num_seqs"], m["cuda_graph_bytes"]) == (
        29000,
        256,
        0,
    )
    assert (m["verdict"], m["vllm"]["num_blocks"] * m["vllm"]["block_size"]) == ("oom", 17728)
    (mm001,) = [f for f in report["findings"] if f["code"] == "MM001"]
    assert (mm001["severity"], mm001["basis"]) == ("warning", "assumed")
    assert mm001["message"].startswith(
        "vLLM 0.6.4.post1: out of memory at kv_cache on rtx-3090: The model's max seq len (29000) is larger "
        "than the maximum number of tokens that can be stored in KV cache (17728)."
    )


def test_v0_turns_chunked_prefill_on_above_32k() -> None:
    """arg_utils.py: max_model_len > 32768 turns chunked prefill on (512 tokens in 0.6.4.post1, 2048 in
    0.7.3); --enable-chunked-prefill false keeps the whole-prefill profile."""
    on = _mem("llama-3.1-8b", "h100", "0.6.4.post1", "--max-model-len", "40000")["memory"]["vllm"]
    v073 = _mem("llama-3.1-8b", "h100", "0.7.3", "--max-model-len", "40000")["memory"]["vllm"]
    off = _mem(
        "llama-3.1-8b", "h100", "0.6.4.post1", "--max-model-len", "40000", "--enable-chunked-prefill", "false"
    )["memory"]["vllm"]
    assert (on["max_num_batched_tokens"], v073["max_num_batched_tokens"], off["max_num_batched_tokens"]) == (
        512,
        2048,
        40000,
    )


def test_v1_0101_gpt_oss_profile_run() -> None:
    """vllm#23278 (0.10.1, GPT-OSS-120B, one H100): Marlin-padded weights (the log: 65.97 GiB), the PyTorch
    sampler over 1024 x 201,088 logits at dtype + 26 bytes plus the hidden states, no CUDA graphs: no memory
    left for the KV cache, as the log's -2.14 GiB says."""
    report = _mem("gpt-oss-120b", "h100", "0.10.1")
    m = report["memory"]
    assert (m["weights_bytes"], m["sampler_warmup_bytes"], m["cuda_graph_bytes"]) == (
        70673436288,
        1024 * 201088 * (2 + 26) + 8192 * 2880 * 2,
        0,
    )
    assert (m["available_kv_cache_bytes"], m["verdict"]) == (-496845235, "oom")
    (mm001,) = [f for f in report["findings"] if f["code"] == "MM001"]
    assert (mm001["severity"], mm001["basis"]) == ("warning", "assumed")
    assert "MXFP4 experts padded for the marlin MoE kernel vLLM 0.10.1 picks" in " ".join(m["notes"])


def test_without_a_release_the_formulas_stay_0330s() -> None:
    m = _mem("gpt-oss-120b", "h100", None)["memory"]
    assert (m["verdict"], m["weights_bytes"], m["available_kv_cache_bytes"]) == (
        "fits",
        65168608896,
        7353908813,
    )


@pytest.mark.parametrize("case", [c for c in CASES if c.failed], ids=lambda c: c.id)
def test_verdicts_on_the_failed_launches(case: Any) -> None:
    """The six public launches that failed at start-up: five called out of memory (one an error, four
    warnings resting on the estimated profile run); vllm#48601's unreleased MRV2 build, which did not profile
    the sampler, is sized as 0.33.0 (which does) and still called fitting."""
    expected = {
        "vllm-13061": "oom (error, static)",
        "vllm-23278": "oom (warning, assumed)",
        "vllm-27508": "oom (warning, assumed)",
        "vllm-10517-29k": "oom (warning, assumed)",
        "offload-profiles-llama31-8b-3090-070": "oom (warning, assumed)",
        "vllm-48601-qwen3.6-27b-fp8-tp4": "fits",
    }
    said = verdict(case)
    assert said == expected[case.id]
    assert verdict_is_right(case, said) is (case.id != "vllm-48601-qwen3.6-27b-fp8-tp4")


def test_no_launch_that_started_is_an_error() -> None:
    assert [c.id for c in CASES if not c.failed and not verdict_is_right(c, verdict(c))] == []
