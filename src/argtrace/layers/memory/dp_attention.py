"""SGLang's DP attention and the weights each rank holds (``--enable-dp-attention`` with ``--dp-size`` > 1).

With DP attention the attention layers run on an attention-TP group of ``tp_size // dp_size`` ranks
(``srt/layers/dp_attention.py:237-251`` ``compute_dp_attention_world_info``, 0.5.10.post1), so the model files
that build their attention projections with ``tp_size=attn_tp_size`` hold ``dp_size`` times more attention
weights per rank than plain TP: with ``--tp 8 --dp 8`` each rank holds the whole attention. The input
embedding is split over that group too (``VocabParallelEmbedding(use_attn_tp_group=
is_dp_attention_enabled())``) or not split at all (``enable_tp=not is_dp_attention_enabled()``); the LM head
stays split over the whole TP group unless ``--enable-dp-lm-head`` (``use_attn_tp_group=enable_dp_lm_head``).
MoE experts and dense MLPs keep the full TP (or EP) split.

The table below is read from SGLang 0.5.10.post1's model files (``srt/models/*.py``, lines cited); an
architecture not in it is sized as plain TP, as before (its file may shard differently).
"""

from __future__ import annotations

from dataclasses import dataclass

from argtrace.layers.memory.config import ModelSpec
from argtrace.layers.memory.weights import ParamCount, bytes_of, decoder_attention


@dataclass(frozen=True)
class DpLayout:
    """How one SGLang model file shards under DP attention: ``attention`` True when its attention (and
    linear-attention) projections use ``tp_size=attn_tp_size``; ``embedding`` "attn_tp" (split over the
    attention-TP group), "replicated" (not split) or "tp"; ``where`` the lines read."""

    attention: bool
    embedding: str
    where: str


_DEEPSEEK = DpLayout(True, "attn_tp", "deepseek_v2.py:1121-1239 (MLA), :1865 (embedding), :2155 (LM head)")
_QWEN3_5 = DpLayout(
    True, "replicated", "qwen3_5.py:121-238 (Gated DeltaNet), :638-702 (attention), :912 (embedding)"
)
LAYOUTS: dict[str, DpLayout] = {
    "DeepseekV2ForCausalLM": _DEEPSEEK,
    "DeepseekV3ForCausalLM": _DEEPSEEK,
    "DeepseekV32ForCausalLM": _DEEPSEEK,
    "Qwen2ForCausalLM": DpLayout(False, "attn_tp", "qwen2.py:281 (embedding; attention is split over TP)"),
    "Qwen3ForCausalLM": DpLayout(True, "attn_tp", "qwen3.py:82-132 (attention), qwen2.py:281 (embedding)"),
    "Qwen2MoeForCausalLM": DpLayout(True, "attn_tp", "qwen2_moe.py:380-420 (attention), :599 (embedding)"),
    "Qwen3MoeForCausalLM": DpLayout(
        True, "attn_tp", "qwen3_moe.py:455-497 (attention), qwen2_moe.py:599 (embedding)"
    ),
    "Qwen3NextForCausalLM": DpLayout(
        True, "attn_tp", "qwen3_next.py:80-200 (Gated DeltaNet), :536-603 (attention), :783 (embedding)"
    ),
    "Qwen3_5ForCausalLM": _QWEN3_5,
    "Qwen3_5MoeForCausalLM": _QWEN3_5,
    "Qwen3_5ForConditionalGeneration": _QWEN3_5,
    "Qwen3_5MoeForConditionalGeneration": _QWEN3_5,
    "GptOssForCausalLM": DpLayout(True, "attn_tp", "gpt_oss.py:298-348 (attention), :578 (embedding)"),
    "Glm4MoeForCausalLM": DpLayout(True, "attn_tp", "glm4_moe.py:205-247 (attention), :1004 (embedding)"),
    "Llama4ForConditionalGeneration": DpLayout(
        True, "attn_tp", "llama4.py:218-280 (attention), :494 (embedding)"
    ),
}


def attention_tp(tp: int, dp: int, enabled: bool) -> int:
    """The attention-TP group's size (``compute_dp_attention_world_info``); 0.5.10.post1 turns DP attention
    off when ``dp_size`` is 1 (``server_args.py:2633-2636`` ``_handle_data_parallelism``)."""
    if not enabled or dp <= 1:
        return tp
    return max(tp // dp, 1)


def extra_weight_bytes(
    spec: ModelSpec, tp: int, attn_tp: int, dp_lm_head: bool
) -> tuple[int, DpLayout | None]:
    """Bytes one rank holds beyond the plain-TP count under DP attention (0 when the attention-TP group is
    the TP group or the architecture is not in the table), and the layout read."""
    layout = LAYOUTS.get(spec.architecture)
    if layout is None or attn_tp >= tp:
        return 0, None
    extra = 0
    if layout.attention:
        attention = ParamCount()
        for i, kind in enumerate(spec.layer_types):
            attention.add(decoder_attention(spec, i, kind))
        extra += bytes_of(attention, spec, attn_tp) - bytes_of(attention, spec, tp)
    embed = ParamCount(plain=spec.vocab_size * spec.hidden_size)
    if layout.embedding != "tp":
        ways = attn_tp if layout.embedding == "attn_tp" else 1
        extra += bytes_of(embed, spec, ways) - bytes_of(embed, spec, tp)
    if dp_lm_head and not spec.tie_word_embeddings:
        extra += bytes_of(embed, spec, attn_tp) - bytes_of(embed, spec, tp)
    return extra, layout
