"""An unsampled batch of SGLang launch failures of the 35th session (docs/real_cases.md, "SGLang, mixed35:
what a new user meets"), measured before any fix.

Eight failure reports of 2025-2026 taken in the order the `search` tool gave them for queries a user types
after a failed launch (sgl-project/sglang issues: a CPU server without --mem-fraction-static, DeepSeek-R1
BF16 with its NextN draft on A100s, DeepSeek-V3-0324 with --quantization fp8 --kv-cache-dtype fp8_e5m2,
Qwen3-Next on L20 and RTX 5880 Ada GPUs, DeepSeek-V3.2 with an FP8 KV cache, DeepSeek-V4 on H20-3e GPUs,
DeepSeek-V4-Flash-0731 on A800s with --kv-cache-dtype bfloat16) and two correct launches (``ok_*``: the
fixed commands of two of them).
Each case under ``tests/data/real_cases_mixed35/`` names its URL in its header; ``why/`` holds the error text
a report quotes. A new user's machine (no resolver environment, no Hugging Face cache); ``--gpu`` where the
report names the GPU (a card without a profile as nvidia-smi prints it), ``--framework-version`` where it
names the release or its date does. Each command runs once per worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.commands.why import explain
from argtrace.layers.log.messages import match_text
from tests.batches import (
    CheckBatch,
    missing_cases,
)
from tests.conftest import alarms

CASES = Path(__file__).resolve().parent / "data" / "real_cases_mixed35"

pytestmark = pytest.mark.usefixtures("new_user_machine")

H20_3E = "NVIDIA H20-3e, 143771 MiB, 9.0x8"
# The class of each failure report, by the better of `check` and `why`: first seen (2d1cff86) and now.
CLASSES = {
    "sglang11103_cpu_no_mem_fraction.cmd": ("c", "c"),
    "sglang5160_dsr1_bf16_nextn_a100_topk.cmd": ("d", "a"),  # why: was HiSparse's assertion; now torch's topk
    "sglang6418_dsv3_0324_quant_fp8_kv_e5m2.cmd": ("c", "c"),
    "sglang10711_qwen3next_l20_fa3.cmd": ("d", "a"),  # why: was a CUDA-graph helper's check; now FA3's launch
    "sglang10618_qwen3next_rtx5880_fa3.cmd": ("c", "c"),
    "sglang14691_dsv32_fp8_kv_cache.cmd": ("c", "c"),
    "sglang23763_dsv4_flash_h20.cmd": ("c", "c"),
    "sglang33194_dsv4_flash0731_a800_kv_bf16.cmd": ("b", "b"),  # why: the assert, "a bug of the release"
}
# the GPU and release a report names (or its date does)
OPTIONS: dict[str, tuple[str, ...]] = {
    "sglang11103_cpu_no_mem_fraction.cmd": ("--framework-version", "0.5.3"),
    "sglang5160_dsr1_bf16_nextn_a100_topk.cmd": ("--gpu", "a100-80gx8"),
    "sglang6418_dsv3_0324_quant_fp8_kv_e5m2.cmd": ("--framework-version", "0.4.6.post4"),
    "sglang10711_qwen3next_l20_fa3.cmd": ("--gpu", "l20x4", "--framework-version", "0.5.2"),
    "sglang10618_qwen3next_rtx5880_fa3.cmd": (
        "--gpu",
        "NVIDIA RTX 5880 Ada Generation, 49140 MiB, 8.9x4",
        "--framework-version",
        "0.5.2",
    ),
    "sglang14691_dsv32_fp8_kv_cache.cmd": ("--framework-version", "0.5.6.post2"),
    "sglang23763_dsv4_flash_h20.cmd": ("--gpu", H20_3E, "--framework-version", "0.5.12"),
    "sglang33194_dsv4_flash0731_a800_kv_bf16.cmd": ("--gpu", "a800-80gx8", "--framework-version", "0.5.23"),
    "ok_sglang23763_dsv4_flash_fp8_h20.cmd": ("--gpu", H20_3E, "--framework-version", "0.5.12"),
    "ok_sglang11103_cpu_with_mem_fraction.cmd": ("--framework-version", "0.5.3"),
}
CORRECT = ["ok_sglang11103_cpu_with_mem_fraction.cmd", "ok_sglang23763_dsv4_flash_fp8_h20.cmd"]


BATCH = CheckBatch(CASES, CLASSES, CORRECT, OPTIONS, counts=([0, 1, 5, 2], [2, 1, 5, 0]))
check, why = BATCH.check, BATCH.why
globals().update(BATCH.tests())


# What `why` gives on each quoted text: (confidence, the start of its origin or of its first site's
# function, and of that site's fix).
WHY = {
    "sglang5160_dsr1_bf16_nextn_a100_topk.cmd": (
        "none",
        "PyTorch's topk: k is larger than the dimension it selects from. In SGLang's EAGLE/NEXTN speculative "
        "decoding the draft tree keeps the best --speculative-num-draft-tokens - 1 of its topk + "
        "(num_steps - 1) * topk^2 candidates: lower --speculative-num-draft-tokens, or raise "
        "--speculative-eagle-topk or --speculative-num-steps",
        "",
    ),
    "sglang10711_qwen3next_l20_fa3.cmd": (
        "none",
        "FlashAttention 3's kernels (flash-attention's hopper/ sources, inside sgl-kernel or vLLM's "
        "vllm-flash-attn): the CUDA runtime refused the kernel's launch settings on this GPU",
        "",
    ),
    "sglang14691_dsv32_fp8_kv_cache.cmd": ("none", "", ""),
    "sglang33194_dsv4_flash0731_a800_kv_bf16.cmd": ("none", "", ""),
}


globals().update(BATCH.why_tests(WHY))


def test_the_fa3_origin_names_the_release_that_ignores_the_flag() -> None:
    """sglang#10711: SGLang 0.5.2 takes FlashAttentionBackend for Qwen3-Next's full-attention layers whatever
    --attention-backend says (model_executor/model_runner.py:1696), so the origin's fix says where a flag
    cannot help."""
    origin = why("sglang10711_qwen3next_l20_fa3.cmd")["origin"]
    assert origin["origin"].endswith(
        "choose an attention backend that is not FA3 (SGLang: --attention-backend triton or flashinfer; "
        "vLLM: --attention-backend); where the server takes FA3 by itself (SGLang 0.5.2's hybrid linear "
        "attention, Qwen3-Next) a later release that follows the flag, or an SM80/SM90 GPU"
    )
    assert origin["evidence"] == "hopper/flash_fwd_launch_template.h:190): invalid argument"


def test_the_bare_assert_is_named_with_its_statement() -> None:
    """sglang#33194 (b): the assert index names DeepSeekV4SingleKVPool.create_buffer's statement, but reads
    its operand (self.store_dtype, set from --kv-cache-dtype) as the code's own value: "a bug of the
    release", not the flag the report changed."""
    traceback = why("sglang33194_dsv4_flash0731_a800_kv_bf16.cmd")["traceback"]
    assert (traceback["state"], traceback["function"], traceback["source"]) == (
        "bare",
        "create_buffer",
        "assert self.store_dtype == torch.uint8",
    )
    assert traceback["settings"] == []


# --- the mechanisms, on texts of our own -------------------------------------------------------------------


def _first(text: str) -> tuple[str, str] | None:
    matches = match_text(text, "sglang")
    return (matches[0].site.function, matches[0].how) if matches else None


def test_a_number_placeholder_takes_only_a_number() -> None:
    """SGLang's "CUDA error {int(result[0])}({_cudaGetErrorString(result[0])})" (breakable_cuda_graph's
    checkCudaErrors) prints a whole number after "CUDA error ": a C++ check's "CUDA error (FILE:LINE): ..."
    is not it; its own text still is."""
    assert _first("CUDA error (/src/hopper/flash_fwd_launch_template.h:190): invalid argument") is None
    assert _first("RuntimeError: CUDA error 700(an illegal memory access was encountered)") == (
        "checkCudaErrors",
        "full",
    )


def test_a_partial_match_of_another_builtin_class_is_not_offered() -> None:
    """The words of SGLang's assertion "Req {i}: selected tokens {...} out of range for seq_len={n}" on a
    line that says RuntimeError (torch.topk's error, sglang#5160) are not its site; the same words after
    AssertionError, in a RuntimeError that quotes an AssertionError, or on a line of their own above
    another exception's line (the class says nothing of that line), still are."""
    assert _first("RuntimeError: selected index k out of range") is None
    assert _first("[2025-04-21 10:00:00 TP0] RuntimeError: selected tokens out of range for seq_len") is None
    site = "HiSparseCoordinator.naive_load_topk"
    text = "Req 3: selected tokens out of range for seq_len\nRuntimeError: worker failed"
    above = match_text(text, "sglang")
    assert (site, "partial") in [(m.site.function, m.how) for m in above]
    assert _first("AssertionError: Req 3: selected tokens out of range for seq_len") == (site, "partial")
    assert _first("RuntimeError: worker died: AssertionError: selected tokens out of range for seq_len") == (
        site,
        "partial",
    )


def test_the_topk_origin_without_sglang_words() -> None:
    origin = explain("selected index k out of range")["origin"]
    assert (origin["basis"], origin["source"]) == (
        "wording",
        "https://github.com/sgl-project/sglang/issues/5160",
    )


# The failure reports not in class a, with the word the cause's alarm must hold and the mechanism argtrace
# lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglang11103_cpu_no_mem_fraction.cmd": (
        "mem-fraction-static",
        "a crash of a main-branch commit only (5a290a5, between 0.5.3rc0 and 0.5.3): 0.5.2, 0.5.3 and "
        "0.5.3.post3 all test gpu_mem for None before comparing it; no release judged here has it",
    ),
    "sglang6418_dsv3_0324_quant_fp8_kv_e5m2.cmd": (
        "quantization",
        "the checkpoint is a local path whose config (already FP8) a new user's machine does not have, and "
        "the report's error is not in the stored copy",
    ),
    "sglang10618_qwen3next_rtx5880_fa3.cmd": (
        "FlashAttention",
        "the model's architecture (Qwen3NextForCausalLM) is in its config.json, which a new user's machine "
        "does not have: 0.5.2's hybrid backend taking FA3 on SM89 is not judged without it",
    ),
    "sglang14691_dsv32_fp8_kv_cache.cmd": (
        "kv-cache-dtype",
        "the quoted traceback stops inside the assert; the command is not in the stored copy",
    ),
    "sglang23763_dsv4_flash_h20.cmd": (
        "FP8",
        "what differs in the published checkpoint (its quantization, by the thread's FP8 fix) is in its "
        "config, which a new user's machine does not have; the report's error is not in the stored copy",
    ),
    "sglang33194_dsv4_flash0731_a800_kv_bf16.cmd": (
        "kv-cache-dtype",
        "the assert index reads self.store_dtype as the code's own value: that it comes from "
        "--kv-cache-dtype (through the model runner's KV pool) is not traced",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_named(name: str) -> None:
    word, _ = MISSING[name]
    said = [f["message"] + " " + (f.get("fix") or "") for f in alarms(check(name))]
    assert any(word in s for s in said)
