"""vLLM's profile-run sampler warm-up and SGLang's hybrid sliding-window pools (docs/memory.md).

The sampler warm-up follows vLLM 0.33.0 (``v1/worker/gpu/model_runner.py`` ``_dummy_sampler_run``) and
FlashInfer's ``top_k_top_p_sampling_from_logits``; the sliding-window split follows SGLang 0.5.10.post1
``_resolve_hybrid_swa_tokens``, and is checked against that release's own code (and 0.5.23's) where their
resolver environments exist.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import REPO, run_cli
from tests.needs import unmet

MODELS = REPO / "tests" / "data" / "models"
GIB = 1 << 30


def _mem(model: str, gpu: str, *words: str, framework: str | None = None) -> dict[str, Any]:
    argv = ["mem", "--format", "json", "--model-config", str(MODELS / model), "--gpu", gpu]
    if framework:
        argv += ["--framework", framework]
    result = run_cli([*argv, "--", *words])
    assert result.status in (0, 1), result.stderr
    return dict(result.json["memory"])


def test_gpt_oss_120b_sampler_warm_up_on_an_h100() -> None:
    """H100 defaults (8192 batched tokens, 1024 sequences): 1024 dummy requests x 201,088 logits x (2 B
    bf16 + 4 B float32 copy + 4 B FlashInfer masked logits + 4 B probabilities), plus 8192 x 2880 bf16 hidden
    states; larger than the forward estimate, so it is the profile run's peak."""
    m = _mem("gpt-oss-120b", "h100", "vllm", "serve", "openai/gpt-oss-120b")
    assert m["sampler_warmup_bytes"] == 1024 * 201088 * 14 + 8192 * 2880 * 2 == 2929983488
    assert (
        m["forward_activation_bytes"] == 512 * 2**20 + 8192 * (4 * 2880 + 2 * 2 * 2880 * 4) * 2 == 1480589312
    )
    assert m["activation_bytes"] == m["sampler_warmup_bytes"]
    # 0.9 x 79.19 GiB - 60.69 GiB weights - 2.73 GiB profile peak - 0.5 non-torch - 0.5 CUDA graphs
    assert m["available_kv_cache_bytes"] == 7353908813
    assert m["verdict"] == "fits"


def test_sampler_rows_are_capped_by_the_batched_tokens() -> None:
    """``num_reqs = min(num_tokens, max_num_reqs)``: 256 batched tokens give 256 dummy requests, not 1024."""
    m = _mem(
        "gpt-oss-120b",
        "h100",
        *("vllm", "serve", "openai/gpt-oss-120b", "--max-num-batched-tokens", "256"),
    )
    assert m["sampler_warmup_bytes"] == 256 * 201088 * 14 + 256 * 2880 * 2


def test_a_small_gpu_keeps_the_forward_peak() -> None:
    """Llama-3.1-8B on an A100 40GB (2048 batched tokens, 256 sequences): the sampler's 256 x 128,256 logits
    (0.45 GiB) stay under the forward estimate, which remains the peak."""
    m = _mem("llama-3.1-8b", "a100-40g", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct")
    assert m["sampler_warmup_bytes"] == 256 * 128256 * 14 + 2048 * 4096 * 2
    assert m["activation_bytes"] == m["forward_activation_bytes"] > m["sampler_warmup_bytes"]


def test_only_the_last_pipeline_stage_runs_the_sampler() -> None:
    """``profile_run`` samples on the last PP rank only: stage 0's KV budget is not charged for it."""
    m = _mem(
        "qwen3-32b",
        "rtx-pro-6000x2",
        *("vllm", "serve", "Qwen/Qwen3-32B", "--pipeline-parallel-size", "2", "--max-model-len", "32768"),
    )
    stages = {s["stage"]: s for s in m["pipeline"]["stages"]}
    assert m["pipeline"]["worst_stage"] == 1
    assert stages[0]["available_kv_cache_bytes"] > stages[1]["available_kv_cache_bytes"]


@pytest.mark.parametrize(
    ("flags", "full", "swa", "requests"),
    [
        ((), 73405, 58724, 2048),
        (("--swa-full-tokens-ratio", "0.5"), 88086, 44043, 2048),
        (("--disable-hybrid-swa-memory",), 66065, None, 2048),
    ],
)
def test_sglang_gpt_oss_sliding_window_pools(
    flags: tuple[str, ...], full: int, swa: int | None, requests: int
) -> None:
    """GPT-OSS-120B on an H100 with SGLang: 18 full + 18 sliding layers share the capacity of 66,065 tokens
    at one length; with the default ratio 0.8 the full layers get 66,065 x 36 / (18 + 0.8 x 18) = 73,405 and
    the sliding ones 0.8 of that. The bytes allocated stay those of the single-length pool (to a page)."""
    m = _mem("gpt-oss-120b", "h100", "--tp", "1", *flags, framework="sglang")
    assert (m["max_total_num_tokens"], m["swa_max_total_num_tokens"], m["max_running_requests"]) == (
        full,
        swa,
        requests,
    )
    assert abs(m["kv_pool_bytes"] - 4870914048) < 2 * m["kv_bytes_per_token"]


@pytest.mark.frameworks
@pytest.mark.slow
@pytest.mark.parametrize(
    ("version", "flags", "tokens"),
    [
        ("0.5.10.post1", (), 73405),
        ("0.5.10.post1", ("--swa-full-tokens-ratio", "0.5"), 88086),
        ("0.5.23", (), 73405),
        ("0.5.23", ("--swa-full-tokens-ratio", "0.5"), 88087),
    ],
)
def test_sglang_own_code_splits_the_same(version: str, flags: tuple[str, ...], tokens: int) -> None:
    """``mem --resolver``: SGLang's own ``_resolve_memory_pool_config`` (0.5.10.post1) and
    ``KVCacheConfigurator`` (0.5.23) give the full layers' tokens the formulas give (0.5.23 rounds the 0.5
    split one token higher)."""
    if unmet([f"resolver:sglang=={version}"]):
        pytest.skip(f"no SGLang {version} resolver environment")
    result = run_cli(
        [
            *("mem", "--format", "json", "--resolver", "--framework-version", version),
            *("--model-config", str(MODELS / "gpt-oss-120b"), "--gpu", "h100", "--framework", "sglang"),
            *("--", "--tp", "1", *flags),
        ]
    )
    fw = result.json["memory"]["framework_sizing"]
    assert (fw["error"], fw["max_total_num_tokens"]) == (None, tokens)


def test_the_logged_sampler_oom_is_one_float32_copy_of_the_warm_up_logits() -> None:
    """vllm#27508: GPT-OSS-120B on an H100 ran out of memory converting the warm-up logits to float32
    (``Tried to allocate 786.00 MiB``): max_num_seqs (1024) x the vocabulary (201,088) x 4 bytes = 785.5
    MiB, the rows and vocabulary argtrace's sampler term uses (the allocator rounds a request up, within
    2 MiB)."""
    import re

    from tests.memory.real_logs import LOGS

    text = (LOGS / "real" / "vllm-27508-gpt-oss-120b-h100.log").read_text(encoding="utf-8")
    logged_mib = float(re.search(r"Tried to allocate ([\d.]+) MiB", text).group(1))  # type: ignore[union-attr]
    m = _mem("gpt-oss-120b", "h100", "vllm", "serve", "openai/gpt-oss-120b")
    rows = min(m["vllm"]["max_num_seqs"], m["vllm"]["max_num_batched_tokens"])
    requested_mib = rows * 201088 * 4 / 2**20
    assert (requested_mib, logged_mib) == (785.5, 786.0)
    assert requested_mib <= logged_mib < requested_mib + 2


@pytest.mark.parametrize(
    ("offload", "verdict", "weights_gib", "codes"),
    [((), "oom", 27.508, ["MM001"]), (("--cpu-offload-gb", "10"), "fits", 17.508, [])],
)
def test_cpu_offload_keeps_decoder_weights_off_the_gpu(
    offload: tuple[str, ...], verdict: str, weights_gib: float, codes: list[str]
) -> None:
    """vLLM's own example of ``--cpu-offload-gb`` (config/offload.py: a 24 GB GPU plus 10 GiB "virtually" a
    34 GB one) on Qwen3-14B: without it the bf16 weights do not fit an RTX 4090 (an error), with it 10 GiB
    of decoder-layer weights stay in CPU memory and the launch fits (it was an error before 2026-12-02)."""
    result = run_cli(
        [
            *("mem", "--format", "json", "--model-config", str(MODELS / "qwen3-14b"), "--gpu", "rtx-4090"),
            *("--", "vllm", "serve", "Qwen/Qwen3-14B", "--max-model-len", "8192", *offload),
        ]
    )
    m = result.json["memory"]
    assert (m["verdict"], round(m["weights_bytes"] / GIB, 3)) == (verdict, weights_gib)
    assert m["cpu_offloaded_bytes"] == (10 * GIB if offload else 0)
    assert [f["code"] for f in result.json["findings"] if f["severity"] == "error"] == codes
    if offload:
        assert m["max_total_num_tokens"] == 13056
        assert "--cpu-offload-gb 10: 10.0 GiB of decoder-layer weights held in CPU memory" in " ".join(
            m["notes"]
        )


@pytest.mark.parametrize(
    ("words", "framework", "note"),
    [
        (
            ("--enable-lora", "--max-lora-rank", "256"),
            "sglang",
            "LoRA: the adapter buffers (lora/mem_pool.py init_buffers, max_loras_per_batch x max_lora_rank "
            "per target module and layer) are allocated after the weights and before the KV pool and are "
            "not counted: the KV pool here is too large by them",
        ),
        (
            ("vllm", "serve", "m", "--enable-lora"),
            None,
            "--enable-lora: the LoRA weight stacks (lora/layers/base_linear.py create_lora_weights, "
            "max_loras x max_lora_rank per wrapped linear) load with the model and are not counted: the "
            "weights here are too small and the KV cache too large by them",
        ),
    ],
)
def test_lora_memory_not_counted_is_said(words: tuple[str, ...], framework: str | None, note: str) -> None:
    m = _mem("llama-3.1-8b", "h100", *words, framework=framework)
    assert note in m["notes"]


def test_sglang_sliding_window_split_is_not_applied_per_pipeline_stage() -> None:
    """A stage's view keeps the model's sliding-layer ids: under PP every stage is sized at one length."""
    m = _mem("gpt-oss-120b", "h100x2", "--pp-size", "2", framework="sglang")
    assert (m["verdict"], m["swa_max_total_num_tokens"], m["max_total_num_tokens"]) == ("fits", None, 1011458)
