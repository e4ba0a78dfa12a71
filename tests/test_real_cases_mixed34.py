"""An unsampled batch of the 34th session (docs/real_cases.md, "SGLang and vLLM, mixed34: what a new user
meets"), measured before any fix.

Ten failure reports of 2025-2026 taken in the order the `search` tool gave them (SGLang and vLLM issues: a
DeepSeek-R1 server with --mem-fraction-static 0.93 on 8xH20, sgl-kernel's GemmaRMSNorm on an RTX 2080,
an AWQ-4bit Qwen3-VL on Turing cards under SGLang and vLLM, the default backends on an RTX PRO 6000,
RMSNorm on an RTX 5060, GLM-5.1-NVFP4's DSA kernels on SM120, TRTLLM MHA prefill on SM120, TRTLLM MLA
prefill on SM120, gpt-oss-20b on the RTX 2080 Ti of a mixed machine) and two correct launches (``ok_*``).
Each case under ``tests/data/real_cases_mixed34/`` names its URL in its header; ``why/`` holds the error
text a report quotes. A new user's machine (no resolver environment, no Hugging Face cache); ``--gpu`` where
the report names the GPU (a card without a profile as nvidia-smi prints it), ``--framework-version`` where
it names the release. Each command runs once per worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.batches import (
    CheckBatch,
    finding,
    missing_cases,
)
from tests.conftest import REPO, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_mixed34"

pytestmark = pytest.mark.usefixtures("new_user_machine")

TURING = "Quadro RTX 5000, 16384 MiB, 7.5x2"
# The class of each failure report, by the better of `check` and `why`: first seen (a735a926) and now.
CLASSES = {
    "sglang3840_dsr1_h20_mem093.cmd": ("c", "c"),
    "sglang24302_qwen35_rtx2080_gemma_rmsnorm.cmd": ("b", "b"),  # why: no kernel for SM75, "install a build"
    "sglang14116_qwen3vl32b_awq_cc75.cmd": ("b", "b"),  # why: the right site second, after a vLLM one
    "vllm29707_qwen3vl32b_awq_cc75.cmd": ("c", "c"),
    "sglang12178_rtxpro6000_default_backends.cmd": ("c", "c"),
    "sglang9600_rtx5060_rmsnorm.cmd": ("a", "a"),  # why: a build with SM120 kernels (CUDA 12.8+)
    "sglang26087_glm51_nvfp4_sm120_dsa.cmd": ("a", "a"),  # why: DeepGEMM has no SM120 kernel
    "sglangpr31959_qwen35_27b_trtllm_mha_sm120.cmd": ("b", "b"),  # why: the site, no flag; check: a note
    "sglang24633_dsv2lite_rtxpro6000_trtllm_mla_prefill.cmd": ("a", "a"),  # why's origin; now RS082 too
    "vllm28572_gptoss20b_2080ti_beside_3090.cmd": ("b", "b"),  # why: CUDA_DEVICE_ORDER, not the 2080 Ti
}
# the GPU and release a report names
OPTIONS: dict[str, tuple[str, ...]] = {
    "sglang3840_dsr1_h20_mem093.cmd": ("--gpu", "h20x8"),
    "sglang24302_qwen35_rtx2080_gemma_rmsnorm.cmd": ("--gpu", "NVIDIA GeForce RTX 2080, 8192 MiB, 7.5"),
    "sglang14116_qwen3vl32b_awq_cc75.cmd": ("--gpu", TURING),
    "vllm29707_qwen3vl32b_awq_cc75.cmd": ("--gpu", TURING),
    "sglang12178_rtxpro6000_default_backends.cmd": ("--gpu", "rtx-pro-6000"),
    "sglang9600_rtx5060_rmsnorm.cmd": ("--gpu", "NVIDIA GeForce RTX 5060 Laptop GPU, 8151 MiB, 12.0"),
    "sglang26087_glm51_nvfp4_sm120_dsa.cmd": ("--gpu", "rtx-pro-6000x8", "--framework-version", "0.5.12"),
    "sglangpr31959_qwen35_27b_trtllm_mha_sm120.cmd": ("--gpu", "rtx-pro-6000"),
    "sglang24633_dsv2lite_rtxpro6000_trtllm_mla_prefill.cmd": (
        "--gpu",
        "rtx-pro-6000",
        "--framework-version",
        "0.5.10",
    ),
    "vllm28572_gptoss20b_2080ti_beside_3090.cmd": (
        "--gpu",
        "NVIDIA GeForce RTX 2080 Ti, 11264 MiB, 7.5",
        "--framework-version",
        "0.11.0",
    ),
    "ok_vllmpr28561_gptoss20b_b200.cmd": ("--gpu", "b200"),
    "ok_sglang34918_rtxpro6000_flashinfer.cmd": ("--gpu", "rtx-pro-6000"),
}
CORRECT = ["ok_sglang34918_rtxpro6000_flashinfer.cmd", "ok_vllmpr28561_gptoss20b_b200.cmd"]
# what `check` rightly says of a failure report (every other gives no error or warning)
ALARMS = {"sglang24633_dsv2lite_rtxpro6000_trtllm_mla_prefill.cmd": [("RS082", "warning")]}


BATCH = CheckBatch(CASES, CLASSES, CORRECT, OPTIONS, counts=([3, 4, 3, 0], [3, 4, 3, 0]), alarms=ALARMS)
check, why = BATCH.check, BATCH.why
globals().update(BATCH.tests())


# What `why` gives on each quoted text: (confidence, the start of its origin or of its first site's
# function, and of that site's fix).
WHY = {
    "sglang9600_rtx5060_rmsnorm.cmd": (
        "weak",
        "the CUDA runtime: the installed build has no kernel for this GPU's architecture; install a build",
        "this only reports another error",
    ),
    "sglang24302_qwen35_rtx2080_gemma_rmsnorm.cmd": (
        "weak",
        "the CUDA runtime: the installed build has no kernel for this GPU's architecture; install a build",
        "this only reports another error",
    ),
    "sglang26087_glm51_nvfp4_sm120_dsa.cmd": ("none", "DeepGEMM's kernels (the build inside the server", ""),
    "sglang24633_dsv2lite_rtxpro6000_trtllm_mla_prefill.cmd": (
        "none",
        "FlashInfer's TRT-LLM-gen attention kernels (TllmGenFmhaRunner), built for SM100/SM103 only",
        "",
    ),
    "sglangpr31959_qwen35_27b_trtllm_mha_sm120.cmd": (
        "strong",
        "ServerArgs._handle_attention_backend_compatibility",
        "make the condition false (prefill_backend == 'trtllm_mha' and (not is_sm100_supported()))",
    ),
    "sglang14116_qwen3vl32b_awq_cc75.cmd": (
        "strong",
        "MLAPrefillBackend.validate_configuration",
        "the condition",
    ),
    "vllm28572_gptoss20b_2080ti_beside_3090.cmd": (
        "strong",
        "NvmlCudaPlatform.log_warnings",
        "make the condition false (len(set(device_names)) > 1 and os.environ.get('CUDA_DEVICE_ORDER') != "
        "'PCI_BUS_ID'): change CUDA_DEVICE_ORDER",
    ),
    "vllm29707_qwen3vl32b_awq_cc75.cmd": ("none", "", ""),
}


globals().update(BATCH.why_tests(WHY))


def test_the_awq_checkpoint_on_turing_is_found_second() -> None:
    """sglang#14116's text is no release's own message: the site that raises for a scheme on too old a GPU
    (CompressedTensorsConfig._check_scheme_supported) is `why`'s second answer, after a vLLM MLA prefill
    check its words also fit (b)."""
    second = why("sglang14116_qwen3vl32b_awq_cc75.cmd")["matches"][1]
    assert (second["function"], second["file"]) == (
        "CompressedTensorsConfig._check_scheme_supported",
        "sglang/srt/layers/quantization/compressed_tensors/compressed_tensors.py",
    )


def test_rs082_on_the_reported_gpu() -> None:
    """sglang#24633: 0.5.10 (read from 0.5.10.post1) accepts trtllm_mla on the RTX PRO 6000, whose SM120 the
    pinned FlashInfer's TRT-LLM-gen runner refuses."""
    warning = finding(check("sglang24633_dsv2lite_rtxpro6000_trtllm_mla_prefill.cmd"), "RS082")
    assert warning["severity"] == "warning"
    assert warning["message"] == (
        "sglang 0.5.10 (read from 0.5.10.post1, the bundled release of its family) accepts "
        "--attention-backend trtllm_mla on NVIDIA RTX PRO 6000 Blackwell Workstation Edition (compute "
        "capability 12.0; its check refuses only non-Blackwell GPUs, sglang/srt/server_args.py:2347), but "
        "the TRTLLM MLA prefill (TRTLLMMLABackend.forward_extend, "
        "sglang/srt/layers/attention/trtllm_mla_backend.py:1124) calls FlashInfer's "
        "trtllm_ragged_attention_deepseek, whose TllmGenFmhaRunner accepts SM100/SM103 only "
        "(flashinfer-python 0.6.7.post3, the release's pin: flashinfer/trtllm/fmha/fmhaRunner.cuh:30): the "
        'first prefill, the server\'s warm-up request, dies with "Unsupported architecture"'
    )
    assert warning["fix"] == (
        "prefill with a backend that is not a TRT-LLM one (--prefill-attention-backend flashinfer or "
        "triton), or drop --attention-backend trtllm_mla; on an SM100/SM103 GPU it runs"
    )
    assert warning["setting"] == "attention_backend"


_LAUNCH = (
    "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V2-Lite --trust-remote-code {extra}"
)


def _rs082(extra: str, *options: str) -> list[tuple[str, str, str]]:
    command = _LAUNCH.format(extra=extra)
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command]).json
    return [(f["code"], f["severity"], f["setting"]) for f in report["findings"] if f["code"] == "RS082"]


def test_rs082_only_where_the_release_accepts_the_gpu_and_flashinfer_refuses_it() -> None:
    """A warning on SM120 (the RTX PRO 6000, an RTX 5060) for 0.5.4.post3-0.5.23 and for the prefill backend
    alone; nothing on a B200 (SM100), where the release's own check refuses the GPU (0.5.3.post3 on SM120:
    SM100 only; an H100: not Blackwell), with a prefill backend that is not trtllm_mla, or without --gpu."""
    mla = "--attention-backend trtllm_mla"
    rtx5060 = "NVIDIA GeForce RTX 5060 Laptop GPU, 8151 MiB, 12.0"
    warning = [("RS082", "warning", "attention_backend")]
    cases = [
        ((mla, "--gpu", "rtx-pro-6000", "--framework-version", "0.5.4.post3"), warning),
        ((mla, "--gpu", "rtx-pro-6000", "--framework-version", "0.5.23"), warning),
        ((mla, "--gpu", rtx5060, "--framework-version", "0.5.18"), warning),
        ((mla, "--gpu", "rtx-pro-6000"), warning),  # no release named: 0.5.23 assumed
        (
            (
                "--prefill-attention-backend trtllm_mla",
                "--gpu",
                "rtx-pro-6000",
                "--framework-version",
                "0.5.23",
            ),
            [("RS082", "warning", "prefill_attention_backend")],
        ),
        (
            (
                f"{mla} --prefill-attention-backend flashinfer",
                "--gpu",
                "rtx-pro-6000",
                "--framework-version",
                "0.5.23",
            ),
            [],
        ),
        ((mla, "--gpu", "b200", "--framework-version", "0.5.23"), []),
        ((mla, "--gpu", "rtx-pro-6000", "--framework-version", "0.5.3.post3"), []),
        ((mla, "--gpu", "h100", "--framework-version", "0.5.10.post1"), []),
        ((mla, "--framework-version", "0.5.23"), []),
        (("--attention-backend flashinfer", "--gpu", "rtx-pro-6000", "--framework-version", "0.5.23"), []),
    ]
    for (extra, *options), expected in cases:
        assert _rs082(extra, *options) == expected, (extra, options)


def test_rs082_names_the_assumed_release() -> None:
    report = run_cli(
        [
            "check",
            "--format",
            "json",
            "--no-resolve",
            "--gpu",
            "rtx-pro-6000",
            "-c",
            _LAUNCH.format(extra="--attention-backend trtllm_mla"),
        ]
    ).json
    warning = finding(report, "RS082")
    assert warning["basis"] == "assumed"
    assert warning["message"].startswith(
        "sglang 0.5.23 accepts --attention-backend trtllm_mla on NVIDIA RTX PRO"
    )
    assert (
        "whose TllmGenFmhaRunner accepts SM100/SM103/SM107 only (flashinfer-python 0.7.2"
        in warning["message"]
    )
    assert warning["message"].endswith(
        "(assumed: nothing names the release; the newest that takes these flags)"
    )


def test_the_table_as_read_from_the_wheels() -> None:
    """What scripts/gen_sglang_trtllm_mla_prefill.py read from 24 SGLang wheels and the 15 FlashInfer
    wheels on PyPI they pin: every release from 0.5.2 calls the ragged prefill kernel; the argument check
    accepts SM100 only up to 0.5.3.post3, every Blackwell from 0.5.4.post3; no pinned FlashInfer's runner
    takes SM12x."""
    data = json.loads((REPO / "src/argtrace/frameworks/data/sglang_trtllm_mla_prefill.json").read_text())
    releases, runners = data["releases"], data["flashinfer"]
    assert len(releases) == 24 and len(runners) == 15
    calling = sorted(r for r, f in releases.items() if "kernel_at" in f)
    assert "0.5.1.post3" not in calling and len(calling) == 23
    assert {tuple(f["check_probes"]) for f in releases.values()} == {
        ("is_sm100_supported",),
        ("is_blackwell_supported",),
        ("is_blackwell",),
    }
    assert releases["0.5.3.post3"]["check_probes"] == ["is_sm100_supported"]
    assert releases["0.5.4.post3"]["check_probes"] == ["is_blackwell_supported"]
    assert releases["0.5.23"]["kernel_method"] == "TRTLLMMLABackend._run_prefill_kernel"
    assert releases["0.5.23"]["flashinfer"] == "0.7.2"
    assert all(not {120, 121} & set(r["runner_sms"]) for r in runners.values())
    assert runners["0.6.7.post3"] == {
        "runner_at": "flashinfer/trtllm/fmha/fmhaRunner.cuh:30",
        "runner_sms": [100, 103],
    }
    assert runners["0.7.2"]["runner_sms"] == [100, 103, 107]


_BACKEND = """
import flashinfer
class TRTLLMMLABackend(FlashInferMLAAttnBackend):
    def forward_extend(self, q, k, v):
        if self.prefix:
            return super().forward_extend(q, k, v)
        return flashinfer.prefill.trtllm_ragged_attention_deepseek(query=q, key=k, value=v)
"""
_CHECK = """
def _handle(self):
    if self.attention_backend == "trtllm_mla" or self.decode_attention_backend == "trtllm_mla":
        if not {probe}:
            raise ValueError("TRTLLM MLA backend is only supported on Blackwell GPUs (SM100/SM12x).")
"""
_RUNNER = """
  explicit TllmGenFmhaRunner(Data_type dtypeQ)
      : mSM(getSMVersion()) {{
    FLASHINFER_CHECK({test},
                     "Unsupported architecture");
"""


def test_the_generator_reads_the_call_the_check_the_pin_and_the_runner() -> None:
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_sglang_trtllm_mla_prefill import release_facts, runner_facts

    texts = {
        "sglang/srt/layers/attention/trtllm_mla_backend.py": _BACKEND,
        "sglang/srt/server_args.py": _CHECK.format(probe="is_blackwell_supported()"),
    }
    metadata = "Name: sglang\nRequires-Dist: flashinfer_python[cu13]==0.7.2\n"
    assert release_facts(texts, metadata) == {
        "flashinfer": "0.7.2",
        "kernel_at": "srt/layers/attention/trtllm_mla_backend.py:7",
        "kernel_method": "TRTLLMMLABackend.forward_extend",
        "check_at": "srt/server_args.py:5",
        "check_test": "not is_blackwell_supported()",
        "check_probes": ["is_blackwell_supported"],
    }
    texts["sglang/srt/server_args.py"] = _CHECK.format(probe="get_platform().is_blackwell")
    assert release_facts(texts, metadata)["check_probes"] == ["is_blackwell"]
    del texts["sglang/srt/layers/attention/trtllm_mla_backend.py"]
    assert "kernel_at" not in release_facts(texts, "")  # no call read: the layer says nothing
    header = _RUNNER.format(test="mSM == kSM_100 || mSM == kSM_103 || mSM == kSM_107")
    assert runner_facts(header) == {
        "runner_sms": [100, 103, 107],
        "runner_at": "flashinfer/trtllm/fmha/fmhaRunner.cuh:4",
    }
    assert runner_facts(_RUNNER.format(test="mSM >= kSM_100")) == {}


# The failure reports not in class a, with the word the cause's alarm must hold and the mechanism argtrace
# lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglang3840_dsr1_h20_mem093.cmd": (
        "mem-fraction-static",
        "the model is a local path (/model, DeepSeek-R1 by the report) whose config a new user's machine "
        "does not have: no memory estimate, so --mem-fraction-static 0.93 on 96 GB H20s is not judged",
    ),
    "sglang24302_qwen35_rtx2080_gemma_rmsnorm.cmd": (
        "SM75",
        "which sgl-kernel ops have SM75 kernels is not read from the sgl-kernel wheels (per-op cubin "
        "targets); why's origin advises installing a build for the GPU, which sgl-kernel does not publish "
        "for SM75",
    ),
    "sglang14116_qwen3vl32b_awq_cc75.cmd": (
        "capability",
        "the checkpoint's quantization (compressed-tensors WNA16, min capability 80) is in its config.json, "
        "which a new user's machine does not have; why ranks a vLLM MLA prefill check first",
    ),
    "vllm29707_qwen3vl32b_awq_cc75.cmd": (
        "capability",
        "the same checkpoint on vLLM: its quantization scheme is not read without the config; why has no "
        "site for a traceback whose raise line is not quoted",
    ),
    "sglang12178_rtxpro6000_default_backends.cmd": (
        "SM120",
        "the report gives no command nor error; the default backends it names are not refused on SM120 by "
        "0.5.23's checks",
    ),
    "sglangpr31959_qwen35_27b_trtllm_mha_sm120.cmd": (
        "trtllm_mha",
        "the prefill check of 0.5.10.post1-0.5.2x tests a local (prefill_backend = prefill_attention_backend "
        "or attention_backend) the raise-site index does not inline: RS036 names only 0.5.1.post3-0.5.9 and "
        "why's site reads no setting",
    ),
    "vllm28572_gptoss20b_2080ti_beside_3090.cmd": (
        "CUDA_VISIBLE_DEVICES",
        "which of a machine's GPUs a server takes is not in the launch; why names CUDA_DEVICE_ORDER, not the "
        "2080 Ti (compute capability 7.5) vLLM ran on",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
