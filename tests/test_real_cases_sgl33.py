"""SGLang batch of the 33rd session (docs/real_cases.md, "SGLang sgl33: DeepEP MoE against the GPU and the
activations' dtype, FA3 with an FP8 KV cache, SM100 backends on SM120"), measured before any fix.

Five failure reports of 2025-2026 whose cause lies in the launch (DeepSeek-V3.1-FP4 with trtllm_mla and
the flashinfer_trtllm MoE runner on RTX 6000D (SM120), MiniMax-M2.5 with FA3 and an fp8_e4m3 KV cache on
H100, MiniMax-M2.5 with DeepEP and float16 activations, DeepSeek-V3 with DeepEP normal mode and two-batch
overlap, the deepep backend on an Ada GPU) and two correct launches (``ok_*``). Each case under
``tests/data/real_cases_sgl33/`` names its URL in its header. A new user's machine (no resolver
environment, no Hugging Face cache); ``--gpu`` where the report names the GPU (the RTX 6000 Ada as nvidia-smi
prints it). Each command runs once per worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.batches import (
    RECONSTRUCTED,
    finding,
    missing_cases,
    recorded_check,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import REPO, Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl33"

pytestmark = pytest.mark.usefixtures("new_user_machine")

ADA = "NVIDIA RTX 6000 Ada Generation, 49140 MiB, 8.9x2"
# The class of each failure report, by `check`: first seen (aa354c67) and now.
CLASSES = {
    "sglang17880_dsv31_fp4_rtx6000d_trtllm_mla.sh": (
        "c",
        "a",
    ),  # RS082 (mixed34): trtllm_mla prefill on SM120
    "sglang20820_minimax_m25_fa3_fp8_kv_h100.cmd": ("c", "c"),
    "sglangpr19468_minimax_m25_deepep_fp16.cmd": ("c", "c"),
    "sglang16026_dsv3_deepep_normal_tbo.cmd": ("c", "c"),
    "sglang12320_deepep_ada_deepgemm.cmd": ("c", "b"),  # RS081's note: no release named
}
# the GPU a report names
OPTIONS: dict[str, tuple[str, ...]] = {
    "sglang17880_dsv31_fp4_rtx6000d_trtllm_mla.sh": ("--gpu", "rtx-pro-6000x8"),
    "sglang20820_minimax_m25_fa3_fp8_kv_h100.cmd": ("--gpu", "h100x8"),
    "sglangpr19468_minimax_m25_deepep_fp16.cmd": ("--gpu", "b200x8"),
    "sglang12320_deepep_ada_deepgemm.cmd": ("--gpu", ADA),
    "ok_sglangpr19468_minimax_m25_deepep_bf16.cmd": ("--gpu", "b200x8"),
}
CORRECT = [
    "ok_sglangpr19468_minimax_m25_deepep_bf16.cmd",
    "ok_sglangpr5190_dsv3_deepep_normal_two_nodes.cmd",
]


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([0, 0, 5, 0], [1, 1, 3, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-05: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


# what `check` rightly says of a failure report since a later batch (every other gives no error or warning)
ALARMS = {"sglang17880_dsv31_fp4_rtx6000d_trtllm_mla.sh": [("RS082", "warning")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm from `check` on any failure report, before or after: since mixed34 RS082 on
    sglang#17880 (its --attention-backend trtllm_mla prefills through FlashInfer's TRT-LLM-gen runner,
    SM100/SM103 only)."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_deepep_on_an_ada_gpu_without_a_release_named() -> None:
    """sglang#12320 names no release: analysed as 0.5.23, which asserts DeepGEMM for a quantized checkpoint
    only, so RS081 is a note naming 0.5.1.post3-0.5.11, which assert it for any MoE layer (b)."""
    note = finding(check("sglang12320_deepep_ada_deepgemm.cmd"), "RS081")
    assert note["severity"] == "info"
    assert note["message"] == (
        'if this runs sglang 0.5.1.post3-0.5.11, its DeepEP MoE layers assert DeepGEMM in auto mode ("DeepEP '
        'DeepEPMode.AUTO mode requires deep_gemm"), which is off below SM 90: on NVIDIA RTX 6000 Ada '
        "Generation (compute capability 8.9) the server dies while the model is built; sglang 0.5.23, which "
        "the analysis assumes, asserts it for a quantized checkpoint only (--quantization, or the "
        "checkpoint's own)"
    )
    assert note["fix"] == (
        "run on a Hopper or newer GPU (DeepGEMM needs SM 90), or drop --moe-a2a-backend deepep (or use "
        "--deepep-mode normal, which this assertion does not test, instead of auto)"
    )
    assert note["setting"] == "moe_a2a_backend"


_LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp-size 2 --ep-size 2 {extra}"


def _rs081(extra: str, *options: str) -> list[tuple[str, str]]:
    command = _LAUNCH.format(extra=extra)
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command]).json
    return [(f["code"], f["severity"]) for f in report["findings"] if f["code"] == "RS081"]


def test_rs081_only_where_the_release_asserts_deepgemm_on_that_gpu() -> None:
    """A warning for any MoE layer on 0.5.4.post3 and an A100; for a quantized one from 0.5.12.post1 (a note
    without --quantization); nothing on Hopper, in normal mode, with another runner backend, without --gpu."""
    deepep = "--moe-a2a-backend deepep"
    cases = [
        ((deepep, "--gpu", "a100-80g", "--framework-version", "0.5.4.post3"), [("RS081", "warning")]),
        ((deepep, "--gpu", ADA, "--framework-version", "0.5.11"), [("RS081", "warning")]),
        (
            (f"{deepep} --deepep-mode low_latency", "--gpu", ADA, "--framework-version", "0.5.9"),
            [("RS081", "warning")],
        ),
        (
            (f"{deepep} --quantization fp8", "--gpu", ADA, "--framework-version", "0.5.20"),
            [("RS081", "warning")],
        ),
        ((deepep, "--gpu", ADA, "--framework-version", "0.5.20"), [("RS081", "info")]),
        ((deepep, "--gpu", "h100", "--framework-version", "0.5.4.post3"), []),
        ((f"{deepep} --deepep-mode normal", "--gpu", ADA, "--framework-version", "0.5.4.post3"), []),
        ((f"{deepep} --moe-runner-backend triton", "--gpu", ADA, "--framework-version", "0.5.9"), []),
        ((deepep, "--framework-version", "0.5.4.post3"), []),
        (("", "--gpu", ADA, "--framework-version", "0.5.4.post3"), []),
    ]
    for (extra, *options), expected in cases:
        assert _rs081(extra, *options) == expected, (extra, options)


def test_the_table_as_read_from_the_wheels() -> None:
    """What scripts/gen_sglang_deepep_deepgemm.py read: the gate at SM 90 everywhere, the assertion for any
    MoE layer up to 0.5.11, for a quantized one from 0.5.12.post1."""
    data = json.loads((REPO / "src/argtrace/frameworks/data/sglang_deepep_deepgemm.json").read_text())
    releases = data["releases"]
    assert {f["gate_sm"] for f in releases.values()} == {90}
    anyone = sorted(r for r, f in releases.items() if not f["needs_quantized"])
    assert anyone == [
        "0.5.1.post3",
        "0.5.10.post1",
        "0.5.11",
        "0.5.2",
        "0.5.3",
        "0.5.3.post3",
        "0.5.4.post3",
        "0.5.5.post3",
        "0.5.6.post2",
        "0.5.7",
        "0.5.8.post1",
        "0.5.9",
    ]
    assert releases["0.5.23"]["assert_at"] == "srt/layers/moe/ep_moe/layer.py:176"
    assert releases["0.5.23"]["assert_test"] == (
        "self.deepep_mode.enable_low_latency() and (not _is_npu) and (not _is_hip) and (quant_config is not "
        "None)"
    )
    assert releases["0.5.4.post3"]["gate_at"] == "srt/layers/deep_gemm_wrapper/configurer.py"
    assert releases["0.5.3"]["gate_at"] == "srt/layers/quantization/deep_gemm_wrapper/configurer.py"


_CONFIGURER = """
def _compute_enable_deep_gemm():
    sm_version = get_device_sm()
    if sm_version < {gate}:
        return False
    return True
"""
_LAYER = """
class DeepEPMoE(FusedMoE):
    def __init__(self, quant_config=None):
        if _use_aiter or _is_npu:
            self.deprecate_flag = True
        elif deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM and isinstance(quant_config, Fp8Config):
            self.deprecate_flag = True
        else:
            self.deprecate_flag = False
        if self.deprecate_flag:
            return
        if self.deepep_mode.enable_low_latency() and not _is_npu{quantized}:
            assert deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM, (
                f"DeepEP {{self.deepep_mode}} mode requires deep_gemm"
            )
"""


def test_the_generator_reads_the_gate_the_assertion_and_the_escapes() -> None:
    """The generator on a minimal module pair: the SM gate, the assertion's line and test, whether it needs a
    quantized checkpoint, and the early-return tests that need no DeepGEMM (the one that does is left)."""
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_sglang_deepep_deepgemm import facts

    texts = {
        "sglang/srt/layers/deep_gemm_wrapper/configurer.py": _CONFIGURER.format(gate=90),
        "sglang/srt/layers/moe/ep_moe/layer.py": _LAYER.format(quantized=" and quant_config is not None"),
    }
    assert facts(texts) == {
        "gate_sm": 90,
        "gate_at": "srt/layers/deep_gemm_wrapper/configurer.py",
        "assert_at": "srt/layers/moe/ep_moe/layer.py:13",
        "assert_test": "self.deepep_mode.enable_low_latency() and (not _is_npu) and (quant_config is not "
        "None)",
        "needs_quantized": True,
        "escapes": ["_use_aiter or _is_npu"],
    }
    texts["sglang/srt/layers/moe/ep_moe/layer.py"] = _LAYER.format(quantized="")
    assert facts(texts)["needs_quantized"] is False
    del texts["sglang/srt/layers/deep_gemm_wrapper/configurer.py"]
    assert facts(texts) == {}  # no gate read: nothing recorded


# The failure reports `check` misses or gives only as a note, with the word the cause's alarm must hold and
# the mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglang20820_minimax_m25_fa3_fp8_kv_h100.cmd": (
        "fp8_e4m3",
        "FA3 with an fp8_e4m3 KV cache answers gibberish on MiniMax-M2.5 (v0.5.8/v0.5.9): a kernel accuracy "
        "bug (cf. sglang#5700's missing q_descale), no release refuses or warns about the combination",
    ),
    "sglangpr19468_minimax_m25_deepep_fp16.cmd": (
        "bfloat16",
        "DeepEP's dispatch takes bfloat16 activations only (DeepEP csrc/deep_ep.cpp); the float16 comes from "
        "the checkpoint's config at a local path, which a new user's machine does not have",
    ),
    "sglang16026_dsv3_deepep_normal_tbo.cmd": (
        "invalid configuration",
        "a CUDA launch-configuration error in a DeepEP normal-mode kernel with two-batch overlap on TP2/EP2: "
        "the kernel's limits are not read",
    ),
    "sglang12320_deepep_ada_deepgemm.cmd": (
        "DeepGEMM",
        "no release named: 0.5.23, which the analysis assumes, asserts DeepGEMM for quantized checkpoints "
        "only, so RS081 is a note naming 0.5.1.post3-0.5.11",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
