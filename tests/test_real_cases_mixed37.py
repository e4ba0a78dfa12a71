"""An unsampled batch of SGLang launch failures of the 36th session (docs/real_cases.md, "SGLang, mixed37:
what a new user meets"), measured before any fix.

Nine failure reports of 2025-2026 taken in the order the `search` tool gave them for queries a user types
after a failed launch (sgl-project/sglang issues: FP8 checkpoints on Ampere GPUs (Qwen3-235B-A22B-FP8 on
A100s, Qwen3-30B-A3B-FP8 on A10s), SGLang Diffusion's FlashAttention on an RTX PRO 6000, a 1.5B model at
--tp 24 over three nodes, a GB200 image on a B200 machine with ARM CPUs, DeepSeek-R1 over two H20 nodes,
Qwen3-VL in the DGX Spark image, Qwen-Image's SageAttention 3 on a GB10, sgl-kernel's libraries on a DGX
Spark) and two correct launches (``ok_*``: the working commands the threads give).
Each case under ``tests/data/real_cases_mixed37/`` names its URL in its header; ``why/`` holds the error text
a report quotes. A new user's machine (no resolver environment, no Hugging Face cache); ``--gpu`` where the
report names the GPU and argtrace has a profile for it, ``--framework-version`` where the report names the
release or its date does. Each command runs once per worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import (
    CheckBatch,
    missing_cases,
)
from tests.conftest import alarms

CASES = Path(__file__).resolve().parent / "data" / "real_cases_mixed37"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report, by the better of `check` and `why`: first seen (a378c796) and now.
CLASSES = {
    "sglang12887_qwen3_235b_fp8_a100.cmd": ("a", "a"),  # why: Triton's fp8e4nv, an FP8 checkpoint on SM80
    "sglang5871_qwen3_30b_fp8_a10.cmd": ("a", "a"),  # the same, on SM86
    "sglang15342_diffusion_rtx_pro_6000_fa.cmd": ("b", "b"),  # why: the site, "make the condition false"
    "sglang3436_r1_distill_1p5b_tp24.cmd": ("c", "a"),  # why: the quoted assert, now its callers' TP size
    "sglang8911_gb200_image_b200_arm.cmd": ("c", "c"),
    "sglang4978_dsr1_two_nodes_h20.cmd": ("c", "c"),
    "sglang12134_qwen3vl_spark_image_gb10.cmd": ("b", "b"),  # why: the site, "make the condition false"
    "sglang16302_qwen_image_sage3_gb10.cmd": ("c", "c"),
    "sglang18203_spark_sgl_kernel_common_ops.cmd": ("a", "a"),  # why: log signature sgl-kernel-common-ops
}
# the GPU and release a report names (or its date does)
OPTIONS: dict[str, tuple[str, ...]] = {
    "sglang12887_qwen3_235b_fp8_a100.cmd": ("--gpu", "a100-80gx8", "--framework-version", "0.5.5"),
    "sglang5871_qwen3_30b_fp8_a10.cmd": ("--gpu", "a10x2", "--framework-version", "0.4.6.post1"),
    "sglang15342_diffusion_rtx_pro_6000_fa.cmd": (
        "--gpu",
        "rtx-pro-6000",
        "--framework-version",
        "0.5.6.post2",
    ),
    "sglang3436_r1_distill_1p5b_tp24.cmd": ("--framework-version", "0.4.2.post4"),
    "sglang4978_dsr1_two_nodes_h20.cmd": ("--gpu", "h20x8", "--framework-version", "0.4.4.post3"),
    "sglang16302_qwen_image_sage3_gb10.cmd": ("--framework-version", "0.5.7"),
    "sglang18203_spark_sgl_kernel_common_ops.cmd": ("--framework-version", "0.5.8.post1"),
}
CORRECT = ["ok_sglang12134_qwen3vl_ngc_image.cmd", "ok_sglang15342_gb10_flashinfer_qwen25.cmd"]


BATCH = CheckBatch(CASES, CLASSES, CORRECT, OPTIONS, counts=([3, 2, 4, 0], [4, 2, 3, 0]))
check, why = BATCH.check, BATCH.why
globals().update(BATCH.tests())


def test_a_diffusion_generate_command_is_not_read_as_a_server() -> None:
    """sglang#16302's `sglang generate` (a one-shot diffusion run): SH019, no server start (as before)."""
    assert [f["code"] for f in check("sglang16302_qwen_image_sage3_gb10.cmd")["findings"]] == ["SH019"]


# What `why` gives on each quoted text: (confidence, the start of its first site's function or of the log
# signature's id, and of that site's (or signature's) fix).
WHY = {
    "sglang12887_qwen3_235b_fp8_a100.cmd": (
        "strong",
        "dtype.to_ir",
        "triton refused 'fp8e4nv', which comes from --kv-cache-dtype (sglang), --quantization (sglang)",
    ),
    "sglang5871_qwen3_30b_fp8_a10.cmd": (
        "strong",
        "dtype.to_ir",
        "triton refused 'fp8e4nv', which comes from --kv-cache-dtype (sglang), --quantization (sglang)",
    ),
    "sglang15342_diffusion_rtx_pro_6000_fa.cmd": (
        "strong",
        "flash_attn_with_kvcache",
        "make the condition false (not _is_fa3_supported())",
    ),
    "sglang12134_qwen3vl_spark_image_gb10.cmd": (
        "strong",
        "get_mm_processor",
        "make the condition false (processor_cls is None)",
    ),
    "sglang18203_spark_sgl_kernel_common_ops.cmd": (
        "none",
        "sgl-kernel-common-ops",
        "Read the ImportError above it; install the missing library or the sgl_kernel wheel for this "
        "CUDA/GPU",
    ),
    "sglang3436_r1_distill_1p5b_tp24.cmd": ("none", "", ""),
}


@pytest.mark.parametrize("name", sorted(WHY))
def test_what_why_gives_on_the_quoted_text(name: str) -> None:
    confidence, start, fix = WHY[name]
    section = why(name)
    assert section["confidence"] == confidence
    first = (section["matches"] or [None])[0]
    signature = (section["signatures"] or [None])[0]
    said = first["function"] if first else signature["id"] if signature else ""
    assert said.startswith(start) and bool(said) == bool(start)
    if fix:
        assert (first or signature)["fix"].startswith(fix)


def test_the_fp8_checkpoint_fix_names_the_gpu() -> None:
    """sglang#12887/#5871 (a): the FP8 checkpoint's e4m3 needs compute capability 8.9+, which Ampere lacks."""
    fix = why("sglang12887_qwen3_235b_fp8_a100.cmd")["matches"][0]["fix"]
    assert fix.endswith(
        "a checkpoint whose config.json says fp8 (quantization_config) needs a GPU of compute capability "
        "8.9+ or another variant of the model (bf16, int8, int4)"
    )


def test_the_quoted_divisibility_assert_names_the_tp_size() -> None:
    """sglang#3436 (c -> a): "assert numerator % denominator == 0", the statement of the parallel layers'
    helper whose message ("{} is not divisible by {}") is in the message index, not the assert index: found
    by its condition; the fix says what the callers pass (a dimension of the model over the TP size)."""
    trace = why("sglang3436_r1_distill_1p5b_tp24.cmd")["traceback"]
    assert (trace["state"], trace["function"], trace["source"]) == (
        "quoted",
        "ensure_divisibility",
        "assert numerator % denominator == 0",
    )
    assert trace["meaning"].startswith(
        "the quoted assert is vLLM's ensure_divisibility (vllm/distributed/utils.py; "
    )
    assert "SGLang's sglang/srt/distributed/utils.py" in trace["meaning"]
    assert trace["fix"].startswith(
        "its two numbers are what its callers pass: a dimension of the model over the parallel size that "
        "shards it (vLLM 0.33.0: "
    )
    assert trace["fix"].endswith(
        "the tensor-parallel size (--tensor-parallel-size) must divide each dimension the model shards (its "
        "attention and KV head counts among them, in its config.json): a --tensor-parallel-size that divides "
        "them (the message's first number is the dimension, the second the size) (in SGLang, which has the "
        "same helper: --tp-size)"
    )


# --- the mechanisms, on texts of our own -------------------------------------------------------------------


def test_the_divisibility_message_gets_the_callers_fix() -> None:
    """The message itself ("AssertionError: 12 is not divisible by 24", what sglang#3436's schedulers
    printed): each matched site of the helper gets the callers' fix, SGLang's with its DP-attention note."""
    section = explain("AssertionError: 12 is not divisible by 24", framework="sglang")
    first = section["matches"][0]
    assert (first["function"], first["file"]) == ("ensure_divisibility", "sglang/srt/distributed/utils.py")
    assert first["fix"].startswith(
        "its two numbers are what its callers pass: a dimension of the model over the parallel size that "
        "shards it (SGLang 0.5.23: "
    )
    assert "calls under sglang/srt, passing tp_size (" in first["fix"]
    assert "(--tp-size; with --enable-dp-attention, its attention part) must divide" in first["fix"]


def test_the_callers_table_is_the_generators() -> None:
    """frameworks/data/divide_callers.json (scripts/gen_divide_callers.py): per release read and package root,
    the calls, their denominators and the first call of each; every example's denominator is counted."""
    from argtrace.package_data import bundled_json

    table = bundled_json("frameworks/data/divide_callers.json")
    assert table["generated_by"] == "scripts/gen_divide_callers.py"
    assert sorted(table["frameworks"]) == ["sglang", "vllm"]
    assert sorted(table["frameworks"]["sglang"]["0.5.23"]["roots"]) == [
        "sglang/multimodal_gen/runtime",
        "sglang/srt",
    ]
    for releases in table["frameworks"].values():
        for facts in releases.values():
            for root, calls in facts["roots"].items():
                assert calls["calls"] == sum(calls["denominators"].values()) > 0
                for example in calls["examples"]:
                    assert (
                        example["file"].startswith(root + "/")
                        and example["denominator"] in calls["denominators"]
                    )


def test_a_quoted_condition_no_assert_has_is_still_nothing() -> None:
    assert explain("assert the_launch_flag_xyz % other_thing_abc == 7").get("traceback") is None


# The failure reports not in class a, with the word the cause's alarm must hold and the mechanism argtrace
# lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglang15342_diffusion_rtx_pro_6000_fa.cmd": (
        "attention-backend",
        "`why` reads `not _is_fa3_supported()` as the code's own condition: that the helper reads the GPU's "
        "compute capability (kernels/ops/attention/flash_attention_v3.py:84 of 0.5.23) is not followed; "
        "`check` does not judge SGLang Diffusion's default attention backend per GPU",
    ),
    "sglang8911_gb200_image_b200_arm.cmd": (
        "aarch64",
        "the image's sgl-kernel build against the host's CPU architecture is not known (and the stored copy "
        "cuts the error)",
    ),
    "sglang4978_dsr1_two_nodes_h20.cmd": (
        "IPv6",
        "the nodes' network (IPv6 connectivity, by the thread) is not in the launch",
    ),
    "sglang12134_qwen3vl_spark_image_gb10.cmd": (
        "FA3",
        "`why` gives get_mm_processor's own condition: that the processors' modules failed to import FA3 on "
        "this GPU (the lines above the message) is not read",
    ),
    "sglang16302_qwen_image_sage3_gb10.cmd": (
        "SageAttention",
        "`sglang generate` is not read as a start, and SageAttention 3 as the default backend on SM12x "
        "(until PR#15668) is not known; the error text is cut in the stored copy",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_named(name: str) -> None:
    word, _ = MISSING[name]
    said = [f["message"] + " " + (f.get("fix") or "") for f in alarms(check(name))]
    assert any(word in s for s in said)


def _generator() -> Any:
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "scripts" / "gen_divide_callers.py"
    spec = importlib.util.spec_from_file_location("gen_divide_callers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generator_reads_the_calls_per_package_root(tmp_path: Path) -> None:
    """A tree cut like a wheel: the helpers' own module is skipped, a ``divide`` not taken from a
    ``distributed`` module (a tensor op) is not counted, and each root counts its own callers."""
    files = {
        "WHEEL": "sglang-9.9.9-py3-none-any.whl",
        "sglang/srt/distributed/utils.py": "def ensure_divisibility(n, d):\n    assert n % d == 0\n"
        "def divide(n, d):\n    ensure_divisibility(n, d)\n    return n // d\n",
        "sglang/srt/layers/linear.py": "from sglang.srt.distributed import divide\n"
        "a = divide(self.total_num_heads, tp_size)\nb = divide(self.output_size, tp_size)\n",
        "sglang/srt/layers/other.py": "from torch import divide\nc = divide(x, y)\n",
        "sglang/multimodal_gen/runtime/distributed/utils.py": "def ensure_divisibility(n, d):\n    pass\n",
        "sglang/multimodal_gen/runtime/layers/vocab.py": "from sglang.multimodal_gen.runtime.distributed."
        "utils import divide\nv = divide(global_vocab_size, world_size)\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    release, facts = _generator().read_release("sglang", tmp_path)
    assert release == "9.9.9"
    assert facts["roots"] == {
        "sglang/multimodal_gen/runtime": {
            "calls": 1,
            "denominators": {"world_size": 1},
            "examples": [
                {
                    "denominator": "world_size",
                    "file": "sglang/multimodal_gen/runtime/layers/vocab.py",
                    "line": 2,
                    "numerator": "global_vocab_size",
                }
            ],
        },
        "sglang/srt": {
            "calls": 2,
            "denominators": {"tp_size": 2},
            "examples": [
                {
                    "denominator": "tp_size",
                    "file": "sglang/srt/layers/linear.py",
                    "line": 2,
                    "numerator": "self.total_num_heads",
                }
            ],
        },
    }
