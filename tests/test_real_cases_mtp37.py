"""vLLM batch of the 37th session (docs/real_cases.md, "vLLM mtp37: MTP drafts beyond Qwen"), measured before
any fix on 8522c78c.

Three reports of 2025-2026 where an MTP draft numbered after the target's layers (GLM-OCR, GLM-5, GLM-4.6:
``model.layers.{num_hidden_layers + i}.*``) meets a checkpoint without its tensors: a LoRA-merged GLM-OCR
export, an NVFP4 export of GLM-5, and GLM-4.6's own checkpoint that lacked two shared copies (a vLLM loader
bug), and one correct launch (``ok_*``: the base checkpoint, with its MTP layer). Each case under
``tests/data/real_cases_mtp37/`` names its URL in its header; ``ckpt/`` holds the stand-in checkpoints a
reconstructed case serves (config.json and index only), ``why/`` the error a report quotes. A new user's
machine (no resolver environment, no Hugging Face cache); ``--framework-version`` where the report names it.
Each command runs once per worker (tests/batches.py's ``recorded_*``). Below the batch: RS087 on stand-in
checkpoints of DeepSeek-V3 and GLM-4.5, the families the generated table now covers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.batches import CheckBatch, missing_cases
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_mtp37"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report, by the better of `check` and `why`: first seen (8522c78c) and now.
CLASSES = {
    # why: the default loader's raise first (s37-whyload38; a BitsAndBytes site before), but its fix "change
    # --quantization" is not the cause (the export dropped layer 16); check: nothing on 0.16.0
    "glmocr109_finetuned_merged_mtp_vllm.cmd": ("b", "b"),
    "vllmpr35548_glm5_nvfp4_without_mtp.cmd": ("c", "c"),
    "vllm25993_glm46_mtp_shared_head.cmd": ("c", "c"),
}
OPTIONS: dict[str, tuple[str, ...]] = {
    "glmocr109_finetuned_merged_mtp_vllm.cmd": ("--framework-version", "0.16.0"),
    "vllm25993_glm46_mtp_shared_head.cmd": ("--framework-version", "0.10.2"),
}
CORRECT = ["ok_glmocr109_base_checkpoint_mtp.cmd"]
OPTIONS["ok_glmocr109_base_checkpoint_mtp.cmd"] = ("--framework-version", "0.33.0")
BATCH = CheckBatch(CASES, CLASSES, CORRECT, OPTIONS, counts=([0, 1, 2, 0], [0, 1, 2, 0]))
check, why = BATCH.check, BATCH.why
globals().update(BATCH.tests())

MISSING = {
    "glmocr109_finetuned_merged_mtp_vllm.cmd": (
        "layer 16",
        "vllm 0.16.0's wheel is not on the package index here, so its MTP draft table is not read (with "
        "0.32.0 or 0.33.0 named RS087 says it on this checkpoint: tested below)",
    ),
    "vllmpr35548_glm5_nvfp4_without_mtp.cmd": (
        "layer 78",
        "the checkpoint is a Hugging Face id not on this machine, and GLM-5's draft (glm_moe_dsa -> "
        "DeepseekV32MTPModel, vllm/models/deepseek_v32) is a module the table does not read",
    ),
    "vllm25993_glm46_mtp_shared_head.cmd": (
        "shared_head",
        "a loader bug of vLLM 0.10.2 with GLM-4.6's checkpoint (fixed by vllm PR 27597), not a setting",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}


def _rs087(model: Path, *options: str, method: str = "mtp") -> list[dict[str, Any]]:
    launch = (
        f'vllm serve {model} --speculative-config \'{{"method": "{method}", "num_speculative_tokens": 1}}\''
    )
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", launch]).json
    return [f for f in report["findings"] if f["code"] == "RS087"]


def test_rs087_on_the_merged_glm_ocr_with_a_release_read() -> None:
    """GLM-OCR#109's stand-in export with 0.33.0 named: the glm_ocr_mtp draft reads layer 16 (the text
    config's num_hidden_layers) and the index has none of its names."""
    (error,) = _rs087(CASES / "ckpt/glm-ocr-merged", "--framework-version", "0.33.0")
    assert (error["severity"], error["setting"]) == ("error", "speculative_config")
    assert error["message"] == (
        "the glm_ocr_mtp draft loads the checkpoint's layer 16 (model.layers.16.*) tensors, and this "
        "checkpoint has none (model.safetensors.index.json lists 36 tensors): vllm 0.33.0 leaves the draft's "
        'parameters unloaded and stops while building it ("Following weights were not initialized from '
        'checkpoint", DefaultModelLoader.track_weights_loading); a quantized or fine-tuned export often '
        "drops the MTP layer"
    )
    assert error["fix"] == (
        "copy the base checkpoint's layer 16 (model.layers.16.*) tensors (and their index lines) into the "
        "export, or serve without --speculative-config"
    )


def _checkpoint(directory: Path, config: dict[str, Any], names: list[str]) -> Path:
    directory.mkdir(parents=True)
    (directory / "config.json").write_text(json.dumps(config))
    index = {"metadata": {"total_size": 1}, "weight_map": dict.fromkeys(names, "model-00001.safetensors")}
    (directory / "model.safetensors.index.json").write_text(json.dumps(index))
    return directory


DEEPSEEK_V3 = {
    "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168,
    "num_hidden_layers": 61, "num_nextn_predict_layers": 1, "num_attention_heads": 128,
    "num_key_value_heads": 128, "vocab_size": 129280, "n_routed_experts": 256, "kv_lora_rank": 512,
    "q_lora_rank": 1536, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
    "moe_intermediate_size": 2048, "intermediate_size": 18432, "max_position_embeddings": 163840,
    "torch_dtype": "bfloat16",
}  # fmt: skip
GLM45_AIR = {
    "architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe", "hidden_size": 4096,
    "num_hidden_layers": 46, "num_nextn_predict_layers": 1, "num_attention_heads": 96,
    "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151552, "n_routed_experts": 128,
    "moe_intermediate_size": 1408, "intermediate_size": 10944, "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16",
}  # fmt: skip
BASE = ["model.embed_tokens.weight", "model.layers.0.self_attn.o_proj.weight", "model.norm.weight"]


def test_rs087_on_a_deepseek_v3_export_without_layer_61(tmp_path: Path) -> None:
    """DeepSeek-V3's draft (deepseek_mtp) reads layer 61 and raises itself on a layer it did not load, for a
    quantized checkpoint too (deepseek_mtp.py load_weights: "MTP speculative decoding layer 61 weights missing
    from checkpoint"); with layer 61 in the index, or num_nextn_predict_layers 0, nothing."""
    fp8 = {**DEEPSEEK_V3, "quantization_config": {"quant_method": "fp8"}}
    without = _checkpoint(tmp_path / "without", fp8, BASE)
    (error,) = _rs087(without, "--framework-version", "0.33.0")
    assert error["severity"] == "error"
    assert error["message"] == (
        "the deepseek_mtp draft loads the checkpoint's layer 61 (model.layers.61.*) tensors, and this "
        "checkpoint has none (model.safetensors.index.json lists 3 tensors): vllm 0.33.0 leaves the draft's "
        'parameters unloaded and stops while building it ("MTP speculative decoding layer 61 weights missing '
        'from checkpoint." (model_executor/models/deepseek_mtp.py: load_weights)); a quantized or fine-tuned '
        "export often drops the MTP layer"
    )
    assert [
        f["severity"] for f in _rs087(without, "--framework-version", "0.32.0", method="deepseek_mtp")
    ] == ["error"]
    with_layer = _checkpoint(tmp_path / "with", fp8, [*BASE, "model.layers.61.eh_proj.weight"])
    assert _rs087(with_layer, "--framework-version", "0.33.0") == []
    no_layers = _checkpoint(tmp_path / "none", {**fp8, "num_nextn_predict_layers": 0}, BASE)
    assert _rs087(no_layers, "--framework-version", "0.33.0") == []
    assert _rs087(without, "--framework-version", "0.33.0", method="ngram") == []


def test_rs087_on_a_glm45_air_export_without_layer_46(tmp_path: Path) -> None:
    """GLM-4.5's draft is chosen by architecture (Glm4MoeForCausalLM -> glm4_moe_mtp) and reads layer 46; it
    has no check of its own, so a quantized checkpoint is not judged (the loader's strict check is off);
    GLM-4.6's checkpoint (vllm#25993) has the layer's own tensors: nothing."""
    without = _checkpoint(tmp_path / "without", GLM45_AIR, BASE)
    (error,) = _rs087(without, "--framework-version", "0.33.0")
    assert error["message"].startswith(
        "the glm4_moe_mtp draft loads the checkpoint's layer 46 (model.layers.46.*) tensors, and this "
        "checkpoint has none"
    )
    fp8 = _checkpoint(tmp_path / "fp8", {**GLM45_AIR, "quantization_config": {"quant_method": "fp8"}}, BASE)
    assert _rs087(fp8, "--framework-version", "0.33.0") == []
    layer = ["model.layers.46.eh_proj.weight", "model.layers.46.enorm.weight", "model.layers.46.hnorm.weight"]
    with_layer = _checkpoint(tmp_path / "with", GLM45_AIR, [*BASE, *layer])
    assert _rs087(with_layer, "--framework-version", "0.33.0") == []
    assert _rs087(without, "--framework-version", "0.20.0") == []


@pytest.mark.xfail(
    strict=True,
    reason="GLM-5 (glm_moe_dsa) and DeepSeek-V3.2 draft through DeepseekV32MTPModel in vllm/models/"
    "deepseek_v32, a module scripts/gen_vllm_mtp_weights.py does not read",
)
def test_rs087_on_a_glm5_export_without_layer_78(tmp_path: Path) -> None:
    glm5 = {**DEEPSEEK_V3, "architectures": ["GlmMoeDsaForCausalLM"], "model_type": "glm_moe_dsa"}
    without = _checkpoint(tmp_path / "without", {**glm5, "num_hidden_layers": 78}, BASE)
    assert [f["severity"] for f in _rs087(without, "--framework-version", "0.33.0")] == ["error"]
