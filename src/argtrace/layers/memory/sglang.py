"""SGLang 0.5.10.post1: how the server sizes its memory, re-derived step by step.

Each function names the framework file and function it follows (paths relative to ``sglang/srt/``):

- ``resolve_args``: ``server_args.py`` ``ServerArgs._handle_gpu_memory_settings`` (chunked prefill, CUDA
  graph batch sizes, the default ``mem_fraction_static`` and its ``reserved_mem``),
  ``adjust_mem_fraction_for_vlm``,
  ``_handle_piecewise_cuda_graph``, ``_handle_speculative_decoding`` (NEXTN -> EAGLE, 48 running requests,
  ``auto_choose_speculative_params``), ``_handle_missing_default_values`` (``mamba_scheduler_strategy``
  auto -> no_buffer), ``_handle_mamba_radix_cache`` (no_buffer disables the overlap schedule).
- ``plan``: ``model_executor/model_runner_kv_cache_mixin.py`` ``profile_max_num_token``,
  ``handle_max_mamba_cache``, ``_resolve_token_capacity``, ``_resolve_max_num_reqs``,
  ``_calculate_mamba_ratio``; pool allocation sizes from ``mem_cache/memory_pool.py`` (``MambaPool`` has
  ``size + 1`` slots and speculative intermediate buffers of ``max_running_requests + 1`` slots;
  ``MHATokenToKVPool`` holds ``size + page_size`` tokens); hybrid sliding-window models
  (``configs/model_config.py`` ``is_hybrid_swa_model``) split the token capacity into a full-attention and
  a sliding-window pool (``_resolve_hybrid_swa_tokens``, ``mem_cache/swa_memory_pool.py`` ``SWAKVPool``).

What is not modelled is listed in ``docs/memory.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from argtrace.gpus import GIB, MIB, GpuProfile
from argtrace.layers.memory.config import ModelSpec
from argtrace.layers.memory.draft import draft_is_whole_target
from argtrace.layers.memory.settings import setting
from argtrace.layers.memory.state import KvGeometry, MambaGeometry, kv_geometry, mamba_geometry
from argtrace.layers.memory.weights import WeightEstimate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VERSION = "0.5.10.post1"

# model_runner_kv_cache_mixin.py (0.5.10.post1) module constants
MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO = 3
MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP = 2
MAMBA_CACHE_V2_ADDITIONAL_RATIO_NO_OVERLAP = 1

# Free memory the CUDA context, NCCL and torch take before weights load (``Load weight begin. avail mem``
# is total minus this). Measured in public logs: 0.71 GiB on an RTX 4090 at TP=2 (Qwen3.5-9B fixture).
CONTEXT_OVERHEAD_BYTES = int(0.60 * GIB)
CONTEXT_OVERHEAD_TP_BYTES = int(0.10 * GIB)

# configs/model_config.py:1438 is_hybrid_swa_model (0.5.10.post1). Gemma 2/3 are not in it (and
# server_args.py:1866-1877 sets disable_hybrid_swa_memory for them): every Gemma layer is sized at full
# length. Llama4/MiMo/Step3p5 take their layer kinds from other fields (get_hybrid_layer_ids); argtrace
# splits only models whose config.json lists them in ``layer_types`` (GPT-OSS).
HYBRID_SWA_ARCHITECTURES = frozenset(
    {
        "Llama4ForConditionalGeneration",
        "GptOssForCausalLM",
        "MiMoV2FlashForCausalLM",
        "MiMoV2MTP",
        "Step3p5ForCausalLM",
        "Step3p5MTP",
    }
)
SWA_FULL_TOKENS_RATIO = 0.8  # server_args.py:360 ServerArgs.swa_full_tokens_ratio

OOM_STAGES = ("weights", "kv_cache", "mamba_cache", "draft", "cuda_graph", "activations")


@dataclass
class Resolved:
    """The memory-relevant ``ServerArgs`` fields after 0.5.10.post1's ``__post_init__``."""

    tp: int
    dp: int
    enable_dp_attention: bool
    mem_fraction_static: float
    mem_fraction_given: bool
    reserved_mem_mb: float
    chunked_prefill_size: int
    cuda_graph_max_bs: int
    disable_cuda_graph: bool
    piecewise_cuda_graph: bool
    piecewise_tokens: int
    speculative_algorithm: str | None
    speculative_num_steps: int | None
    speculative_num_draft_tokens: int | None
    max_running_requests: int | None
    max_total_tokens: int | None
    page_size: int
    context_len: int
    mamba_scheduler_strategy: str
    disable_radix_cache: bool
    disable_overlap_schedule: bool
    max_mamba_cache_size: int | None
    mamba_full_memory_ratio: float
    mamba_ssm_dtype: str | None
    kv_cache_dtype: str
    notes: list[str] = field(default_factory=list)
    swa_full_tokens_ratio: float = SWA_FULL_TOKENS_RATIO
    disable_hybrid_swa_memory: bool = False
    draft_is_target: bool = False  # the draft path names the target checkpoint again (draft.py)

    @property
    def extra_buffer(self) -> bool:
        return self.mamba_scheduler_strategy == "extra_buffer"


@dataclass
class Plan:
    """SGLang's memory plan for one GPU, step by step: the free memory after loading the weights, what is
    reserved, and the KV and Mamba pools sized from the rest."""

    resolved: Resolved
    kv: KvGeometry
    mamba: MambaGeometry | None
    gpu_total_bytes: int
    pre_load_bytes: int
    weights_bytes: int
    post_load_bytes: int
    rest_bytes: float = 0.0
    spec_reserve_bytes: float = 0.0
    max_mamba_cache_size: int = 0
    mamba_bytes: int = 0
    mamba_spec_bytes: int = 0
    max_total_num_tokens: int = 0
    # hybrid sliding-window models: the sliding layers' pool (the full layers' is max_total_num_tokens)
    swa_max_total_num_tokens: int | None = None
    kv_pool_bytes: int = 0
    max_running_requests: int = 0
    draft_weights_bytes: int = 0
    draft_kv_bytes: int = 0
    leftover_bytes: int = 0
    cuda_graph_bytes: int = 0
    cuda_graph_range: tuple[int, int] = (0, 0)
    activation_bytes: int = 0
    verdict: str = "fits"
    oom_stage: str | None = None
    margin_bytes: int = 0
    message: str = ""

    @property
    def draft_bytes(self) -> int:
        return self.draft_weights_bytes + self.draft_kv_bytes

    @property
    def reserved_bytes(self) -> int:
        return self.cuda_graph_bytes + self.activation_bytes


@dataclass(frozen=True)
class FixedPools:
    """Pool sizes computed by SGLang's own code (``framework_sizing.py``); ``plan`` then allocates them."""

    max_total_num_tokens: int
    max_mamba_cache_size: int
    max_running_requests: int
    version: str = VERSION  # the release whose code computed them


def _gpu_tier(gpu_mem_mib: float | None, tp: int) -> tuple[int, int]:
    """(chunked_prefill_size, cuda_graph_max_bs) from ``_handle_gpu_memory_settings`` (server_args.py)."""
    if gpu_mem_mib is None:
        return 4096, 160
    if gpu_mem_mib < 20 * 1024:
        return 2048, 8
    if gpu_mem_mib < 35 * 1024:
        return 2048, 24 if tp < 4 else 80
    if gpu_mem_mib < 60 * 1024:
        return 4096, 32 if tp < 4 else 160
    if gpu_mem_mib < 160 * 1024:
        return 8192, 256 if tp < 4 else 512
    return 16384, 512


def _piecewise_token_count(max_tokens: int) -> int:
    """``_generate_piecewise_cuda_graph_tokens`` (server_args.py): the number of capture sizes."""
    sizes = (
        list(range(4, 33, 4))
        + list(range(48, 257, 16))
        + list(range(288, 513, 32))
        + list(range(576, 1024 + 1, 64))
        + list(range(1280, 4096 + 1, 256))
        + list(range(4608, max_tokens + 1, 512))
    )
    return len([s for s in sizes if s <= max_tokens])


def _vlm_factor(spec: ModelSpec) -> float:
    """``adjust_mem_fraction_for_vlm`` (server_args.py): a factor from the ViT's size."""
    v = spec.vision or {}
    # ``getattr(vision_config, "num_hidden_layers", 24)``: a Qwen3.5/3.6 ViT names its layer count ``depth``,
    # which SGLang does not read, so 24 applies (0.5.10.post1's own code gives 0.7592 for Qwen3.6-27B on an
    # RTX PRO 6000 where reading ``depth`` gave 0.7469: tests/memory/test_framework_sizing.py).
    layers = int(v.get("num_hidden_layers", 24) or 24)
    hidden = int(v.get("hidden_size", 1024) or 1024)
    ratio = layers * hidden**2 / (24 * 1024**2)
    adjust = max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))
    return 0.95 * adjust


PIECEWISE_DISABLED_ARCHS = (
    "DeepseekV32ForCausalLM",
    "Qwen3NextForCausalLM",
    "GlmMoeDsaForCausalLM",
    "BailingMoeV2_5ForCausalLM",
    "LLaDAModelLM",
)


def resolve_args(
    spec: ModelSpec, gpu: GpuProfile | None, settings: Mapping[str, Any], env: Mapping[str, str]
) -> Resolved:
    notes: list[str] = []
    tp = int(setting(settings, "tp_size", 1))
    dp = int(setting(settings, "dp_size", 1))
    dp_attn = bool(setting(settings, "enable_dp_attention", False))
    algo = setting(settings, "speculative_algorithm")
    algo = str(algo).upper() if algo else None
    if algo == "NEXTN":
        algo = "EAGLE"
        notes.append("speculative_algorithm NEXTN -> EAGLE (_handle_speculative_decoding)")
    # _handle_piecewise_cuda_graph
    piecewise = not bool(setting(settings, "disable_piecewise_cuda_graph", False))
    if not setting(settings, "enforce_piecewise_cuda_graph", False) and (
        spec.architecture in PIECEWISE_DISABLED_ARCHS or algo is not None or dp_attn
    ):
        piecewise = False
    gpu_mem = float(gpu.smi_total_mib) if gpu else None
    chunked_default, graph_bs_default = _gpu_tier(gpu_mem, tp)
    chunked = int(setting(settings, "chunked_prefill_size", chunked_default))
    graph_bs = setting(settings, "cuda_graph_bs")
    cuda_graph_max_bs = (
        int(max(graph_bs)) if graph_bs else int(setting(settings, "cuda_graph_max_bs", graph_bs_default))
    )
    max_total_tokens = setting(settings, "max_total_tokens")
    pw_max = chunked if not spec.is_mla else 2048
    if max_total_tokens is not None:
        pw_max = min(pw_max, int(max_total_tokens))
    pw_tokens = _piecewise_token_count(pw_max)
    frac = setting(settings, "mem_fraction_static")
    given = frac is not None
    # _handle_gpu_memory_settings: reserved_mem in MB
    reserved = 512.0
    reserved += (
        max(chunked, 2048) * 1.5
        if chunked > 0
        else max(int(setting(settings, "max_prefill_tokens", 16384)), 2048) * 1.5
    )
    reserved += cuda_graph_max_bs * 2
    reserved += tp * int(setting(settings, "pp_size", 1)) / 8 * 1024
    if dp_attn:
        reserved += cuda_graph_max_bs * dp * 3
        if cuda_graph_max_bs > 300:
            reserved += cuda_graph_max_bs * dp * 1.5
    if piecewise:
        reserved += pw_tokens * 8 if not spec.is_mla else 1.5 * 1024
    if gpu_mem is not None and gpu_mem > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    if algo == "STANDALONE":
        reserved += 6 * 1024
    elif algo is not None and algo != "NGRAM":
        reserved += 4 * 1024
    if not given:
        frac = round((gpu_mem - reserved) / gpu_mem, 3) if gpu_mem else 0.88
        multimodal = spec.vision is not None and not setting(settings, "language_only", False)
        if multimodal:
            factor = _vlm_factor(spec)
            frac = frac * factor
            notes.append(
                f"mem_fraction_static x{factor:.4f} for the vision tower (adjust_mem_fraction_for_vlm)"
            )
    # _handle_speculative_decoding
    mrr = setting(settings, "max_running_requests")
    steps = setting(settings, "speculative_num_steps")
    draft_tokens = setting(settings, "speculative_num_draft_tokens")
    topk = setting(settings, "speculative_eagle_topk")
    disable_overlap = bool(setting(settings, "disable_overlap_schedule", False))
    spec_v2 = str(env.get("SGLANG_ENABLE_SPEC_V2", "")).lower() in ("1", "true", "yes", "on")
    if algo in ("EAGLE", "EAGLE3", "STANDALONE"):
        if mrr is None:
            mrr = 48
            notes.append("max_running_requests -> 48 for speculative decoding (_handle_speculative_decoding)")
        disable_overlap = not spec_v2 or disable_overlap
        if steps is None:
            steps, topk, draft_tokens = 3, 1, 4  # auto_choose_speculative_params default
            if spec.architecture == "LlamaForCausalLM":
                steps, topk, draft_tokens = 5, 4, 8
        if topk == 1 and draft_tokens != int(steps) + 1:
            draft_tokens = int(steps) + 1
    elif algo == "NGRAM":
        if mrr is None:
            mrr = 48
        disable_overlap = True
        draft_tokens = draft_tokens if draft_tokens is not None else 12
    # 0.5.15+ renamed the dest to mamba_radix_cache_strategy (the old flag is an alias); 0.5.10.post1 knows
    # auto/no_buffer/extra_buffer only (MAMBA_SCHEDULER_STRATEGY_CHOICES): extra_buffer_lazy of later
    # versions is sized like extra_buffer here, with a note.
    strategy = str(
        setting(settings, "mamba_scheduler_strategy")
        or setting(settings, "mamba_radix_cache_strategy")
        or "auto"
    )
    if strategy == "extra_buffer_lazy":
        notes.append("extra_buffer_lazy is not a 0.5.10.post1 strategy; sized as extra_buffer")
        strategy = "extra_buffer"
    if strategy == "auto":
        strategy = "no_buffer"
    disable_radix = bool(setting(settings, "disable_radix_cache", False))
    if spec.is_hybrid and strategy == "no_buffer" and not disable_radix and algo is None:
        disable_overlap = True
    context_len = int(setting(settings, "context_length", spec.context_length or 4096))
    draft_is_target = draft_is_whole_target(settings, spec.architecture, algo)
    if draft_is_target:
        notes.append(
            f"the draft model path is the model path and {spec.architecture} has no MTP draft class "
            "(configs/model_config.py _config_draft_model): the draft worker loads the whole model again"
        )
    return Resolved(
        tp=tp,
        dp=dp,
        enable_dp_attention=dp_attn,
        mem_fraction_static=float(frac),
        mem_fraction_given=given,
        reserved_mem_mb=reserved,
        chunked_prefill_size=chunked,
        cuda_graph_max_bs=cuda_graph_max_bs,
        disable_cuda_graph=bool(setting(settings, "disable_cuda_graph", False)),
        piecewise_cuda_graph=piecewise,
        piecewise_tokens=pw_tokens,
        speculative_algorithm=algo,
        speculative_num_steps=int(steps) if steps is not None else None,
        speculative_num_draft_tokens=int(draft_tokens) if draft_tokens is not None else None,
        max_running_requests=int(mrr) if mrr is not None else None,
        max_total_tokens=int(max_total_tokens) if max_total_tokens is not None else None,
        page_size=int(setting(settings, "page_size", 1)),
        context_len=context_len,
        mamba_scheduler_strategy=strategy,
        disable_radix_cache=disable_radix,
        disable_overlap_schedule=disable_overlap,
        max_mamba_cache_size=setting(settings, "max_mamba_cache_size"),
        mamba_full_memory_ratio=float(setting(settings, "mamba_full_memory_ratio", 0.9)),
        draft_is_target=draft_is_target,
        mamba_ssm_dtype=setting(settings, "mamba_ssm_dtype") or env.get("SGLANG_MAMBA_SSM_DTYPE"),
        kv_cache_dtype=str(setting(settings, "kv_cache_dtype", "auto")),
        notes=notes,
        swa_full_tokens_ratio=float(setting(settings, "swa_full_tokens_ratio", SWA_FULL_TOKENS_RATIO)),
        disable_hybrid_swa_memory=bool(setting(settings, "disable_hybrid_swa_memory", False)),
    )


def activation_estimate(spec: ModelSpec, r: Resolved) -> int:
    """Peak activations of one prefill chunk, per rank (argtrace's estimate, not a framework formula).

    SGLang 0.5.10.post1 does not compute activations: it reserves ``512 + chunked_prefill_size * 1.5`` MB
    through ``mem_fraction_static`` (``_handle_gpu_memory_settings``), a deliberately generous heuristic.
    Using that as the need would call launches that run fine OOM, so the verdict uses: a 512 MiB workspace
    (attention/sampling metadata) plus ``chunked_prefill_size`` tokens x (4 hidden states + the widest MLP,
    MoE or linear-attention intermediate on this rank) in the model dtype.
    """
    tp = max(r.tp, 1)
    tokens = max(r.chunked_prefill_size, 1)
    dense = 3 * spec.intermediate_size // tp
    moe = (
        2 * 2 * spec.moe_intermediate_size * max(spec.num_experts_per_tok, 1) // tp if spec.num_experts else 0
    )
    linear = (
        2
        * (
            spec.linear_num_key_heads * spec.linear_key_head_dim * 2
            + spec.linear_num_value_heads * spec.linear_value_head_dim * 2
        )
        // tp
    )
    per_token = (4 * spec.hidden_size + max(dense, moe, linear)) * 2
    return int(512 * MIB + tokens * per_token)


def hybrid_swa_layers(spec: ModelSpec, r: Resolved) -> tuple[int, int] | None:
    """(full-attention layers, sliding-window layers) when SGLang pools them apart
    (``ModelConfig._derive_hybrid_model``: ``is_hybrid_swa_model`` and not ``disable_hybrid_swa_memory``),
    else None."""
    if r.disable_hybrid_swa_memory or spec.architecture not in HYBRID_SWA_ARCHITECTURES:
        return None
    swa = len(spec.sliding_layer_ids)
    if not swa or not spec.sliding_window:
        return None
    return len(spec.layer_types) - swa, swa


def split_hybrid_swa(tokens: int, layers: tuple[int, int], r: Resolved) -> tuple[int, int]:
    """``_resolve_hybrid_swa_tokens`` (model_runner_kv_cache_mixin.py:287-371): the profiled capacity of
    all layers at one length is re-split so that ``swa_tokens = full_tokens x swa_full_tokens_ratio``,
    both page-aligned; returns (full_tokens, swa_tokens). Full and sliding layers have the same KV heads
    and dims here (GPT-OSS), so the per-token sizes cancel out of the solution."""
    full_layers, swa_layers = layers
    page = max(r.page_size, 1)
    if full_layers == 0:
        swa_tokens = tokens // page * page
        return 0, swa_tokens
    total_memory = tokens * (full_layers + swa_layers)
    denominator = full_layers + r.swa_full_tokens_ratio * swa_layers
    full_tokens = int(total_memory / denominator) // page * page
    return full_tokens, int(full_tokens * r.swa_full_tokens_ratio) // page * page


def mamba_ratio(r: Resolved) -> int:
    """``_calculate_mamba_ratio``: mamba slots per running request."""
    if r.disable_radix_cache:
        return 1
    extra = 0
    if r.extra_buffer:
        extra = (
            MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP
            if not r.disable_overlap_schedule
            else MAMBA_CACHE_V2_ADDITIONAL_RATIO_NO_OVERLAP
        )
    return MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO + extra


def plan(
    spec: ModelSpec,
    r: Resolved,
    weights: WeightEstimate,
    gpu_total_bytes: int,
    pre_load_bytes: int | None = None,
    post_load_bytes: int | None = None,
    fixed: FixedPools | None = None,
    *,
    caches: ModelSpec | None = None,
    mamba_budget_layers: int | None = None,
) -> Plan:
    """Run the model runner's sizing for one rank. ``pre_load_bytes``/``post_load_bytes`` override the
    estimates with a log's own ``Load weight begin/end. avail mem`` (the accuracy tests do this). ``fixed``:
    the pool sizes SGLang's own code computed in a resolver environment, used instead of the formulas.
    ``caches``: one pipeline stage's view of the model (``pipeline.stage_spec``): its KV and Mamba layers
    only; ``mamba_budget_layers``: the Mamba layers SGLang charges per slot when budgeting under PP
    (``pipeline.sglang_mamba_budget_layers``), while the pool allocates the stage's own."""
    own = caches or spec
    attn_tp = r.tp // r.dp if r.enable_dp_attention else r.tp
    kv = kv_geometry(own, r.tp, r.kv_cache_dtype, attn_tp=attn_tp)
    # the Mamba / linear-attention state is split like the attention: configs/qwen3_next.py:291 and
    # configs/nemotron_h.py:422 (0.5.10.post1) pass get_attention_tp_size() to Mamba2StateShape.create
    mamba = mamba_geometry(own, attn_tp, r.mamba_ssm_dtype)
    budget_per_slot = mamba.bytes_per_slot if mamba is not None else 0
    if mamba is not None and mamba_budget_layers is not None:
        whole = mamba_geometry(spec, attn_tp, r.mamba_ssm_dtype)
        assert whole is not None
        budget_per_slot = whole.bytes_per_slot // max(whole.layers, 1) * mamba_budget_layers
    if pre_load_bytes is None:
        pre_load_bytes = (
            gpu_total_bytes - CONTEXT_OVERHEAD_BYTES - (CONTEXT_OVERHEAD_TP_BYTES if r.tp > 1 else 0)
        )
    weights_bytes = weights.bytes_per_rank
    if post_load_bytes is None:
        post_load_bytes = pre_load_bytes - weights_bytes
    else:
        weights_bytes = pre_load_bytes - post_load_bytes
    p = Plan(r, kv, mamba, gpu_total_bytes, pre_load_bytes, weights_bytes, post_load_bytes)
    # Under PP a stage's view keeps the model's sliding-layer ids, not its own: the split is not applied
    # there (every stage sized at one length; docs/memory.md).
    swa_layers = hybrid_swa_layers(own, r) if caches is None and kv.layers == len(own.layer_types) else None
    # Estimates of what SGLang measures at run time, from its own reserved_mem heuristic (MB).
    graph_mb = 0.0 if r.disable_cuda_graph else r.cuda_graph_max_bs * 2.0
    if r.piecewise_cuda_graph and not r.disable_cuda_graph:
        graph_mb += r.piecewise_tokens * 8 if not spec.is_mla else 1.5 * 1024
    # Measured captures in public logs: 0.26 GB for batch sizes up to 24 of a hybrid GDN model on an RTX 4090
    # (1x this estimate with its 256 MiB floor), 0.10 GB for a 27B hybrid on an H100 (0.2x): keep a floor
    # and report 0.2x-2x as the range.
    p.cuda_graph_bytes = int(max(graph_mb, 256.0) * MIB) if not r.disable_cuda_graph else 0
    p.cuda_graph_range = (int(p.cuda_graph_bytes * 0.2), int(p.cuda_graph_bytes * 2))
    p.activation_bytes = activation_estimate(spec, r)
    dp_div = r.dp if r.enable_dp_attention else 1

    if weights_bytes > pre_load_bytes:
        p.verdict, p.oom_stage = "oom", "weights"
        p.margin_bytes = pre_load_bytes - weights_bytes
        p.message = "the weights alone do not fit on one GPU"
        return p

    # profile_max_num_token: rest_memory in GiB, as the framework computes it
    rest = post_load_bytes / GIB - pre_load_bytes / GIB * (1 - r.mem_fraction_static)
    p.rest_bytes = rest * GIB
    if rest <= 0:
        p.verdict, p.oom_stage = "oom", "kv_cache"
        p.margin_bytes = int(rest * GIB)
        p.message = "Not enough memory. Please try to increase --mem-fraction-static."
        return p
    if fixed is not None:
        # SGLang's own code sized the pools (framework_sizing.py): only their allocation is argtrace's.
        tokens, reqs = fixed.max_total_num_tokens, fixed.max_running_requests
        p.max_total_num_tokens = tokens
        if swa_layers is not None:
            p.swa_max_total_num_tokens = int(tokens * r.swa_full_tokens_ratio) // r.page_size * r.page_size
        if mamba is not None:
            p.max_mamba_cache_size = fixed.max_mamba_cache_size
            if (
                r.speculative_algorithm is not None
                and r.speculative_num_draft_tokens
                and r.max_running_requests
            ):
                # 0.5.10.post1 reserves for every requested running request up front; from 0.5.15.post1
                # handle_max_mamba_cache solves slots and reserve together and reserves for the running
                # requests the slots allow: the final max_running_requests SGLang reported.
                reserved_for = r.max_running_requests
                if fixed.version != VERSION and fixed.max_running_requests:
                    reserved_for = min(reserved_for, fixed.max_running_requests)
                p.spec_reserve_bytes = (
                    budget_per_slot * (reserved_for // dp_div) * r.speculative_num_draft_tokens
                )
    else:
        if mamba is not None:
            per_req = max(budget_per_slot, 1)
            if (
                r.speculative_algorithm is not None
                and r.speculative_num_draft_tokens
                and r.max_running_requests
            ):
                p.spec_reserve_bytes = (
                    per_req * (r.max_running_requests // dp_div) * r.speculative_num_draft_tokens
                )
                rest -= p.spec_reserve_bytes / GIB
            if r.max_mamba_cache_size is not None:
                slots = int(r.max_mamba_cache_size) // dp_div
            elif r.disable_radix_cache and r.max_running_requests is not None:
                slots = r.max_running_requests // dp_div
            else:
                raw = rest * r.mamba_full_memory_ratio / (1 + r.mamba_full_memory_ratio)
                slots = int((raw * GIB) // per_req)
            p.max_mamba_cache_size = slots
            before_slots = rest
            rest -= slots * per_req / GIB
            if slots <= 0 or rest <= 0:
                p.verdict, p.oom_stage = "oom", "mamba_cache"
                # Short by what one slot needs on top of what is left before the slots: a negative slot count
                # (the speculative reserve already overdrew) must not hand memory back.
                p.margin_bytes = int(before_slots * GIB) - per_req if slots <= 0 else int(rest * GIB)
                p.message = (
                    f"not enough memory for the Mamba state cache: max_mamba_cache_size={slots}, "
                    f"rest after it {rest:.2f} GB"
                )
                return p
        tokens = int(rest * GIB) // max(kv.bytes_per_token, 1)
        if r.max_total_tokens is not None:
            tokens = min(tokens, r.max_total_tokens)
        tokens = tokens // r.page_size * r.page_size
        p.max_total_num_tokens = tokens
        if tokens <= 0:
            p.verdict, p.oom_stage = "oom", "kv_cache"
            p.margin_bytes = int(rest * GIB)
            p.message = "Not enough memory. Please try to increase --mem-fraction-static."
            return p
        if swa_layers is not None:
            # _resolve_memory_pool_config: the split comes after _resolve_token_capacity, and
            # max_running_requests is resolved from the full layers' tokens.
            tokens, p.swa_max_total_num_tokens = split_hybrid_swa(tokens, swa_layers, r)
            p.max_total_num_tokens = tokens
        # _resolve_max_num_reqs
        estimated = max(min(int(tokens / max(r.context_len, 1) * 512), 4096), 2048)
        if r.max_running_requests is not None:
            reqs = min(r.max_running_requests // r.dp, estimated)
        else:
            reqs = min(estimated, tokens // 2)
        if mamba is not None:
            reqs = min(reqs, p.max_mamba_cache_size // mamba_ratio(r))
    p.max_running_requests = reqs
    # Allocations (memory_pool.py): KV pool size + page_size tokens, MambaPool size + 1 slots; SWAKVPool
    # (swa_memory_pool.py) one such pool over the full layers and one of size_swa over the sliding ones.
    p.kv_pool_bytes = (tokens + r.page_size) * kv.bytes_per_token
    if swa_layers is not None and p.swa_max_total_num_tokens is not None:
        full_layers, sliding = swa_layers
        p.kv_pool_bytes = (tokens + r.page_size) * kv.per_layer_bytes * full_layers + (
            p.swa_max_total_num_tokens + r.page_size
        ) * kv.per_layer_bytes * sliding
    if mamba is not None:
        p.mamba_bytes = (p.max_mamba_cache_size + 1) * mamba.bytes_per_slot
        if r.speculative_num_draft_tokens is not None and r.speculative_algorithm is not None:
            p.mamba_spec_bytes = (reqs + 1) * r.speculative_num_draft_tokens * mamba.bytes_per_slot
    pools = p.kv_pool_bytes + p.mamba_bytes + p.mamba_spec_bytes
    p.leftover_bytes = post_load_bytes - pools
    # Draft worker (speculative_worker -> ModelRunner(is_draft_worker=True)): its weights, then a KV pool
    # of the same max_total_num_tokens over the MTP layers (hybrid models: one layer,
    # full_attention_layer_ids=[0]).
    if r.draft_is_target and r.speculative_algorithm in ("EAGLE", "EAGLE3", "STANDALONE"):
        # draft.py: the whole checkpoint again, and a pool of the same tokens over all its KV layers
        p.draft_weights_bytes = weights.bytes_per_rank
        p.draft_kv_bytes = (tokens + r.page_size) * kv.per_layer_bytes * kv.layers
    elif r.speculative_algorithm in ("EAGLE", "EAGLE3"):
        p.draft_weights_bytes = weights.draft_bytes_per_rank
        draft_layers = 1 if spec.is_hybrid else max(spec.mtp_layers, 1)
        p.draft_kv_bytes = (tokens + r.page_size) * kv.per_layer_bytes * draft_layers
    budget = p.leftover_bytes
    for stage, need in (
        ("draft", p.draft_bytes),
        ("cuda_graph", p.cuda_graph_bytes),
        ("activations", p.activation_bytes),
    ):
        budget -= need
        if budget < 0:
            p.verdict, p.oom_stage, p.margin_bytes = "oom", stage, budget
            p.message = (
                f"{stage.replace('_', ' ')} does not fit in what the pools leave "
                f"({p.leftover_bytes / GIB:.2f} GB)"
            )
            return p
    p.margin_bytes = budget
    return p


def with_settings(r: Resolved, **changes: Any) -> Resolved:
    return replace(r, **changes)
