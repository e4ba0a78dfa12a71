"""Weight bytes per GPU rank: parameter counts by architecture, quantization, TP/EP sharding.

Exact when the checkpoint's safetensors headers (or its ``model.safetensors.index.json`` ``total_size``) sit
beside ``config.json``; otherwise counted from the config. Counting follows the module shapes of the
SGLang 0.5.10.post1 model files (``srt/models/llama.py``, ``qwen3_next.py``, ``qwen3_5.py``,
``deepseek_v2.py``, ``nemotron_h.py``): which projections exist, which are gated, which are fused.
"""

from __future__ import annotations

import fnmatch
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

from argtrace import localfs, safe_json
from argtrace.layers.memory.config import ModelSpec, Quantization

_ST_DTYPE_BYTES = {
    "F64": 8,
    "F32": 4,
    "BF16": 2,
    "F16": 2,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "I8": 1,
    "U8": 1,
    "I32": 4,
    "I64": 8,
    "I16": 2,
    "BOOL": 1,
    "F8_E8M0": 1,
}


@dataclass
class ParamCount:
    """Parameters by where they live: ``quantizable`` are the big projections a quantized checkpoint
    stores at low precision; ``plain`` stay in the model dtype (embeddings, lm_head, norms, conv, gates)."""

    quantizable: int = 0
    plain: int = 0
    # Parameters not split by tensor parallelism (norms, small vectors): every rank holds all of them.
    replicated: int = 0

    def add(self, other: ParamCount) -> None:
        self.quantizable += other.quantizable
        self.plain += other.plain
        self.replicated += other.replicated

    @property
    def total(self) -> int:
        return self.quantizable + self.plain + self.replicated


@dataclass
class WeightEstimate:
    """The model's parameters and bytes per rank, from safetensors headers, their index or the config, with
    the draft and vision parts counted apart."""

    total_params: int
    bytes_per_rank: int
    source: str  # "safetensors-headers", "safetensors-index", "config"
    detail: dict[str, int] = field(default_factory=dict)
    draft_params: int = 0
    draft_bytes_per_rank: int = 0
    vision_params: int = 0


def _attention(spec: ModelSpec) -> ParamCount:
    h = spec.hidden_size
    if spec.is_mla:
        nh = spec.num_attention_heads
        qk = spec.qk_nope_head_dim + spec.qk_rope_head_dim
        q = h * spec.q_lora_rank + spec.q_lora_rank * nh * qk if spec.q_lora_rank else h * nh * qk
        kv_a = h * (spec.kv_lora_rank + spec.qk_rope_head_dim)
        kv_b = spec.kv_lora_rank * nh * (spec.qk_nope_head_dim + spec.v_head_dim)
        o = nh * spec.v_head_dim * h
        return ParamCount(quantizable=q + kv_a + kv_b + o, replicated=spec.q_lora_rank + spec.kv_lora_rank)
    q_out = spec.num_attention_heads * spec.head_dim * (2 if spec.attn_output_gate else 1)
    kv = 2 * spec.num_kv_heads * spec.head_dim
    o = spec.num_attention_heads * spec.head_dim * h
    return ParamCount(quantizable=h * (q_out + kv) + o, replicated=2 * spec.head_dim)


def _gdn(spec: ModelSpec) -> ParamCount:
    """Gated DeltaNet (SGLang qwen3_next.py Qwen3GatedDeltaNet): in_proj_qkvz/ba, conv1d, out_proj."""
    h = spec.hidden_size
    key_dim = spec.linear_num_key_heads * spec.linear_key_head_dim
    value_dim = spec.linear_num_value_heads * spec.linear_value_head_dim
    qkvz = h * (2 * key_dim + 2 * value_dim)
    ba = h * 2 * spec.linear_num_value_heads
    conv = (2 * key_dim + value_dim) * spec.conv_kernel
    out = value_dim * h
    vectors = 2 * spec.linear_num_value_heads + spec.linear_value_head_dim
    return ParamCount(quantizable=qkvz + out, plain=ba + conv, replicated=vectors)


def _mamba2(spec: ModelSpec) -> ParamCount:
    """Mamba2 mixer (SGLang nemotron_h.py / layers/attention/mamba/mamba.py MambaMixer2)."""
    h = spec.hidden_size
    inner = spec.mamba_num_heads * spec.mamba_head_dim
    gn = spec.mamba_n_groups * spec.ssm_state_size
    in_proj = h * (2 * inner + 2 * gn + spec.mamba_num_heads)
    conv = (inner + 2 * gn) * (spec.conv_kernel + 1)  # weight + bias
    out = inner * h
    return ParamCount(quantizable=in_proj + out, plain=conv + inner, replicated=3 * spec.mamba_num_heads)


def _mlp(spec: ModelSpec, inter: int, gated: bool = True) -> ParamCount:
    return ParamCount(quantizable=(3 if gated else 2) * spec.hidden_size * inter)


def _moe(spec: ModelSpec, gated: bool = True) -> ParamCount:
    h = spec.hidden_size
    per_expert = (3 if gated else 2) * h * spec.moe_intermediate_size
    count = ParamCount(quantizable=spec.num_experts * per_expert, plain=h * spec.num_experts)
    if spec.shared_expert_intermediate_size:
        count.quantizable += (3 if gated else 2) * h * spec.shared_expert_intermediate_size
        if spec.family == "hybrid_gdn":
            count.plain += h  # shared_expert_gate
    return count


def _layer_is_moe(spec: ModelSpec, index: int) -> bool:
    if not spec.num_experts:
        return False
    if spec.is_mla:
        return index >= spec.first_k_dense and index % max(spec.moe_layer_freq, 1) == 0
    return (index + 1) % max(spec.moe_layer_freq, 1) == 0


# A representative parameter name per module kind, as the checkpoints name them, for matching the
# quantization config's list of modules left unquantized.
_MODULE_NAMES = {
    "attention": "model.layers.{i}.self_attn.o_proj",
    "linear_attention": "model.layers.{i}.linear_attn.out_proj",
    "mamba": "model.layers.{i}.mixer.out_proj",
    "mlp": "model.layers.{i}.mlp.down_proj",
    "experts": "model.layers.{i}.mlp.experts.0.down_proj",
    "shared_expert": "model.layers.{i}.mlp.shared_expert.down_proj",
}


def _listed(name: str, patterns: tuple[str, ...]) -> bool:
    """``name`` (or a module holding it) is in ``modules_to_not_convert`` / ``ignored_layers`` / ``ignore``.

    The match modes of vLLM 0.33.0 ``is_layer_skipped``
    (``model_executor/layers/quantization/utils/quant_utils.py:619``: exact, substring such as
    ``"self_attn"``, suffix), taken at whole dotted components so that ``model.layers.1`` does not match
    layer 10, the wildcards checkpoints write (``model.layers.*.self_attn``) and compressed-tensors' ``re:``
    entries."""
    for pattern in patterns:
        if pattern.startswith("re:"):
            try:
                if re.match(pattern[3:], name):
                    return True
            except re.error:
                continue
        elif pattern and (
            f".{pattern}." in f".{name}."  # whole dotted components: "self_attn", "model.layers.1"
            or fnmatch.fnmatchcase(name, pattern)
            or fnmatch.fnmatchcase(name, pattern + ".*")
        ):
            return True
    return False


def _unquantized(spec: ModelSpec, index: int, module: str) -> bool:
    """Whether the module of decoder layer ``index`` keeps the model dtype in a quantized checkpoint.

    MXFP4 quantizes the routed experts only: every linear layer gets ``UnquantizedLinearMethod`` (vLLM
    0.33.0 ``model_executor/layers/quantization/mxfp4.py:94-105``; SGLang 0.5.10.post1
    ``srt/layers/quantization/mxfp4.py:285-296`` returns no method, hence unquantized, on CUDA)."""
    q = spec.quantization
    if q.method == "none":
        return False
    if q.method == "mxfp4" and module != "experts":
        return True
    return bool(q.excluded) and _listed(_MODULE_NAMES[module].format(i=index), q.excluded)


def _keep(count: ParamCount, unquantized: bool) -> ParamCount:
    if unquantized:
        count.plain += count.quantizable
        count.quantizable = 0
    return count


def _moe_split(spec: ModelSpec, index: int, gated: bool = True) -> ParamCount:
    """``_moe`` with the routed experts and the shared expert checked apart against the unquantized list."""
    experts = ParamCount(
        quantizable=spec.num_experts * (3 if gated else 2) * spec.hidden_size * spec.moe_intermediate_size
    )
    rest = _moe(spec, gated)
    rest.quantizable -= experts.quantizable
    count = _keep(experts, _unquantized(spec, index, "experts"))
    count.add(_keep(rest, _unquantized(spec, index, "shared_expert")))
    return count


def decoder_attention(spec: ModelSpec, index: int, kind: str) -> ParamCount:
    """The attention (or linear-attention) projections of decoder layer ``index``: what SGLang's DP
    attention splits over the attention-TP group (dp_attention.py). Nemotron-H's Mamba layers are not
    attention; its attention layers are."""
    if spec.family == "nemotron_h":
        if kind == "full_attention":
            return _keep(_attention(spec), _unquantized(spec, index, "attention"))
        return ParamCount()
    if kind == "linear_attention":
        return _keep(_gdn(spec), _unquantized(spec, index, "linear_attention"))
    return _keep(_attention(spec), _unquantized(spec, index, "attention"))


def decoder_layer(spec: ModelSpec, index: int, kind: str) -> ParamCount:
    count = ParamCount(replicated=2 * spec.hidden_size)  # input and post-attention norms
    if spec.family == "nemotron_h":
        count.replicated = spec.hidden_size
        if kind == "mamba":
            count.add(_keep(_mamba2(spec), _unquantized(spec, index, "mamba")))
        elif kind == "full_attention":
            count.add(_keep(_attention(spec), _unquantized(spec, index, "attention")))
        elif kind == "mlp":
            count.add(
                _keep(_mlp(spec, spec.intermediate_size, gated=False), _unquantized(spec, index, "mlp"))
            )
        elif kind == "moe":
            count.add(_moe_split(spec, index, gated=False))
        return count
    count.add(decoder_attention(spec, index, kind))
    if _layer_is_moe(spec, index):
        count.add(_moe_split(spec, index))
    else:
        count.add(_keep(_mlp(spec, spec.intermediate_size), _unquantized(spec, index, "mlp")))
    return count


def decoder_layers_bytes(spec: ModelSpec, tp: int) -> int:
    """Bytes on one rank of the decoder layers alone (no embedding, LM head, final norm or vision tower):
    what vLLM's ``make_layers`` hands to the CPU offloader."""
    count = ParamCount()
    for i, kind in enumerate(spec.layer_types):
        count.add(decoder_layer(spec, i, kind))
    return bytes_of(count, spec, tp)


def vision_params(spec: ModelSpec) -> int:
    """A ViT tower as in Qwen3-VL/Qwen3.5 (``srt/models/qwen3_vl.py``): blocks + patch embed + merger."""
    v = spec.vision
    if not v:
        return 0
    h = int(v.get("hidden_size", 0) or 0)
    out = int(v.get("out_hidden_size", spec.hidden_size) or spec.hidden_size)
    if v.get("embed_dim"):
        # Qwen2-VL: the blocks are embed_dim wide with an MLP of embed_dim * mlp_ratio, and hidden_size is the
        # merger's output (vLLM 0.33.0 qwen2_vl.py:549-556, :410)
        out = h or out
        h = int(v.get("embed_dim", 0) or 0)
    depth = int(v.get("depth", v.get("num_hidden_layers", 0)) or 0)
    inter = int(v.get("intermediate_size", 0) or int(h * float(v.get("mlp_ratio", 4) or 4)))
    patch = int(v.get("patch_size", 14) or 14)
    temporal = int(v.get("temporal_patch_size", 2) or 2)
    channels = int(v.get("in_channels", 3) or 3)
    merge = int(v.get("spatial_merge_size", 2) or 2)
    positions = int(v.get("num_position_embeddings", 0) or 0)
    blocks = depth * (4 * h * h + 2 * h * inter + 6 * h)
    merged = h * merge * merge
    merger = merged * merged + merged * out + 2 * merged
    return blocks + channels * temporal * patch * patch * h + merger + positions * h


def count_params(spec: ModelSpec) -> tuple[ParamCount, ParamCount]:
    """(target model, MTP draft layers) parameter counts, whole model (not per rank)."""
    total = ParamCount()
    embed = spec.vocab_size * spec.hidden_size
    total.plain += embed if spec.tie_word_embeddings else 2 * embed
    total.replicated += spec.hidden_size  # final norm
    for i, kind in enumerate(spec.layer_types):
        total.add(decoder_layer(spec, i, kind))
    draft = ParamCount()
    if spec.mtp_layers:
        # MTP/NextN layer: one decoder layer of the model's own kind (full attention) + eh_proj (2h -> h)
        # + enorm/hnorm; embed_tokens and lm_head are shared with the target in SGLang's EAGLE worker.
        last_full = spec.full_attention_layer_ids[-1] if spec.full_attention_layer_ids else 0
        for _ in range(spec.mtp_layers):
            layer = decoder_layer(spec, max(last_full, spec.first_k_dense), "full_attention")
            if spec.family == "nemotron_h":
                layer = decoder_layer(spec, 0, "full_attention")
                layer.add(
                    _moe(spec, gated=False) if spec.num_experts else _mlp(spec, spec.intermediate_size, False)
                )
            draft.add(layer)
            draft.quantizable += 2 * spec.hidden_size * spec.hidden_size
            draft.replicated += 3 * spec.hidden_size
    return total, draft


def _scale_bytes(q: Quantization, elements: int) -> float:
    if q.method == "fp8":
        if q.block:
            return elements / (q.block[0] * q.block[1]) * 4
        return 0.0
    if q.group_size:
        # AWQ/GPTQ: an fp16 scale and a packed zero point per group; NVFP4: an fp8 scale per 16;
        # MXFP4: an e8m0 scale per 32.
        per_group = {"awq": 2 + q.bits / 8, "gptq": 2 + q.bits / 8, "nvfp4": 1, "mxfp4": 1}.get(q.method, 2)
        return elements / q.group_size * per_group
    return 0.0


def bytes_of(count: ParamCount, spec: ModelSpec, tp: int) -> int:
    """Bytes on one rank for ``count`` under the checkpoint's quantization and TP degree."""
    q = spec.quantization
    dtype = spec.dtype_bytes
    if q.method == "none" or q.bits >= 16:
        quant = count.quantizable * dtype
    else:
        quant = int(count.quantizable * q.bits / 8 + _scale_bytes(q, count.quantizable))
    sharded = quant + count.plain * dtype
    return int(sharded / max(tp, 1) + count.replicated * dtype)


def _read_safetensors_headers(directory: Path) -> dict[str, int] | None:
    files = sorted(directory.glob("*.safetensors"))
    if not files:
        return None
    sizes: dict[str, int] = {}
    for file in files:
        if not localfs.is_file(file):  # a FIFO named *.safetensors would block the read forever
            return None
        try:
            with file.open("rb") as handle:
                raw = handle.read(8)
                if len(raw) != 8:
                    return None
                (length,) = struct.unpack("<Q", raw)
                if length > 100_000_000:
                    return None
                header = safe_json.loads(handle.read(length))
        except (OSError, ValueError):
            return None
        for name, info in header.items():
            if name == "__metadata__" or not isinstance(info, dict):
                continue
            offsets = info.get("data_offsets")
            if isinstance(offsets, list) and len(offsets) == 2:
                sizes[name] = int(offsets[1]) - int(offsets[0])
            else:
                elements = 1
                for dim in info.get("shape", []):
                    elements *= int(dim)
                sizes[name] = elements * _ST_DTYPE_BYTES.get(str(info.get("dtype")), 2)
    return sizes


def _is_draft_tensor(name: str) -> bool:
    return name.startswith(("mtp.", "model.mtp.")) or ".mtp." in name


def estimate_weights(spec: ModelSpec, tp: int, model_dir: Path | None) -> WeightEstimate:
    """Weights of the target model (and of its MTP layers) on one TP rank."""
    target, draft = count_params(spec)
    vision = vision_params(spec)
    target_count = ParamCount(target.quantizable, target.plain + vision, target.replicated)
    counted = bytes_of(target_count, spec, tp)
    draft_bytes = bytes_of(draft, spec, tp) if draft.total else 0
    estimate = WeightEstimate(
        total_params=target.total + vision,
        bytes_per_rank=counted,
        source="config",
        detail={"counted_bytes_per_rank": counted},
        draft_params=draft.total,
        draft_bytes_per_rank=draft_bytes,
        vision_params=vision,
    )
    if model_dir is None:
        return estimate
    headers = _read_safetensors_headers(model_dir)
    if headers:
        total = sum(v for k, v in headers.items() if not _is_draft_tensor(k))
        mtp = sum(v for k, v in headers.items() if _is_draft_tensor(k))
        estimate.bytes_per_rank = total // max(tp, 1)
        if mtp:
            estimate.draft_bytes_per_rank = mtp // max(tp, 1)
        estimate.source = "safetensors-headers"
        return estimate
    index = model_dir / "model.safetensors.index.json"
    if localfs.is_file(index):
        try:
            data = safe_json.loads(index.read_text(encoding="utf-8"))
            total = int(data["metadata"]["total_size"])
        except (OSError, ValueError, KeyError, TypeError):
            return estimate
        weight_map = data.get("weight_map") if isinstance(data, dict) else None
        has_mtp = isinstance(weight_map, dict) and any(_is_draft_tensor(k) for k in weight_map)
        # total_size includes the MTP tensors when the checkpoint ships them: take out their counted share.
        mtp = estimate.draft_bytes_per_rank if has_mtp else 0
        estimate.bytes_per_rank = max(total // max(tp, 1) - mtp, 0)
        estimate.source = "safetensors-index"
    return estimate


def assumed_quantization(spec: ModelSpec, estimate: WeightEstimate) -> str | None:
    """When the weights were counted from the config under a ``quant_method`` argtrace does not count
    (config.py ``Quantization.assumed``: at the model's dtype, an upper bound), what a verdict on them rests
    on, for MM012 and MM001; None when the weights do not rest on that (known method, or the checkpoint's
    safetensors headers or index gave the bytes)."""
    q = spec.quantization
    if not q.assumed or estimate.source != "config":
        return None
    return (
        f"quantization_config quant_method '{q.method}' is not one argtrace counts: the weights are "
        f"counted at the model's {spec.dtype_bytes * 8} bits ({estimate.bytes_per_rank / (1 << 30):.2f} GiB "
        "per GPU), an upper bound"
    )


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def vllm_mxfp4_backend(spec: ModelSpec, capability: tuple[int, int]) -> tuple[str, int, int]:
    """(backend, hidden alignment, intermediate alignment) vLLM 0.33.0 picks for MXFP4 experts on CUDA.

    The first supported backend in priority order (``model_executor/layers/fused_moe/oracle/mxfp4.py``
    ``_get_priority_backends_for_gpt_oss`` :402 for GPT-OSS, ``_get_priority_backends`` :437 otherwise),
    each backend's ``_supports_current_device`` (TRT-LLM: SM10x; OAI Triton: SM90 to SM12x, after Marlin on
    SM12x; FlashInfer CUTLASS: SM90, SM10x, SM12x; Marlin: SM75+), and the padding
    ``mxfp4_round_up_hidden_size_and_intermediate_size`` (:837) applies to it. FlashInfer is taken as
    installed (the vLLM wheel depends on it)."""
    major = capability[0]
    if spec.architecture == "GptOssForCausalLM":
        if major == 10:
            return "flashinfer-trtllm", 256, 128
        if major == 12:
            return "flashinfer-cutlass", 128, 128
        if (9, 0) <= capability < (13, 0):
            return "triton", 1, 64  # the last branch: the intermediate size to 64, the hidden size as is
        return "marlin", 256, 128
    if major == 10:
        return "flashinfer-trtllm", 256, 128
    return "marlin", 256, 128


def vllm_mxfp4_padding_bytes(
    spec: ModelSpec, tp: int, capability: tuple[int, int], backend: str | None = None
) -> tuple[int, str]:
    """Bytes vLLM 0.33.0 adds per rank by padding MXFP4 expert weights to its kernel's tile
    (``maybe_roundup_sizes``, ``model_executor/layers/quantization/mxfp4.py:183``, on the per-partition
    intermediate size), and the backend that decides it. 0 when nothing is padded or the experts are not
    MXFP4. ``backend="marlin"``: the kernel an older release picked (vllm_release.py), Marlin's n % 256 and
    k % 128 (0.10.1 ``quantization/mxfp4.py:156-165``)."""
    if spec.quantization.method != "mxfp4" or not spec.num_experts or not spec.moe_intermediate_size:
        return 0, ""
    if backend == "marlin":
        hidden_align, inter_align = 256, 128
    else:
        backend, hidden_align, inter_align = vllm_mxfp4_backend(spec, capability)
    hidden = spec.hidden_size
    inter = spec.moe_intermediate_size // max(tp, 1)
    padded = _round_up(hidden, hidden_align) * _round_up(inter, inter_align)
    extra_elements = 3 * spec.num_experts * (padded - hidden * inter)  # w13 (2 x inter) and w2 (inter)
    moe_layers = sum(1 for i in range(spec.num_layers) if _layer_is_moe(spec, i))
    per_element = 0.5 + 1 / 32  # 4-bit values and an e8m0 scale per 32
    return int(extra_elements * moe_layers * per_element), backend
