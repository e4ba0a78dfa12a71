"""An unsampled vLLM batch of the 36th session (docs/real_cases.md, "vLLM, mixed38: what a new user meets"),
measured before any fix on a378c796.

Ten failure reports of 2025-2026 taken in the order the `search` tool gave them for queries a user types
after a failed launch, queries mixed36 did not use (GLM-4.1V-9B-Thinking under a transformers build its
processor does not fit, Llama-4-Maverick-FP8 at tensor parallel size 4 on four 96 GB H100s, Kimi-K2.7 on
MI308X GPUs with AITER on, a W8A16 MoE checkpoint in bfloat16, Qwen3.8-Flash-Next-FP8 and a Qwen3-30B-A3B
FP8 checkpoint on A100s, a bfloat16 model on a V100, GLM-4.5V-FP8 at tensor parallel size 4 on RTX A6000s,
GLM-4.5-Air-FP8 on eight RTX 3090s, MiniMax-M3 with an FP8 KV cache) and two correct launches (``ok_*``,
the fixed or recipe commands of two of them). Each case under ``tests/data/real_cases_mixed38/`` names its
URL in its header; ``why/`` holds the error text a report quotes. A new user's machine (no resolver
environment, no Hugging Face cache); ``--gpu`` and ``--framework-version`` where the report names them (a GPU
the report only describes is a stand-in its header says so). Each command runs once per worker
(tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why_quant import add_quantization_setting
from tests.batches import (
    CheckBatch,
    finding,
    missing_cases,
)
from tests.conftest import alarms

CASES = Path(__file__).resolve().parent / "data" / "real_cases_mixed38"

pytestmark = pytest.mark.usefixtures("new_user_machine")

V100 = "Tesla V100-SXM2-32GB, 32768 MiB, 7.0x1"
# The class of each failure report, by the better of `check` and `why`: first seen (a378c796) and now.
CLASSES = {
    "glmv8_glm41v_processor_transformers_build.cmd": ("b", "a"),  # why: now transformers' class, its release
    "vllm16197_maverick_fp8_tp4_h100_96g.cmd": ("c", "c"),
    "vllm51964_kimi_k27_mi308x_gfx942_mla_gluon.sh": ("a", "a"),  # why: the AITER Gluon MLA path, gfx950 only
    "vllm17579_qwen3_235b_w8a16_moe_float16.cmd": ("b", "a"),  # why: was --quantization; now --dtype float16
    "vllm54318_qwen38_flash_next_fp8_a100_fp8e4nv.sh": ("a", "a"),  # why: Triton's fp8e4nv needs 8.9+
    "transformerlab370_v100_bf16_r1_distill_qwen15b.cmd": ("a", "a"),  # why: bfloat16 on 7.0, --dtype
    "glmv178_glm45v_fp8_tp4_a6000_marlin_tile.cmd": ("b", "a"),  # why: now FP8 weight-only Marlin on Ampere
    "glm45_94_air_fp8_tp8_rtx3090_marlin_tile.cmd": ("b", "a"),  # the same signature, eight RTX 3090s
    "vllm17764_qwen3_30b_fp8_a100_fp8e4nv.cmd": ("a", "a"),  # why: Triton's fp8e4nv needs 8.9+
    "vllm45533_minimax_m3_mxfp8_fp8_kv_cache.cmd": ("c", "c"),
}
# the GPU and release a report names (or the stand-in its header describes)
OPTIONS: dict[str, tuple[str, ...]] = {
    "vllm16197_maverick_fp8_tp4_h100_96g.cmd": ("--gpu", "h100-nvlx4", "--framework-version", "0.8.3"),
    "vllm51964_kimi_k27_mi308x_gfx942_mla_gluon.sh": ("--gpu", "mi300xx8", "--framework-version", "0.27.0"),
    "vllm17579_qwen3_235b_w8a16_moe_float16.cmd": ("--gpu", "a100-80gx8", "--framework-version", "0.8.5"),
    "vllm54318_qwen38_flash_next_fp8_a100_fp8e4nv.sh": ("--gpu", "a100-80gx4"),
    "transformerlab370_v100_bf16_r1_distill_qwen15b.cmd": ("--gpu", V100, "--framework-version", "0.5.4"),
    "ok_transformerlab370_v100_dtype_half.cmd": ("--gpu", V100, "--framework-version", "0.5.4"),
    "glmv178_glm45v_fp8_tp4_a6000_marlin_tile.cmd": ("--gpu", "rtx-a6000x4"),
    "ok_glmv178_glm45v_fp8_tp4_h100.cmd": ("--gpu", "h100x4"),
    "glm45_94_air_fp8_tp8_rtx3090_marlin_tile.cmd": ("--gpu", "rtx-3090x8"),
    "vllm17764_qwen3_30b_fp8_a100_fp8e4nv.cmd": ("--gpu", "a100-80gx1", "--framework-version", "0.8.5.post1"),
}
CORRECT = ["ok_glmv178_glm45v_fp8_tp4_h100.cmd", "ok_transformerlab370_v100_dtype_half.cmd"]
# No launch gets an error or warning: PR008 on vLLM 0.5.4, older than the oldest bundled parser schema
# (0.6.6.post1), says the flags are judged by a newer release's parser, a note (it was a warning when the
# batch was first measured: true of argtrace's analysis, not a verdict on the launch).
BATCH = CheckBatch(CASES, CLASSES, CORRECT, OPTIONS, counts=([4, 4, 2, 0], [8, 0, 2, 0]))
check, why = BATCH.check, BATCH.why
globals().update(BATCH.tests())


def test_the_old_release_note_is_about_the_analysis() -> None:
    """The note on the V100 pair says what argtrace cannot read (a 0.5.4 parser), not that the launch fails:
    the fixed launch gets the same one."""
    pair = ("transformerlab370_v100_bf16_r1_distill_qwen15b.cmd", "ok_transformerlab370_v100_dtype_half.cmd")
    for name in pair:
        note = finding(check(name), "PR008")
        assert note["severity"] == "info"
        assert note["message"] == (
            "vllm 0.5.4 (requested) has no bundled parser schema; analysing with the oldest bundled one, "
            "0.6.6.post1. Flags added or removed between 0.6.6.post1 and 0.5.4 may be misjudged."
        )


# What `why` gives on each quoted text: (confidence, the start of its origin or of its first site's
# function, and of that site's fix).
WHY = {
    "glmv8_glm41v_processor_transformers_build.cmd": (
        "none",
        "Python's interpreter: a call to Glm4vProcessor.__init__ (transformers' class) that does not fit its "
        "signature",
        "",
    ),
    "vllm51964_kimi_k27_mi308x_gfx942_mla_gluon.sh": (
        "none",
        "a ROCm kernel built for the AMD architecture it names only, not this GPU's (aiter's",
        "",
    ),
    "vllm17579_qwen3_235b_w8a16_moe_float16.cmd": (
        "strong",
        "CompressedTensorsWNA16MarlinMoEMethod.create_weights",
        "params_dtype is the model's dtype (the layers are built under set_default_torch_dtype("
        "model_config.dtype)), which --dtype sets (auto: the checkpoint's torch_dtype): pass --dtype float16",
    ),
    "vllm54318_qwen38_flash_next_fp8_a100_fp8e4nv.sh": (
        "strong",
        "dtype.to_ir",
        "triton refused 'fp8e4nv', which comes from --kv-cache-dtype (sglang), --quantization (sglang)",
    ),
    "transformerlab370_v100_bf16_r1_distill_qwen15b.cmd": (
        "strong",
        "_check_if_gpu_supports_dtype",
        "make the condition false (not (capability is None)): change --dtype",
    ),
    "glmv178_glm45v_fp8_tp4_a6000_marlin_tile.cmd": ("weak", "ensure_divisibility", ""),
    "glm45_94_air_fp8_tp8_rtx3090_marlin_tile.cmd": ("weak", "ensure_divisibility", ""),
    "vllm17764_qwen3_30b_fp8_a100_fp8e4nv.cmd": (
        "strong",
        "dtype.to_ir",
        "triton refused 'fp8e4nv', which comes from --kv-cache-dtype (sglang), --quantization (sglang)",
    ),
}


globals().update(BATCH.why_tests(WHY))


def test_the_aiter_origin_names_the_switch() -> None:
    """vllm#51964: the wording origin names the AITER MLA switch and the release that keeps the Gluon decode
    to gfx950, the fix the tracker (vllm#50682) describes."""
    origin = why("vllm51964_kimi_k27_mi308x_gfx942_mla_gluon.sh")["origin"]["origin"]
    assert "VLLM_ROCM_USE_AITER_MLA=0" in origin and "gfx950" in origin


def test_the_call_error_names_transformers() -> None:
    """GLM-V#8, b -> a: `why` said the processor and its caller come from releases that do not fit; it now
    knows Glm4vProcessor is transformers' class (AutoProcessor's table, scripts/gen_model_types.py) and says
    which release to change (the thread's answer: transformers 4.53.0 with that vLLM build)."""
    call = why("glmv8_glm41v_processor_transformers_build.cmd")["call"]
    assert (call["kind"], call["callee"], call["argument"], call["package"]) == (
        "multiple values",
        "Glm4vProcessor.__init__",
        "tokenizer",
        "transformers",
    )
    assert call["meaning"].endswith(
        "; Glm4vProcessor is transformers' class (its AutoProcessor table names it in the indexed "
        "transformers 4.57.6-5.23.0), so the callee's release is the installed transformers'"
    )
    assert call["fix"] == (
        "the caller (the serving framework or the model's code) and transformers' Glm4vProcessor come from "
        "releases that do not fit: install the transformers release the framework's release requires (its "
        "requirements name the range), or the framework release made for the installed transformers"
    )


def test_a_call_to_another_class_keeps_the_general_fix() -> None:
    """Only a class transformers' tables name is called transformers'; a tokenizer class is found in
    AutoTokenizer's table, a worker class in none."""
    from argtrace.commands.why_call import call_error

    worker = call_error("TypeError: Worker.__init__() got an unexpected keyword argument 'x'")
    assert worker is not None and "package" not in worker
    assert worker["fix"].startswith("the caller and Worker.__init__ come from releases that do not fit")
    tokenizer = call_error("TypeError: LlamaTokenizerFast.__init__() got an unexpected keyword argument 'x'")
    assert tokenizer is not None and tokenizer["package"] == "transformers"
    assert (
        "its AutoTokenizer table names it in the indexed transformers 4.46.3-4.57.6" in tokenizer["meaning"]
    )


@pytest.mark.parametrize(
    "name", ["glmv178_glm45v_fp8_tp4_a6000_marlin_tile.cmd", "glm45_94_air_fp8_tp8_rtx3090_marlin_tile.cmd"]
)
def test_the_marlin_tile_signature_names_fp8_on_ampere(name: str) -> None:
    """GLM-V#178 and GLM-4.5#94, b -> a: GLM-4.5V-FP8 on RTX A6000s and GLM-4.5-Air-FP8 on RTX 3090s take
    vLLM's weight-only FP8 Marlin path, whose repack needs the tile; the signature's fix now says so (a
    smaller --tp alone was the only advice, and about 108 GB of FP8 weights do not fit two 48 GB cards)."""
    (signature,) = why(name)["signatures"]
    assert signature["id"] == "marlin-repack-tile"
    assert signature["fix"].endswith(
        "; for an FP8 checkpoint on a GPU without FP8 support (Ampere and older: A100, RTX A6000, RTX "
        '3090; the log\'s "Weight-only FP8 compression" line), run it on GPUs with FP8 support, or a '
        "non-FP8 variant of the model (bf16, AWQ, GPTQ), or a vLLM release that pads FP8 weights for Marlin "
        "(0.33.0 does)"
    )
    assert "marlin_utils_fp8.py:103-140" in signature["meaning"]


def _site(*conditions: str, framework: str = "vllm") -> dict[str, Any]:
    return {
        "framework": framework,
        "function": "SomeMethod.create_weights",
        "file": f"{framework}/model_executor/layers/quantization/some.py",
        "conditions": list(conditions),
        "settings": [],
        "fix": "make the condition false",
    }


DTYPE_WHY = (
    "params_dtype is the model's dtype (the layers are built under set_default_torch_dtype("
    "model_config.dtype)), which --dtype sets (auto: the checkpoint's torch_dtype): "
)


@pytest.mark.parametrize(
    ("condition", "fix"),
    [
        ("not (params_dtype == torch.float16)", "pass --dtype float16"),  # vllm#17579 (0.8.5.post1)
        ("params_dtype != torch.bfloat16", "pass --dtype bfloat16"),  # vllm 0.33.0 fp_quant.py:120
        ("params_dtype == torch.float16", "pass a --dtype other than float16"),
        ("not (params_dtype != torch.bfloat16)", "pass a --dtype other than bfloat16"),
    ],
)
def test_a_params_dtype_check_names_dtype(condition: str, fix: str) -> None:
    """A quantization method's check on params_dtype alone is the model's dtype: --dtype, not
    --quantization, with the value the comparison needs."""
    for framework in ("vllm", "sglang"):
        groups = [_site(condition, framework=framework)]
        add_quantization_setting(groups, "AssertionError: ...")
        assert groups[0]["fix"] == DTYPE_WHY + fix
        assert groups[0]["settings"] == [{"name": "dtype", "flag": "--dtype"}]


def test_a_compound_condition_keeps_the_method_check() -> None:
    """A condition that also reads shapes (vllm 0.33.0 modelopt_block_quant.py:293) is not read as the dtype
    alone: the method's own check stays --quantization's."""
    groups = [_site("params_dtype != torch.bfloat16 or n % 8")]
    add_quantization_setting(groups, "ValueError: Q8_0 dense weights require BF16, K32 and N8")
    assert groups[0]["settings"] == [{"name": "quantization", "flag": "--quantization", "method_check": True}]


def test_a_quantization_methods_own_attribute_is_no_flag() -> None:
    """vllm 0.33.0 modelopt_block_quant.py:297 reads `self.block_size`, the ModelOpt codec's block (K32), and
    prints it in its message: not --block-size, the KV cache's (it was the fix, "change --block-size")."""
    from argtrace.commands.why import explain

    first = explain("ValueError: Q8_0 dense weights require BF16, K32 and N8")["matches"][0]
    assert first["function"] == "ModelOptBlockQuantLinearMethod.create_weights"
    assert [s["name"] for s in first["settings"]] == ["tensor_parallel_size"]
    assert "--block-size" not in first["fix"]


# The failure reports not in class a, with the word the cause's alarm must hold and the mechanism argtrace
# lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "vllm45533_minimax_m3_mxfp8_fp8_kv_cache.cmd": (
        "kv-cache-dtype",
        "which models a release refuses an FP8 KV cache for is not read from the releases (the maintainer: "
        "MiniMax-M3 does not support it yet), and the report quotes no error text for `why`",
    ),
    "vllm16197_maverick_fp8_tp4_h100_96g.cmd": (
        "Maverick",
        "a model's size without its config.json (a new user's machine has none): about 400 GB of FP8 "
        "weights over four 96 GB H100s is not judged, and the report quotes no error text for `why`",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
