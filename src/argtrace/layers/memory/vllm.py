"""vLLM 0.33.0: how the engine sizes its KV cache, re-derived step by step.

Each function names the file and function it follows (paths relative to ``vllm/``, version 0.33.0):

- ``resolve_args``: ``engine/arg_utils.py`` ``EngineArgs.get_batch_defaults`` / ``_set_default_args``
  (``max_num_seqs`` and ``max_num_batched_tokens`` for the OpenAI server usage context, by device memory
  and name), ``config/cache.py`` ``CacheConfig`` defaults (``block_size`` 16, prefix caching on),
  ``model_executor/models/config.py`` ``MambaModelConfig.verify_and_update_config`` (prefix caching ->
  ``mamba_cache_mode`` align), ``NemotronHForCausalLMConfig`` / ``Qwen3_5ForConditionalGenerationConfig``
  (SSM state dtype), ``config/speculative.py`` (``--speculative-config`` method and tokens).
- ``kv_layout``: ``platforms/interface.py`` ``Platform._align_hybrid_block_size`` (the attention block is
  grown so one attention page holds one Mamba state; the Mamba page is padded to it) and
  ``v1/core/kv_cache_planning.py`` ``get_kv_cache_groups`` -> ``_get_kv_cache_groups_uniform_spec`` /
  ``_get_kv_cache_groups_uniform_page_size`` (groups of equal layer count) and
  ``_get_kv_cache_bytes_per_block``.
- ``plan``: ``v1/worker/gpu_worker.py`` ``Worker.determine_available_memory`` and
  ``v1/worker/utils.py`` ``request_memory``; ``kv_cache_planning.py`` ``get_kv_cache_configs`` (null block
  held back, ``num_blocks = available // bytes_per_block``), ``_check_enough_kv_cache_memory``,
  ``_max_memory_usage_bytes_from_groups``, ``_estimate_max_model_len_from_groups``;
  ``v1/core/kv_cache_utils.py`` ``get_max_concurrency_for_kv_cache_config`` / ``get_kv_cache_capacity``
  (the ``GPU KV cache size: N tokens`` and ``Maximum concurrency ...`` lines).

What is measured at run time (activation peak of the profile run, non-torch memory, CUDA graph pool) is
estimated and labelled so. ``vllm_probe.py`` runs the same planning with vLLM's own functions in a resolver
environment (``--resolver``). What is not modelled is listed in ``docs/memory.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from argtrace import safe_json
from argtrace.gpus import GIB, GpuProfile
from argtrace.layers.memory.config import ModelSpec
from argtrace.layers.memory.settings import setting
from argtrace.layers.memory.sglang import Resolved as SgResolved
from argtrace.layers.memory.sglang import activation_estimate
from argtrace.layers.memory.state import (
    KV_DTYPE_BYTES,
    SSM_DTYPE_BYTES,
    KvGeometry,
    MambaGeometry,
    kv_geometry,
    mamba_geometry,
)
from argtrace.layers.memory.weights import WeightEstimate, decoder_layers_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VERSION = "0.33.0"
DEFAULT_BLOCK_SIZE = 16  # config/cache.py CacheConfig.DEFAULT_BLOCK_SIZE
# v1/attention/backends/flash_attn.py get_supported_kernel_block_sizes -> [MultipleOf(16)] (CUDA); the
# FlashInfer backend's smallest size is 16 too. MLA hybrids round to 128 (_align_hybrid_block_size).
KERNEL_BLOCK_ALIGNMENT = 16
MLA_KERNEL_BLOCK_ALIGNMENT = 128
# Measured at run time by vLLM; argtrace's estimates (docs/memory.md):
NON_TORCH_BYTES = int(0.5 * GIB)  # CUDA context, NCCL, allocator slack counted as non-torch memory
CUDAGRAPH_BYTES = int(0.5 * GIB)  # profile_cudagraph_memory; public logs show 0.09-0.13 GiB for a 27B at TP2
SAFETY_BYTES = int(0.25 * GIB)
# The sampler warm-up inside the profile run, per logit (one row per dummy request, the whole vocabulary:
# model_executor/layers/logits_processor.py _gather_logits all-gathers the vocab-parallel shards on every
# rank). 0.33.0's default runner is Model Runner V2 (config/vllm.py:731 use_v2_model_runner: on unless a
# feature is unsupported); its v1/worker/gpu/model_runner.py _dummy_sampler_run (:993) keeps
# compute_logits' output in the model dtype and runs the sampler twice, the second time with
# SamplingParams.for_sampler_warmup (top_k 50, top_p 0.9, penalties, logprobs), whose
# apply_sampling_params copies the logits to float32 (gpu/sample/sampler.py:242) and then samples them with
# FlashInfer's top_k_top_p_sampling_from_logits (v1/sample/ops/topk_topp_sampler.py:663). FlashInfer is not
# in the vLLM wheel: its flashinfer/sampling.py (flashinfer-ai/flashinfer, default filter_apply_order
# "top_k_first") builds masked_logits = top_k_mask_logits(logits, top_k) and probs =
# torch.softmax(masked_logits), two more float32 copies alive together; releases with a fast path for
# small top_k may allocate less (assumed not taken).
SAMPLER_FP32_BUFFERS = 3
# arg_utils.py get_batch_defaults (OPENAI_API_SERVER): (max_num_batched_tokens, max_num_seqs)
_DEFAULTS_160G = (16384, 1024)
_DEFAULTS_70G = (8192, 1024)
_DEFAULTS_SMALL = (2048, 256)


def format_gib(value: int | float) -> str:
    """``utils/mem_utils.py`` ``format_gib``: ``str(round(b / GiB, 2))`` (so 16 GiB prints ``16.0``)."""
    return f"{round(value / GIB, 2)}"


def batch_defaults(gpu: GpuProfile) -> tuple[int, int]:
    """``(max_num_batched_tokens, max_num_seqs)`` for ``vllm serve`` (usage context OPENAI_API_SERVER) from
    ``EngineArgs.get_batch_defaults``: >= 160 GiB 16384/1024; >= 70 GiB and not an A100 and not a GB10
    (cc 12.1) 8192/1024; else 2048/256. ``device_memory`` is torch's total (``total_bytes``)."""
    if gpu.total_bytes >= 160 * GIB:
        return _DEFAULTS_160G
    if gpu.total_bytes >= 70 * GIB and "a100" not in gpu.label.lower() and gpu.compute_capability != (12, 1):
        return _DEFAULTS_70G
    return _DEFAULTS_SMALL


@dataclass
class Resolved:
    """The memory-relevant engine settings after vLLM 0.33.0's defaults."""

    tp: int
    gpu_memory_utilization: float
    utilization_given: bool
    max_num_seqs: int
    max_num_batched_tokens: int
    max_model_len: int
    kv_cache_dtype: str
    block_size: int
    block_size_given: bool
    enable_prefix_caching: bool
    mamba_cache_mode: str
    mamba_ssm_cache_dtype: str | None
    kv_cache_memory_bytes: int | None
    enforce_eager: bool
    speculative_method: str | None
    num_speculative_tokens: int
    notes: list[str] = field(default_factory=list)
    cpu_offload_gb: float = 0.0
    cpu_offload_params: tuple[str, ...] = ()
    # A named release's differences (vllm_release.py); the defaults are 0.33.0's.
    engine: str = "v1"
    cudagraph_before_kv: bool = True  # 0.33.0 profiles the CUDA graphs and reserves them before the KV cache
    sampler_bytes_per_logit: int | None = None  # None: 0.33.0's FlashInfer warm-up (SAMPLER_FP32_BUFFERS)
    kv_tokens_from_blocks: bool = False  # the "GPU KV cache size" line as 0.10.1/0.11.0 print it
    # 0.8.1/0.8.3's check_enough_kv_cache_memory: all the available memory (no null block), its own words
    kv_check_08: bool = False


def _speculative(settings: Mapping[str, Any], spec: ModelSpec, notes: list[str]) -> tuple[str | None, int]:
    raw = setting(settings, "speculative_config")
    if raw is None:
        return None, 0
    if isinstance(raw, str):
        import json

        try:
            raw = safe_json.loads(raw)
        except json.JSONDecodeError:
            notes.append(f"--speculative-config is not JSON ({raw[:40]!r}); speculative decoding not sized")
            return None, 0
    if not isinstance(raw, Mapping):
        notes.append("--speculative-config is not a JSON object; speculative decoding not sized")
        return None, 0
    method = str(raw.get("method") or ("mtp" if spec.mtp_layers else "draft_model")).lower()
    # config/speculative.py maps the model-specific MTP names (qwen3_next_mtp, deepseek_mtp, ...) to mtp.
    if method.endswith("_mtp"):
        method = "mtp"
    tokens = raw.get("num_speculative_tokens")
    try:
        n = int(tokens) if tokens is not None else max(spec.mtp_layers, 1)
    except (TypeError, ValueError):
        notes.append(f"num_speculative_tokens {tokens!r} is not a number; 1 assumed")
        n = 1
    return method, max(n, 0)


def resolve_args(spec: ModelSpec, gpu: GpuProfile, settings: Mapping[str, Any]) -> Resolved:
    notes: list[str] = []
    tp = max(int(setting(settings, "tensor_parallel_size", 1)), 1)
    batched_default, seqs_default = batch_defaults(gpu)
    util = setting(settings, "gpu_memory_utilization")
    prefix = not bool(setting(settings, "no_enable_prefix_caching", False))
    if setting(settings, "enable_prefix_caching") is not None:
        prefix = bool(setting(settings, "enable_prefix_caching"))
    mode = str(setting(settings, "mamba_cache_mode", "none"))
    if spec.is_hybrid:
        # MambaModelConfig.verify_and_update_config: prefix caching -> align, else none.
        if prefix and mode == "none":
            mode = "align"
            notes.append("mamba_cache_mode none -> align: prefix caching is on (MambaModelConfig)")
        elif not prefix:
            mode = "none"
    # Qwen3_5ForConditionalGenerationConfig / NemotronHForCausalLMConfig: "auto" SSM dtype follows the
    # config (NemotronH: float32 when the config says nothing); other GDN models keep the model dtype.
    ssm = setting(settings, "mamba_ssm_cache_dtype")
    if ssm in (None, "auto"):
        if spec.mamba_ssm_dtype:
            ssm = spec.mamba_ssm_dtype
        elif spec.family == "nemotron_h":
            ssm = "float32"
        else:
            ssm = "bfloat16" if spec.dtype_bytes == 2 else "float32"
    method, n_spec = _speculative(settings, spec, notes)
    max_len = int(setting(settings, "max_model_len", spec.context_length or 4096))
    batched = batched_default
    if (
        setting(settings, "enable_chunked_prefill") is False
        and setting(settings, "max_num_batched_tokens") is None
    ):
        # engine/arg_utils.py:3194-3199 (0.33.0): without chunked prefill and no max_num_batched_tokens given,
        # max_num_batched_tokens = max(max_model_len, default): the profile run prefills max_model_len at once
        batched = max(max_len, batched_default)
        if batched != batched_default:
            notes.append(
                f"--no-enable-chunked-prefill: max_num_batched_tokens = max_model_len {max_len} "
                "(engine/arg_utils.py), so the profile run is one prefill of the whole context"
            )
    kv_bytes = setting(settings, "kv_cache_memory_bytes")
    offload_params = setting(settings, "cpu_offload_params") or ()
    if isinstance(offload_params, str):
        offload_params = (offload_params,)
    return Resolved(
        tp=tp,
        gpu_memory_utilization=float(util) if util is not None else 0.9,
        utilization_given=util is not None,
        max_num_seqs=int(setting(settings, "max_num_seqs", seqs_default)),
        max_num_batched_tokens=int(setting(settings, "max_num_batched_tokens", batched)),
        max_model_len=max_len,
        kv_cache_dtype=str(setting(settings, "kv_cache_dtype", "auto")),
        block_size=int(setting(settings, "block_size", DEFAULT_BLOCK_SIZE)),
        block_size_given=setting(settings, "block_size") is not None,
        enable_prefix_caching=prefix,
        mamba_cache_mode=mode,
        mamba_ssm_cache_dtype=str(ssm) if spec.is_hybrid else None,
        kv_cache_memory_bytes=int(kv_bytes) if kv_bytes is not None else None,
        enforce_eager=bool(setting(settings, "enforce_eager", False)),
        speculative_method=method,
        num_speculative_tokens=n_spec,
        notes=notes,
        cpu_offload_gb=float(setting(settings, "cpu_offload_gb", 0.0) or 0.0),
        cpu_offload_params=tuple(str(x) for x in offload_params),
    )


@dataclass(frozen=True)
class KvLayout:
    """One rank's KV cache layout as ``get_kv_cache_groups`` builds it."""

    block_size: int
    attn_page_bytes: int  # one attention layer's page (block_size tokens), after padding
    mamba_state_bytes: int  # one Mamba layer's state, unpadded (0 without Mamba layers)
    attn_layers: int  # target full-attention layers + draft (MTP) attention layers
    mamba_layers: int
    group_size: int  # layers per KV cache group
    attn_groups: int
    mamba_groups: int
    mamba_blocks_per_request: int  # per Mamba group (MambaSpec.max_memory_usage_bytes / page)
    swa_groups: int = 0  # groups of sliding-window layers (SlidingWindowSpec)
    sliding_window: int = 0
    in_flight_tokens: int = 0  # VllmConfig.max_in_flight_tokens

    @property
    def bytes_per_block(self) -> int:
        """``_get_kv_cache_bytes_per_block``: the largest group's pages (all pages are equal here)."""
        return self.group_size * self.attn_page_bytes

    @property
    def mamba_padding_bytes(self) -> int:
        return self.attn_page_bytes - self.mamba_state_bytes if self.mamba_layers else 0


def _attn_page_1_token(kv: KvGeometry) -> int:
    """``FullAttentionSpec(block_size=1).page_size_bytes``: heads x (head + v head) x dtype (MLA: one
    latent row)."""
    return kv.per_layer_bytes


def kv_layout(spec: ModelSpec, r: Resolved, kv: KvGeometry, mamba: MambaGeometry | None) -> KvLayout:
    one = _attn_page_1_token(kv)
    block = r.block_size
    draft_layers = 0
    if r.speculative_method == "mtp":
        # The MTP module's attention layer(s) join the KV cache spec (same geometry as the target's).
        draft_layers = max(spec.mtp_layers, 1)
    attn_layers = kv.layers + draft_layers
    state = 0
    if mamba is not None and mamba.layers:
        state = mamba.bytes_per_slot // mamba.layers
        # _align_hybrid_block_size: kernel alignment max(smallest kernel block, block_size) (128 for MLA),
        # attn_block = align x cdiv(mamba_page, align x page_1_token), then a multiple of every backend's
        # smallest kernel block (16).
        align = max(KERNEL_BLOCK_ALIGNMENT, r.block_size)
        if spec.is_mla:
            align = max(align, MLA_KERNEL_BLOCK_ALIGNMENT)
        attn_block = align * math.ceil(state / (align * one))
        attn_block = KERNEL_BLOCK_ALIGNMENT * math.ceil(attn_block / KERNEL_BLOCK_ALIGNMENT)
        block = max(block, attn_block)
    page = block * one
    if not state and spec.sliding_layer_ids and not spec.is_mla:
        # Full and sliding-window layers are two KV cache specs of the same page size:
        # _get_kv_cache_groups_uniform_page_size groups them as it groups attention and Mamba layers.
        swa = len(spec.sliding_layer_ids)
        full = attn_layers - swa
        small, large = min(full, swa), max(full, swa)
        group = large if large < small * 1.5 else small
        # VllmConfig.max_in_flight_tokens (config/vllm.py:601): max_concurrent_batches (2 with the
        # default async scheduling and one pipeline stage, :588) x max_num_batched_tokens
        in_flight = 2 * r.max_num_batched_tokens
        return KvLayout(
            block,
            page,
            0,
            attn_layers,
            0,
            group,
            math.ceil(full / group) if full else 0,
            0,
            0,
            math.ceil(swa / group),
            spec.sliding_window,
            in_flight,
        )
    if not state:
        return KvLayout(block, page, 0, attn_layers, 0, attn_layers, 1 if attn_layers else 0, 0, 0)
    m_layers = mamba.layers if mamba else 0
    # _get_kv_cache_groups_uniform_page_size: group size = the smaller layer count, or the larger when
    # it is below 1.5x the smaller (fewer padding layers).
    small, large = min(attn_layers, m_layers), max(attn_layers, m_layers)
    group = large if large < small * 1.5 else small
    attn_groups = math.ceil(attn_layers / group) if attn_layers else 0
    mamba_groups = math.ceil(m_layers / group)
    # MambaSpec.max_memory_usage_bytes: align mode 2 + speculative blocks, else 1 + speculative blocks
    # (num_speculative_blocks = num_speculative_tokens, MambaBase.get_kv_cache_spec).
    spec_blocks = r.num_speculative_tokens if r.speculative_method else 0
    per_req = (2 if r.mamba_cache_mode == "align" else 1) + spec_blocks
    return KvLayout(block, page, state, attn_layers, m_layers, group, attn_groups, mamba_groups, per_req)


def vllm_mamba_geometry(spec: ModelSpec, r: Resolved) -> MambaGeometry | None:
    """Per-request state as ``model_executor/layers/mamba/mamba_utils.py`` ``MambaStateShapeCalculator``
    (``gated_delta_net_state_shape`` / ``mamba2_state_shape``) shapes it: the same conv and SSM shapes as
    SGLang's, except that the conv window keeps ``conv_kernel - 1 + num_speculative_tokens`` columns with
    speculative decoding. Raises ``ValueError`` when the heads do not split by TP (``divide``)."""
    base = mamba_geometry(spec, r.tp, r.mamba_ssm_cache_dtype)
    if base is None or not r.speculative_method or not r.num_speculative_tokens or spec.conv_kernel < 2:
        return base
    window = spec.conv_kernel - 1
    conv = base.conv_bytes_per_slot // window * (window + r.num_speculative_tokens)
    return replace(base, conv_bytes_per_slot=conv)


def blocks_per_request(lay: KvLayout, max_model_len: int) -> int:
    """``_max_memory_usage_bytes_from_groups`` / ``get_max_concurrency_for_kv_cache_config``: per group
    ``cdiv(max_memory_usage_bytes, page)``; attention ``cdiv(max_model_len, block_size)``."""
    attn = lay.attn_groups * math.ceil(max_model_len / lay.block_size)
    swa = 0
    if lay.swa_groups:
        # SlidingWindowSpec.max_admission_blocks_per_request (v1/kv_cache_interface.py:918): the window
        # plus the in-flight tokens, at most max_model_len, + 1 block for a window not aligned to a block
        tokens = min(lay.sliding_window - 1 + lay.in_flight_tokens, max_model_len)
        swa = lay.swa_groups * (math.ceil(tokens / lay.block_size) + 1)
    return attn + swa + lay.mamba_groups * lay.mamba_blocks_per_request


def needed_bytes(lay: KvLayout, max_model_len: int) -> int:
    return lay.bytes_per_block * blocks_per_request(lay, max_model_len)


def estimate_max_model_len(lay: KvLayout, check_memory: int, upper: int) -> int:
    """``_estimate_max_model_len_from_groups``: binary search over 1..max_model_len (0: nothing fits)."""
    if needed_bytes(lay, 1) > check_memory:
        return 0
    left, right, result = 1, upper, 1
    while left <= right:
        mid = (left + right) // 2
        if needed_bytes(lay, mid) <= check_memory:
            result, left = mid, mid + 1
        else:
            right = mid - 1
    return result


def layout_from(planning: Mapping[str, Any]) -> KvLayout:
    """A ``KvLayout`` back from ``section["vllm"]["planning_input"]`` (the ``--from-log`` comparison)."""
    attn, mamba = int(planning["attn_layers"]), int(planning["mamba_layers"])
    page = int(planning["mamba_page_padded"] or 0)
    if not mamba:
        one = int(planning["num_kv_heads"]) * int(planning["head_size"]) * (1 if planning["mla"] else 2)
        page = int(planning["block_size"]) * int(one * float(planning["kv_element_bytes"]))
        swa = int(planning.get("sliding_layers") or 0)
        if swa:
            full = attn - swa
            small, large = min(full, swa), max(full, swa)
            group = large if large < small * 1.5 else small
            return KvLayout(
                int(planning["block_size"]),
                page,
                0,
                attn,
                0,
                group,
                math.ceil(full / group) if full else 0,
                0,
                0,
                math.ceil(swa / group),
                int(planning["sliding_window"]),
                int(planning["in_flight_tokens"]),
            )
        return KvLayout(int(planning["block_size"]), page, 0, attn, 0, attn, 1 if attn else 0, 0, 0)
    small, large = min(attn, mamba), max(attn, mamba)
    group = large if large < small * 1.5 else small
    per_req = (2 if planning["mamba_cache_mode"] == "align" else 1) + int(planning["num_speculative_blocks"])
    state = int(planning["conv_elems"]) * int(planning["conv_bytes"]) + int(planning["ssm_elems"]) * int(
        planning["ssm_bytes"]
    )
    return KvLayout(
        int(planning["block_size"]),
        page,
        state,
        attn,
        mamba,
        group,
        math.ceil(attn / group),
        math.ceil(mamba / group),
        per_req,
    )


def capacity(lay: KvLayout, available: int, max_model_len: int) -> tuple[int, float]:
    """``get_kv_cache_capacity`` for ``available`` bytes: (GPU KV cache size tokens, max concurrency)."""
    blocks = available // lay.bytes_per_block
    concurrency = blocks / blocks_per_request(lay, max_model_len)
    return int(concurrency * max_model_len), concurrency


def check_message(max_model_len: int, needed: int, available: int, estimated: int) -> str:
    """``_check_enough_kv_cache_memory``'s ValueError text, as 0.33.0 words it."""
    hint = (
        f"Based on the available memory, the estimated maximum model length is {estimated}. "
        if estimated > 0
        else ""
    )
    return (
        f"To serve at least one request with the model's max seq len ({max_model_len}), "
        f"({format_gib(needed)} GiB KV cache is needed, which is larger than the available KV cache "
        f"memory ({format_gib(available)} GiB). {hint}Try increasing `gpu_memory_utilization` (which also "
        "controls CPU memory on the CPU backend) or decreasing `max_model_len` when initializing the engine. "
        "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."
    )


def check_message_08(max_model_len: int, needed: int, available: int) -> str:
    """0.8.1's (and 0.8.3's) ``check_enough_kv_cache_memory`` ValueError (``v1/core/kv_cache_utils.py``
    0.8.1 :477-484): "models's", GB with two decimals, no estimated length."""
    return (
        f"To serve at least one request with the models's max seq len ({max_model_len}), "
        f"({needed / GIB:.2f} GB KV cache is needed, which is larger than the available KV cache memory "
        f"({available / GIB:.2f} GB). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` "
        "when initializing the engine."
    )


NO_MEMORY_MESSAGE_08 = (
    "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing "
    "the engine."
)

NO_MEMORY_MESSAGE = (
    "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing "
    "the engine (this flag also controls CPU memory reservation on the CPU backend, despite its name). "
    "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."
)


@dataclass
class Plan:
    """vLLM's memory plan for one GPU, step by step: weights, activations, CUDA graphs, the memory
    requested and available, and the KV blocks sized from it."""

    resolved: Resolved
    kv: KvGeometry
    mamba: MambaGeometry | None
    layout: KvLayout
    gpu_total_bytes: int
    weights_bytes: int
    draft_weights_bytes: int = 0
    cpu_offloaded_bytes: int = 0  # decoder-layer weights held in CPU memory (--cpu-offload-gb)
    activation_bytes: int = 0  # the profile run's peak: the larger of the two below
    forward_activation_bytes: int = 0
    sampler_bytes: int = 0
    cudagraph_bytes: int = 0
    requested_bytes: int = 0
    available_bytes: int = 0
    available_source: str = "estimate"
    num_blocks: int = 0
    blocks_per_request: int = 0
    needed_bytes: int = 0
    check_memory_bytes: int = 0
    concurrency: float = 0.0
    kv_tokens: int = 0
    estimated_max_model_len: int | None = None
    verdict: str = "fits"
    oom_stage: str | None = None
    margin_bytes: int = 0
    message: str = ""

    @property
    def log_lines(self) -> list[str]:
        """What vLLM 0.33.0 would log (gpu_worker.py, kv_cache_utils.py update_kv_cache_capacity)."""
        lines = [f"Available KV cache memory: {format_gib(self.available_bytes)} GiB"]
        if self.oom_stage is None:
            lines.append(
                f"GPU KV cache size: {self.kv_tokens:,} tokens, Maximum concurrency for "
                f"{self.resolved.max_model_len:,} tokens per request: {self.concurrency:.2f}x"
            )
        return lines

    @property
    def max_running_requests(self) -> int:
        """``max_num_seqs``, for hybrid models capped by the requests whose Mamba states (and one attention
        block each) fit in the shared pool."""
        if not self.layout.mamba_layers:
            return self.resolved.max_num_seqs
        per_req = self.layout.mamba_groups * self.layout.mamba_blocks_per_request + self.layout.attn_groups
        return min(self.resolved.max_num_seqs, max(self.num_blocks - 1, 0) // max(per_req, 1))

    @property
    def mamba_states(self) -> int:
        """Requests whose Mamba state fits in the pool with no attention tokens (vLLM has no separate
        Mamba pool: states and pages share the blocks)."""
        if not self.layout.mamba_layers:
            return 0
        per_req = self.layout.mamba_groups * self.layout.mamba_blocks_per_request
        return max(self.num_blocks - 1, 0) // max(per_req, 1)


def sampler_warmup_bytes(spec: ModelSpec, r: Resolved) -> int:
    """The profile run's sampler warm-up (``_dummy_sampler_run``): ``min(max_num_batched_tokens,
    max_num_seqs)`` dummy requests (gpu/model_runner.py:862 ``_dummy_run``: ``num_reqs = min(num_tokens,
    max_num_reqs)``) x the vocabulary x (model dtype + float32 copy + FlashInfer's masked logits and
    probabilities in float32), plus the
    profile run's hidden states (``max_num_batched_tokens`` x hidden, still referenced while the sampler
    runs, :1034-1050)."""
    rows = max(min(r.max_num_batched_tokens, r.max_num_seqs), 1)
    per_logit = spec.dtype_bytes + (
        4 * SAMPLER_FP32_BUFFERS if r.sampler_bytes_per_logit is None else r.sampler_bytes_per_logit
    )
    hidden = r.max_num_batched_tokens * spec.hidden_size * spec.dtype_bytes
    return rows * spec.vocab_size * per_logit + hidden


def cpu_offloaded_bytes(spec: ModelSpec, r: Resolved) -> int:
    """``--cpu-offload-gb``: ``model_executor/offloader/uva.py`` ``UVAOffloader._maybe_offload_to_cpu`` moves
    the decoder layers' parameters (``make_layers`` wraps only those, ``models/utils.py:913``) to CPU memory,
    whole parameters in layer order, until ``cpu_offload_gb`` GiB (``config/offload.py``: "per GPU") are
    reached: at least that much and at most one parameter more, capped by the layers' bytes. argtrace counts
    exactly ``cpu_offload_gb`` (the overshoot of the last parameter is not known without the model's
    parameter list). With ``--cpu-offload-params`` only matching parameters move; argtrace takes the budget
    as reached (said in a note)."""
    if r.cpu_offload_gb <= 0:
        return 0
    return min(int(r.cpu_offload_gb * GIB), decoder_layers_bytes(spec, r.tp))


def plan(
    spec: ModelSpec,
    r: Resolved,
    weights: WeightEstimate,
    gpu_total_bytes: int,
    available_bytes: int | None = None,
    *,
    last_stage: bool = True,
) -> Plan:
    """One rank's budget. ``available_bytes`` replaces the estimate with a log's own ``Available KV cache
    memory`` (the accuracy tests do this). ``last_stage``: the rank runs the sampler (only the last
    pipeline stage does, ``profile_run``'s ``is_last_pp_rank``). Raises ``ValueError`` when the heads do
    not split by TP."""
    kv = kv_geometry(spec, r.tp, r.kv_cache_dtype)
    mamba = vllm_mamba_geometry(spec, r)
    lay = kv_layout(spec, r, kv, mamba)
    p = Plan(r, kv, mamba, lay, gpu_total_bytes, weights.bytes_per_rank)
    p.cpu_offloaded_bytes = cpu_offloaded_bytes(spec, r)
    p.weights_bytes -= p.cpu_offloaded_bytes
    if r.speculative_method == "mtp":
        p.draft_weights_bytes = weights.draft_bytes_per_rank
    fake = _activation_settings(spec, r)
    p.forward_activation_bytes = activation_estimate(spec, fake)
    p.sampler_bytes = sampler_warmup_bytes(spec, r) if last_stage else 0
    # profile_run: the forward pass, then the sampler warm-up; torch's peak is the larger of the two.
    p.activation_bytes = max(p.forward_activation_bytes, p.sampler_bytes)
    # releases before CUDA-graph profiling capture the graphs after the KV cache (vllm_release.py)
    p.cudagraph_bytes = 0 if r.enforce_eager or not r.cudagraph_before_kv else CUDAGRAPH_BYTES
    # request_memory: ceil(total x gpu_memory_utilization)
    p.requested_bytes = math.ceil(gpu_total_bytes * r.gpu_memory_utilization)
    loaded = p.weights_bytes + p.draft_weights_bytes
    if available_bytes is not None:
        p.available_bytes, p.available_source = int(available_bytes), "log"
    elif r.kv_cache_memory_bytes is not None:
        p.available_bytes, p.available_source = r.kv_cache_memory_bytes, "--kv-cache-memory-bytes"
    else:
        # determine_available_memory: requested - (weights + activation peak + non-torch) - cudagraphs
        non_kv = loaded + p.activation_bytes + NON_TORCH_BYTES
        p.available_bytes = p.requested_bytes - non_kv - p.cudagraph_bytes
    if available_bytes is None and loaded > gpu_total_bytes - NON_TORCH_BYTES:
        p.verdict, p.oom_stage = "oom", "weights" if not p.draft_weights_bytes else "draft"
        p.margin_bytes = gpu_total_bytes - NON_TORCH_BYTES - loaded
        p.message = "the weights alone do not fit on one GPU (CUDA out of memory while loading)"
        return p
    if available_bytes is None and r.kv_cache_memory_bytes is not None:
        # kv_cache_memory_bytes bypasses gpu_memory_utilization: what must fit is the whole GPU.
        over = loaded + p.activation_bytes + NON_TORCH_BYTES + p.cudagraph_bytes + p.available_bytes
        if over > gpu_total_bytes:
            p.verdict, p.oom_stage = "oom", "kv_cache"
            p.margin_bytes = gpu_total_bytes - over
            p.message = (
                f"--kv-cache-memory-bytes {r.kv_cache_memory_bytes} plus weights, activations and CUDA "
                f"graphs exceed the GPU ({format_gib(gpu_total_bytes)} GiB): CUDA out of memory"
            )
            return p
    if p.available_bytes <= 0:
        p.verdict, p.oom_stage = "oom", "kv_cache"
        p.margin_bytes = p.available_bytes
        p.message = NO_MEMORY_MESSAGE_08 if r.kv_check_08 else NO_MEMORY_MESSAGE
        return p
    bpb = lay.bytes_per_block
    if r.engine == "v0":
        return _v0_check(p, r, lay)
    if r.kv_check_08:
        return _check_08(p, r, lay)
    # get_kv_cache_configs: the null block is held back for the check; num_blocks uses all the memory.
    p.check_memory_bytes = p.available_bytes - bpb
    p.blocks_per_request = blocks_per_request(lay, r.max_model_len)
    p.needed_bytes = bpb * p.blocks_per_request
    p.num_blocks = p.available_bytes // bpb
    if p.check_memory_bytes <= 0:
        p.verdict, p.oom_stage = "oom", "kv_cache"
        p.margin_bytes = p.check_memory_bytes
        p.message = NO_MEMORY_MESSAGE
        return p
    if p.needed_bytes > p.check_memory_bytes:
        p.estimated_max_model_len = estimate_max_model_len(lay, p.check_memory_bytes, r.max_model_len)
        p.verdict = "oom"
        p.oom_stage = "mamba_cache" if lay.mamba_layers and p.estimated_max_model_len == 0 else "kv_cache"
        p.margin_bytes = p.check_memory_bytes - p.needed_bytes
        p.message = check_message(
            r.max_model_len, p.needed_bytes, p.check_memory_bytes, p.estimated_max_model_len
        )
        return p
    p.concurrency = p.num_blocks / p.blocks_per_request
    p.kv_tokens = int(p.concurrency * r.max_model_len)
    if r.kv_tokens_from_blocks:
        # 0.10.1 kv_cache_utils.py:1011 / 0.11.0 :1080: num_blocks // number of groups x block size
        groups = max(lay.attn_groups + lay.swa_groups + lay.mamba_groups, 1)
        p.kv_tokens = p.num_blocks // groups * lay.block_size
    p.margin_bytes = p.check_memory_bytes - p.needed_bytes
    return p


def _check_08(p: Plan, r: Resolved, lay: KvLayout) -> Plan:
    """0.8.1/0.8.3: ``check_enough_kv_cache_memory`` (0.8.1 ``v1/core/kv_cache_utils.py:451-484``) compares
    the whole available memory with ``bytes_for_tokens(max_model_len)`` per layer (no null block held back);
    the blocks and the printed "GPU KV cache size" (``num_blocks x block_size``, :535) follow."""
    bpb = lay.bytes_per_block
    p.check_memory_bytes = p.available_bytes
    p.blocks_per_request = blocks_per_request(lay, r.max_model_len)
    p.needed_bytes = bpb * p.blocks_per_request
    p.num_blocks = p.available_bytes // bpb
    if p.needed_bytes > p.available_bytes:
        p.verdict, p.oom_stage = "oom", "kv_cache"
        p.margin_bytes = p.available_bytes - p.needed_bytes
        p.message = check_message_08(r.max_model_len, p.needed_bytes, p.available_bytes)
        return p
    p.concurrency = p.num_blocks / p.blocks_per_request
    groups = max(lay.attn_groups + lay.swa_groups + lay.mamba_groups, 1)
    p.kv_tokens = p.num_blocks // groups * lay.block_size
    p.margin_bytes = p.available_bytes - p.needed_bytes
    return p


def _v0_check(p: Plan, r: Resolved, lay: KvLayout) -> Plan:
    """V0's ``raise_if_cache_size_invalid`` (``worker/worker.py`` 0.6.4.post1 :486-502): ``num_gpu_blocks =
    available // block bytes``; fails when ``max_model_len > block_size x num_gpu_blocks`` (no null block)."""
    bpb = lay.bytes_per_block
    p.num_blocks = p.available_bytes // bpb
    p.check_memory_bytes = p.available_bytes
    p.blocks_per_request = math.ceil(r.max_model_len / lay.block_size)
    p.needed_bytes = bpb * p.blocks_per_request
    max_seq_len = lay.block_size * p.num_blocks
    if r.max_model_len > max_seq_len:
        p.verdict, p.oom_stage = "oom", "kv_cache"
        p.margin_bytes = p.available_bytes - p.needed_bytes
        p.estimated_max_model_len = max_seq_len
        p.message = (
            f"The model's max seq len ({r.max_model_len}) is larger than the maximum number of tokens that "
            f"can be stored in KV cache ({max_seq_len}). Try increasing `gpu_memory_utilization` or "
            "decreasing `max_model_len` when initializing the engine."
        )
        return p
    p.concurrency = p.num_blocks / p.blocks_per_request
    p.kv_tokens = max_seq_len
    p.margin_bytes = p.available_bytes - p.needed_bytes
    return p


def _activation_settings(spec: ModelSpec, r: Resolved) -> SgResolved:
    """The fields ``activation_estimate`` reads: one prefill of ``max_num_batched_tokens`` tokens."""
    return SgResolved(
        tp=r.tp,
        dp=1,
        enable_dp_attention=False,
        mem_fraction_static=r.gpu_memory_utilization,
        mem_fraction_given=True,
        reserved_mem_mb=0,
        chunked_prefill_size=r.max_num_batched_tokens,
        cuda_graph_max_bs=min(r.max_num_seqs, 512),
        disable_cuda_graph=r.enforce_eager,
        piecewise_cuda_graph=False,
        piecewise_tokens=0,
        speculative_algorithm=None,
        speculative_num_steps=None,
        speculative_num_draft_tokens=None,
        max_running_requests=r.max_num_seqs,
        max_total_tokens=None,
        page_size=r.block_size,
        context_len=r.max_model_len,
        mamba_scheduler_strategy="none",
        disable_radix_cache=False,
        disable_overlap_schedule=False,
        max_mamba_cache_size=None,
        mamba_full_memory_ratio=0.0,
        mamba_ssm_dtype=None,
        kv_cache_dtype=r.kv_cache_dtype,
    )


# --- suggestions -----------------------------------------------------------------------------------------

UTIL_CEILING = 0.95  # leave room for the driver, other processes and fragmentation


def _flags(r: Resolved) -> list[str]:
    out = [
        "--gpu-memory-utilization",
        f"{r.gpu_memory_utilization:g}",
        "--max-model-len",
        str(r.max_model_len),
        "--max-num-seqs",
        str(r.max_num_seqs),
    ]
    if r.kv_cache_dtype != "auto":
        out += ["--kv-cache-dtype", r.kv_cache_dtype]
    if r.kv_cache_memory_bytes is not None:
        out += ["--kv-cache-memory-bytes", str(r.kv_cache_memory_bytes)]
    if r.tp != 1:
        out += ["--tensor-parallel-size", str(r.tp)]
    return out


def _settings(r: Resolved) -> dict[str, Any]:
    return {
        "gpu_memory_utilization": r.gpu_memory_utilization,
        "max_model_len": r.max_model_len,
        "max_num_seqs": r.max_num_seqs,
        "kv_cache_dtype": r.kv_cache_dtype,
        "kv_cache_memory_bytes": r.kv_cache_memory_bytes,
        "tensor_parallel_size": r.tp,
    }


def _util_for(
    spec: ModelSpec, r: Resolved, weights: WeightEstimate, gpu_total: int, need: int
) -> float | None:
    """The smallest ``gpu_memory_utilization`` (steps of 0.01, at most 0.95) whose KV budget holds
    ``need`` bytes plus the null block."""
    for step in range(int(r.gpu_memory_utilization * 100) + 1, int(UTIL_CEILING * 100) + 1):
        trial = replace(r, gpu_memory_utilization=step / 100, kv_cache_memory_bytes=None)
        p = plan(spec, trial, weights, gpu_total)
        if p.verdict == "fits" and p.needed_bytes <= need + p.check_memory_bytes:
            return step / 100
    return None


def suggest(
    spec: ModelSpec,
    r: Resolved,
    weights_for: Any,
    gpu: GpuProfile,
    current: Plan,
    gpu_count: int | None,
    kv_bytes_flag: bool = True,
) -> list[dict[str, Any]]:
    """Complete alternative settings that fit, best first, each with what it costs against ``current``.

    Candidates: ``gpu_memory_utilization`` alone (up to 0.95); ``max_model_len`` down to what the budget
    holds (vLLM's own estimate, rounded down to 1024); ``kv_cache_dtype fp8``; ``--kv-cache-memory-bytes``
    sized to the GPU minus everything else (bypasses the utilization); for hybrid models ``max_num_seqs``
    down to what the shared pool holds; ``tensor_parallel_size`` doubled when the weights do not fit.
    ``weights_for(tp)`` counts the weights at another TP size. ``kv_bytes_flag``: the release accepts
    ``--kv-cache-memory-bytes`` (vllm_section.release_accepts); a fix no release that runs takes is no fix.
    """
    total = gpu.total_bytes
    weights = weights_for(r.tp)
    candidates: list[tuple[str, Resolved]] = []
    if r.kv_cache_memory_bytes is None:
        for util in (0.92, UTIL_CEILING):
            if util > r.gpu_memory_utilization:
                candidates.append((f"gpu_memory_utilization {util}", replace(r, gpu_memory_utilization=util)))
    # Each KV budget variant that still cannot hold one max_model_len request, with max_model_len cut to
    # what it holds (vLLM's own estimate, rounded down to a multiple of 1024).
    variants = [("", r)]
    if r.kv_cache_memory_bytes is None and r.gpu_memory_utilization < UTIL_CEILING:
        variants.append(
            (f", gpu_memory_utilization {UTIL_CEILING}", replace(r, gpu_memory_utilization=UTIL_CEILING))
        )
    if KV_DTYPE_BYTES.get(r.kv_cache_dtype.lower()) != 1 and not spec.is_mla:
        variants.append((", kv_cache_dtype fp8", replace(r, kv_cache_dtype="fp8")))
    for suffix, variant in variants:
        try:
            vp = current if variant is r else plan(spec, variant, weights, total)
        except ValueError:
            continue
        if vp.estimated_max_model_len:
            shorter = vp.estimated_max_model_len // 1024 * 1024 or vp.estimated_max_model_len
            candidates.append((f"max_model_len {shorter}{suffix}", replace(variant, max_model_len=shorter)))
    if KV_DTYPE_BYTES.get(r.kv_cache_dtype.lower()) != 1 and not spec.is_mla:
        candidates.append(("kv_cache_dtype fp8", replace(r, kv_cache_dtype="fp8")))
        if r.kv_cache_memory_bytes is None:
            candidates.append(
                (
                    "kv_cache_dtype fp8, gpu_memory_utilization 0.95",
                    replace(r, kv_cache_dtype="fp8", gpu_memory_utilization=UTIL_CEILING),
                )
            )
    rest = (
        total
        - (weights.bytes_per_rank - current.cpu_offloaded_bytes)
        - current.draft_weights_bytes
        - current.activation_bytes
        - current.cudagraph_bytes
        - NON_TORCH_BYTES
        - 2 * SAFETY_BYTES
    )
    if rest > 0 and kv_bytes_flag:
        candidates.append(("--kv-cache-memory-bytes", replace(r, kv_cache_memory_bytes=int(rest))))
    if (
        current.layout.mamba_layers
        and current.verdict == "fits"
        and current.max_running_requests < r.max_num_seqs
    ):
        candidates.append(
            (
                f"max_num_seqs {current.max_running_requests}",
                replace(r, max_num_seqs=current.max_running_requests),
            )
        )
    tp = r.tp
    while current.oom_stage in ("weights", "draft") and tp < 8:
        tp *= 2
        candidates.append((f"tensor_parallel_size {tp}", replace(r, tp=tp)))
    out: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for label, trial in candidates:
        try:
            p = plan(spec, trial, weights_for(trial.tp), total)
        except ValueError:
            continue
        if p.verdict != "fits":
            continue
        if p.layout.mamba_layers and 0 < p.max_running_requests < trial.max_num_seqs:
            # Complete settings: cap max_num_seqs at the requests whose states the shared pool holds (more
            # would only queue; fewer CUDA graph sizes are captured).
            trial = replace(trial, max_num_seqs=p.max_running_requests)
        key = tuple(_flags(trial))
        if key in seen:
            continue
        seen.add(key)
        cost = {
            "tokens": p.kv_tokens - current.kv_tokens,
            "max_model_len": trial.max_model_len - r.max_model_len,
            "running_requests": p.max_running_requests - current.max_running_requests,
        }
        words: list[str] = []
        if trial.max_model_len < r.max_model_len:
            words.append(f"max_model_len {trial.max_model_len} instead of {r.max_model_len}")
        if current.verdict == "fits" and cost["tokens"]:
            words.append(f"{cost['tokens']:+,} KV tokens")
        if p.max_running_requests < current.max_running_requests or (
            current.verdict != "fits" and p.max_running_requests < r.max_num_seqs
        ):
            words.append(f"{p.max_running_requests} running requests instead of {r.max_num_seqs}")
        if trial.kv_cache_dtype != r.kv_cache_dtype:
            words.append("fp8 KV cache (lower precision attention cache)")
        if trial.kv_cache_memory_bytes is not None and r.kv_cache_memory_bytes is None:
            words.append("bypasses gpu_memory_utilization: the GPU must be otherwise empty")
        if trial.gpu_memory_utilization > r.gpu_memory_utilization and trial.kv_cache_memory_bytes is None:
            words.append(f"{(1 - trial.gpu_memory_utilization) * total / GIB:.2f} GiB left outside vLLM")
        if trial.tp != r.tp:
            short = gpu_count is not None and trial.tp > gpu_count
            words.append(f"{trial.tp} GPUs" + (f" (--gpu has {gpu_count})" if short else ""))
        out.append(
            {
                "label": label,
                "settings": _settings(trial),
                "flags": _flags(trial),
                "max_total_num_tokens": p.kv_tokens,
                "max_mamba_cache_size": p.mamba_states if p.layout.mamba_layers else None,
                "max_running_requests": p.max_running_requests,
                "margin_bytes": p.margin_bytes,
                "max_concurrency": round(p.concurrency, 2),
                "cost": ", ".join(words) or "none",
                "cost_detail": cost,
            }
        )
    # The same model quality and GPU count first, then the longest context, most requests, most tokens.
    out.sort(
        key=lambda s: (
            -s["settings"]["tensor_parallel_size"],
            (s["settings"]["kv_cache_memory_bytes"] is None) == (r.kv_cache_memory_bytes is None),
            s["settings"]["kv_cache_dtype"] == r.kv_cache_dtype,
            s["settings"]["max_model_len"],
            s["max_running_requests"],
            s["max_total_num_tokens"],
        ),
        reverse=True,
    )
    return out[:5]


def settings_with(r: Resolved, **changes: Any) -> Resolved:
    return replace(r, **changes)


__all__ = [
    "SSM_DTYPE_BYTES",
    "KvLayout",
    "Plan",
    "Resolved",
    "batch_defaults",
    "check_message",
    "kv_layout",
    "plan",
    "resolve_args",
    "suggest",
]
