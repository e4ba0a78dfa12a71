"""Per-token KV bytes and per-slot Mamba/linear-attention state bytes, on one rank.

Both follow SGLang 0.5.10.post1 exactly (the numbers its startup log prints must follow from them):

- KV: ``srt/model_executor/model_runner_kv_cache_mixin.py`` ``get_cell_size_per_token``: MHA/GQA
  ``get_num_kv_heads(attn_tp) * (head_dim + v_head_dim) * layers * kv_size`` with
  ``get_num_kv_heads = max(1, kv_heads // tp)`` (``configs/model_config.py``); MLA
  ``(kv_lora_rank + qk_rope_head_dim) * layers * kv_size`` (not split by TP). For hybrid models only the
  full-attention layers count (``profile_max_num_token``: ``mambaish.full_attention_layer_ids``).
- Mamba: ``srt/configs/mamba_utils.py`` ``Mamba2StateShape.create`` and
  ``BaseLinearStateParams.mamba_cache_per_req``: conv ``(conv_dim / tp, conv_kernel - 1)`` in the conv dtype
  (bfloat16 unless ``SGLANG_MAMBA_CONV_DTYPE``), temporal ``(heads / tp, head_dim, state_size)`` in the SSM
  dtype (``--mamba-ssm-dtype`` > config ``mamba_ssm_dtype`` > float32), with ``n_groups`` padded up to the TP
  size when it does not divide (``extra_groups_for_head_shards``).
"""

from __future__ import annotations

from dataclasses import dataclass

from argtrace.layers.memory.config import ModelSpec

KV_DTYPE_BYTES = {
    "auto": None,
    "bf16": 2,
    "bfloat16": 2,
    "float16": 2,
    "fp16": 2,
    "half": 2,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "fp8": 1,
    "fp4_e2m1": 0.5,
}
SSM_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


@dataclass(frozen=True)
class KvGeometry:
    """The KV cache's bytes per token on one rank: layers holding KV, heads, element size, and K and V
    apart."""

    bytes_per_token: int  # K and V together, every layer that holds KV, this rank
    layers: int
    kv_heads_per_rank: int
    element_bytes: float
    mla: bool
    # K part and V part separately (SGLang logs them separately for MHA); MLA has one buffer.
    k_bytes_per_token: int
    v_bytes_per_token: int
    per_layer_bytes: int  # one layer's bytes per token (the MTP draft pool uses one layer of this)


@dataclass(frozen=True)
class MambaGeometry:
    """The Mamba state cache's bytes per slot on one rank: convolution and SSM state across its layers."""

    layers: int
    conv_bytes_per_slot: int
    ssm_bytes_per_slot: int
    conv_dtype_bytes: int
    ssm_dtype_bytes: int

    @property
    def bytes_per_slot(self) -> int:
        return self.conv_bytes_per_slot + self.ssm_bytes_per_slot


def kv_element_bytes(kv_cache_dtype: str, spec: ModelSpec) -> float:
    """``configure_kv_cache_dtype`` (model_runner.py, 0.5.10.post1): ``auto`` is the model dtype, or fp8
    when the checkpoint declares ``kv_cache_quant_algo: FP8``."""
    value = KV_DTYPE_BYTES.get(kv_cache_dtype.lower(), None)
    if value is None:
        return float(spec.dtype_bytes if spec.dtype_bytes <= 2 else 2)
    return float(value)


def kv_geometry(
    spec: ModelSpec, tp: int, kv_cache_dtype: str = "auto", attn_tp: int | None = None
) -> KvGeometry:
    element = kv_element_bytes(kv_cache_dtype, spec)
    layers = len(spec.full_attention_layer_ids)
    if spec.is_mla:
        per_layer = spec.kv_lora_rank + spec.qk_rope_head_dim
        total = int(per_layer * layers * element)
        return KvGeometry(total, layers, 1, element, True, total, 0, int(per_layer * element))
    heads = max(1, spec.num_kv_heads // max(attn_tp or tp, 1))
    k = int(heads * spec.head_dim * layers * element)
    v = int(heads * spec.v_head_dim * layers * element)
    per_layer = int(heads * (spec.head_dim + spec.v_head_dim) * element)
    return KvGeometry(k + v, layers, heads, element, False, k, v, per_layer)


def _divide(a: int, b: int) -> int:
    if b <= 0 or a % b:
        raise ValueError(f"{a} is not divisible by the tensor-parallel size {b}")
    return a // b


def mamba_geometry(spec: ModelSpec, tp: int, ssm_dtype: str | None = None) -> MambaGeometry | None:
    """None for models without a recurrent state. Raises ``ValueError`` when the heads do not split by TP
    (SGLang's ``divide`` asserts the same)."""
    if not spec.is_hybrid:
        return None
    layers = len(spec.state_layer_ids)
    if spec.family == "hybrid_gdn":
        intermediate = spec.linear_value_head_dim * spec.linear_num_value_heads
        n_groups = spec.linear_num_key_heads
        heads = spec.linear_num_value_heads
        head_dim = spec.linear_value_head_dim
        state = spec.linear_key_head_dim
    else:
        intermediate = spec.mamba_num_heads * spec.mamba_head_dim
        n_groups = spec.mamba_n_groups
        heads = spec.mamba_num_heads
        head_dim = spec.mamba_head_dim
        state = spec.ssm_state_size
    if n_groups % tp:
        n_groups += tp - n_groups  # extra_groups_for_head_shards, verbatim (0.5.10.post1 mamba_utils.py)
    conv_dim = intermediate + 2 * n_groups * state
    conv_elems = _divide(conv_dim, tp) * (spec.conv_kernel - 1)
    ssm_elems = _divide(heads, tp) * head_dim * state
    ssm_name = ssm_dtype or spec.mamba_ssm_dtype or "float32"
    ssm_bytes = SSM_DTYPE_BYTES.get(ssm_name, 4)
    conv_bytes = 2
    return MambaGeometry(
        layers=layers,
        conv_bytes_per_slot=conv_elems * conv_bytes * layers,
        ssm_bytes_per_slot=ssm_elems * ssm_bytes * layers,
        conv_dtype_bytes=conv_bytes,
        ssm_dtype_bytes=ssm_bytes,
    )
