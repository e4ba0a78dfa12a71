"""Which model SGLang's draft worker builds for EAGLE / EAGLE3 / STANDALONE speculative decoding, when that
can be told from the launch: the target checkpoint named again as the draft.

SGLang 0.5.10.post1 builds the draft worker's model from ``--speculative-draft-model-path``'s config
(``configs/model_config.py`` ``ModelConfig.from_server_args(..., is_draft_model=True)``). Only the
architectures ``_config_draft_model`` (:291-357) maps to an MTP / NextN class build one MTP module from the
target's checkpoint (DeepSeek V3, GLM-4.5 MoE, Qwen3-Next, Qwen3.5, MiMo, Nemotron-H, ...); any other
architecture is built whole. So a draft path equal to the model path (the "base model as its own draft" of
sglang#6875) on such an architecture loads the whole model a second time, and the draft's KV pool holds the
same ``max_total_num_tokens`` over every layer (``eagle_worker.py``: the draft ModelRunner sizes its pool from
the target's token count), all outside ``mem_fraction_static`` (in 0.5.10.post1 the draft loads after the
target's pools).
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.layers.memory.settings import setting

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# configs/model_config.py:291-357 (0.5.10.post1) _config_draft_model: the architectures whose draft is an
# MTP / NextN module of the target checkpoint, not the whole model.
MTP_DRAFT_ARCHITECTURES = frozenset(
    {
        "DeepseekV3ForCausalLM",
        "GlmMoeDsaForCausalLM",
        "Glm4MoeForCausalLM",
        "Glm4MoeLiteForCausalLM",
        "GlmOcrForConditionalGeneration",
        "LongcatFlashForCausalLM",
        "MiMoForCausalLM",
        "MiMoV2FlashForCausalLM",
        "Step3p5ForCausalLM",
        "BailingMoeV2ForCausalLM",
        "BailingMoeForCausalLM",
        "BailingMoeV2_5ForCausalLM",
        "Ernie4_5_MoeForCausalLM",
        "Qwen3NextForCausalLM",
        "Qwen3_5ForConditionalGeneration",
        "Qwen3_5MoeForConditionalGeneration",
        "ExaoneMoEForCausalLM",
        "NemotronHForCausalLM",
    }
)


def _same_path(a: str, b: str) -> bool:
    def norm(p: str) -> str:
        return p.strip().rstrip("/")

    return norm(a) == norm(b)


def draft_is_whole_target(settings: Mapping[str, Any], architecture: str, algorithm: str | None) -> bool:
    """Whether the draft worker loads the whole target model again: EAGLE/EAGLE3/STANDALONE with the draft
    path equal to the model path on an architecture without an MTP draft class."""
    if algorithm not in ("EAGLE", "EAGLE3", "STANDALONE"):
        return False
    model = setting(settings, "model_path")
    draft = setting(settings, "speculative_draft_model_path")
    if not isinstance(model, str) or not isinstance(draft, str):
        return False
    return _same_path(model, draft) and architecture not in MTP_DRAFT_ARCHITECTURES
