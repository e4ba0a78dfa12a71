"""vLLM 0.33.0: the KV budget, approximately.

Follows ``vllm/v1/worker/gpu_worker.py`` ``Worker.determine_available_memory`` (0.33.0):
``available_kv_cache_memory = requested_memory - non_kv_cache_memory - cudagraph_memory_estimate`` with
``requested_memory = gpu_memory_utilization x total`` (``request_memory``), ``non_kv_cache_memory`` = weights
+ the profile run's activation peak + non-torch memory (measured at run time: estimated here), and
``--kv-cache-memory-bytes`` bypassing all of it. KV bytes per token follow the attention specs (per rank:
``max(1, kv_heads // tp)`` heads, K and V, every attention layer; MLA ``kv_lora_rank + qk_rope_head_dim``).
Mamba state per request uses the same state shapes as SGLang; vLLM's page unification (one block holds
one request's state) and prefix-caching ``align`` mode are not modelled. See docs/memory.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from argtrace.gpus import GIB, GpuProfile
from argtrace.layers.memory.config import ModelSpec
from argtrace.layers.memory.settings import setting
from argtrace.layers.memory.sglang import Resolved, activation_estimate
from argtrace.layers.memory.state import kv_geometry, mamba_geometry
from argtrace.layers.memory.weights import estimate_weights
from argtrace.model import Finding

VERSION = "0.33.0"
NON_TORCH_BYTES = int(0.5 * GIB)  # CUDA context, NCCL, allocator slack seen as non-torch memory


def analyze(
    spec: ModelSpec,
    gpu: GpuProfile,
    settings: Mapping[str, Any],
    version: str | None,
    section: dict[str, Any],
    findings: list[Finding],
    rules: Any,
    gpu_count: int,
) -> None:
    tp = int(setting(settings, "tensor_parallel_size", 1))
    section["version"] = version or VERSION
    section["formulas"] = f"vllm {VERSION} (approximate)"
    if tp > gpu_count:
        findings.append(
            rules.MM007.finding(f"tensor_parallel_size {tp} needs {tp} GPUs; --gpu has {gpu_count}")
        )
    util = float(setting(settings, "gpu_memory_utilization", 0.9))
    max_seqs = int(setting(settings, "max_num_seqs", 1024 if gpu.smi_total_mib >= 70 * 1024 else 256))
    batched = int(
        setting(settings, "max_num_batched_tokens", 8192 if gpu.smi_total_mib >= 70 * 1024 else 2048)
    )
    kv_dtype = str(setting(settings, "kv_cache_dtype", "auto"))
    weights = estimate_weights(spec, tp, None)
    try:
        kv = kv_geometry(spec, tp, kv_dtype)
        mamba = mamba_geometry(spec, tp, setting(settings, "mamba_ssm_cache_dtype") or spec.mamba_ssm_dtype)
    except ValueError as exc:
        findings.append(rules.MM007.finding(f"tensor_parallel_size {tp}: {exc}"))
        return
    fake = Resolved(
        tp=tp,
        dp=1,
        enable_dp_attention=False,
        mem_fraction_static=util,
        mem_fraction_given=True,
        reserved_mem_mb=0,
        chunked_prefill_size=batched,
        cuda_graph_max_bs=min(max_seqs, 512),
        disable_cuda_graph=bool(setting(settings, "enforce_eager", False)),
        piecewise_cuda_graph=False,
        piecewise_tokens=0,
        speculative_algorithm=None,
        speculative_num_steps=None,
        speculative_num_draft_tokens=None,
        max_running_requests=max_seqs,
        max_total_tokens=None,
        page_size=1,
        context_len=int(setting(settings, "max_model_len", spec.context_length or 4096)),
        mamba_scheduler_strategy="none",
        disable_radix_cache=False,
        disable_overlap_schedule=False,
        max_mamba_cache_size=None,
        mamba_full_memory_ratio=0.0,
        mamba_ssm_dtype=None,
        kv_cache_dtype=kv_dtype,
    )
    activations = activation_estimate(spec, fake)
    cudagraph = 0 if fake.disable_cuda_graph else int(0.5 * GIB)
    requested = int(gpu.total_bytes * util)
    given = setting(settings, "kv_cache_memory_bytes")
    non_kv = weights.bytes_per_rank + activations + NON_TORCH_BYTES
    available = int(given) if given is not None else requested - non_kv - cudagraph
    # vLLM keeps one pool for attention pages and Mamba states (one state per running request, pages
    # unified in size): nothing is reserved per max_num_seqs up front. At start-up it requires that one
    # request of max_model_len fits (its state + its KV).
    one_state = mamba.bytes_per_slot if mamba else 0
    tokens = max(available, 0) // max(kv.bytes_per_token, 1)
    requests = min(max_seqs, max(available, 0) // one_state) if one_state else max_seqs
    need_one = one_state + kv.bytes_per_token * fake.context_len
    verdict, stage = "fits", None
    if weights.bytes_per_rank > gpu.total_bytes - NON_TORCH_BYTES:
        verdict, stage = "oom", "weights"
    elif available <= 0:
        verdict, stage = "oom", "kv_cache"
    elif available < need_one:
        verdict, stage = "oom", "mamba_cache" if mamba and available < one_state else "kv_cache"
    state = one_state * requests
    section.update(
        {
            "weights_bytes": weights.bytes_per_rank,
            "weights_source": weights.source,
            "kv_bytes_per_token": kv.bytes_per_token,
            "kv_k_bytes_per_token": kv.k_bytes_per_token,
            "mamba_conv_bytes_per_slot": mamba.conv_bytes_per_slot if mamba else 0,
            "mamba_ssm_bytes_per_slot": mamba.ssm_bytes_per_slot if mamba else 0,
            "mamba_extra_bytes_per_slot": 0,
            "draft_bytes": 0,
            "reserved_bytes": activations + cudagraph + NON_TORCH_BYTES,
            "max_total_num_tokens": tokens if stage is None else None,
            "max_mamba_cache_size": requests if mamba else None,
            "max_running_requests": requests,
            "mem_fraction_static": util,
            "gpu_memory_utilization": util,
            "available_kv_cache_bytes": available,
            "verdict": verdict,
            "oom_stage": stage,
            "margin_bytes": available - need_one,
            "breakdown": [
                {"name": "context + other processes", "bytes": NON_TORCH_BYTES},
                {"name": "weights", "bytes": weights.bytes_per_rank},
                {"name": "kv cache", "bytes": max(available - state, 0)},
                {"name": "mamba state", "bytes": state},
                {"name": "cuda graphs (est.)", "bytes": cudagraph},
                {"name": "activations (est.)", "bytes": activations},
                {"name": "free", "bytes": gpu.total_bytes - requested},
            ],
            "suggested": [],
        }
    )
    if verdict == "oom":
        findings.append(
            rules.MM001.finding(
                f"vLLM {VERSION}: out of memory at {stage} on {gpu.name} "
                f"(KV budget {available / GIB:.2f} GiB for "
                f"{fake.context_len} tokens of context and {max_seqs} sequences)",
                setting="gpu_memory_utilization",
                fix="raise --gpu-memory-utilization, lower --max-model-len / --max-num-seqs, or add GPUs",
            )
        )
