"""The tenth batch of real failure reports (docs/real_cases.md, "Tenth batch"), measured before any fix.

Reports of 2026 (vLLM 0.20-0.29, SGLang of 2026, vllm-omni, a vLLM fork, ramalama): Gemma 4's drafter,
MTP with pipeline parallelism, a DFlash drafter's context, an fp8 KV cache on a V100, a plugin's flag, a
sampling flag given to the server, SGLang's spec-v2 and DP attention, DeepSeek-V4's experts over three
ranks. Each case under ``tests/data/real_cases_10/`` is our reconstruction of a launch posted in a public
issue; its header names the URL. The machine is a new user's (no resolver environment, no Hugging Face
cache); the release is passed only when the report names it (a nightly as its family), the GPU only when it
names the GPU. A miss is a strict ``xfail`` whose reason names the mechanism, so a change that alters the
outcome turns the test red. ``why`` cases take the error text the report quotes; one report (sglang#26640)
quotes only an error text. The three correct launches collected with this batch (``ok_*``) must raise no
error or warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import recorded_check
from tests.conftest import FRAMEWORK_BUG, Launch, Missed, alarms, v

CASES = Path(__file__).resolve().parent / "data" / "real_cases_10"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(launch: Launch) -> dict[str, Any]:
    return recorded_check(CASES, launch)


LAUNCHES = {
    "vllm42005": Launch("vllm42005_gemma4_assistant_without_mtp.cmd", v("0.20.2")),
    # a nightly of 0.26.1rc1: its family
    "vllm52069": Launch("vllm52069_mtp_pipeline_parallel.sh", v("0.26.1")),
    "vllm57941": Launch("vllm57941_dflash_draft_shorter_context.cmd", (*v("0.29.0"), "--gpu", "h200")),
    "onecat27": Launch("onecat27_fp8_kv_cache_v100.cmd", ("--gpu", "v100")),
    "vllmomni1081": Launch("vllmomni1081_stage_configs_path.cmd"),
    "ramalama758": Launch("ramalama758_temperature_flag.cmd"),
    "sglang16624": Launch("sglang16624_spec_v2_dsv32_dp_attention.sh"),
    "vllm52435": Launch("vllm52435_dsv4_pp3_experts.sh"),
    "sglang19760": Launch("sglang19760_dp_attention_tp8_dp4.cmd"),
}

CORRECT = {
    "ok_vllm42180_gemma4_e4b_mtp": Launch("ok_vllm42180_gemma4_e4b_mtp.cmd"),
    "ok_vllm44911_mistral_small4_nvfp4": Launch("ok_vllm44911_mistral_small4_nvfp4.sh"),
    "ok_sglang16624_spec_v1_dsv32_dp_attention": Launch("ok_sglang16624_spec_v1_dsv32_dp_attention.cmd"),
}

# --- class a by `check`: the root cause and a correct fix on the first screen (both on first sight) --------

FOUND_10 = {
    # the fork's reporter kept an fp8 cache with fp8_e5m2 (its own build); auto is vLLM's working choice
    "onecat27": (
        "RS030",
        "warning",
        "--kv-cache-dtype fp8 on Tesla V100-PCIE-32GB (compute capability 7.0): vllm 0.33.0 has no "
        "FlashAttention (SM80+) or FlashInfer (SM75+) backend for it, and the Triton attention backend "
        "raises "
        '"FP8 KV cache is not supported by the Triton attention backend ... native FP8 (fp8e4nv) requires '
        'SM89+" (TritonAttentionImpl.__init__, vllm/v1/attention/backends/triton_attn.py; vllm '
        "0.24.0-0.33.0)",
        "--kv-cache-dtype auto (or float16) on Tesla V100-PCIE-32GB; an fp8 KV cache needs compute "
        "capability 8.9+",
    ),
    "ramalama758": (
        "PA001",
        "warning",
        '--temperature is not a vllm 0.33.0 flag: the server refuses to start ("unrecognized arguments", '
        "exit 2)",
        "remove the flag (no vllm 0.33.0 flag is spelled like it)",
    ),
}


@pytest.mark.parametrize("name", sorted(FOUND_10))
def test_batch_10_the_root_cause_is_named(name: str) -> None:
    report = check(LAUNCHES[name])
    assert [(f["code"], f["severity"], f["message"], f["fix"]) for f in alarms(report)] == [FOUND_10[name]]


# --- class b by `check`: the flag is named, the cause is not -----------------------------------------------

OMNI_FIX = (
    "no vllm-omni release matches vLLM 0.33's major.minor (vllm-omni releases: 0.14.0, 0.16.0, 0.18.0, "
    "0.20.0, 0.22.0, 0.24.0, 0.26.0, 0.28.0, 0.30.0): run vLLM 0.30 with vllm-omni 0.30.0 (started as "
    "`vllm-omni serve ...`), installing vLLM first"
)  # vllm-omni 0.20.0 on install no `vllm` command (data/plugin_flags.json): `vllm serve` stays vLLM's


def test_vllmomni1081_names_the_plugin_flags_not_the_release_candidate() -> None:
    """vllm-omni v0.14.0rc1 took --omni and refused --stage-configs-path (the docs were ahead of the
    release); argtrace indexes released vllm-omni wheels (0.14.0 on has the flag), so it says the flags are
    the plugin's and assumes the plugin's command did not run: class b."""
    # one cause (causes.py one-plugin): --stage-configs-path follows from --omni and shares its fix
    found = [
        (g["code"], g["severity"], g["message"], f["fix"])
        for f in check(LAUNCHES["vllmomni1081"])["findings"]
        for g in (f, *f.get("consequences", []))
        if g["severity"] != "info"
    ]
    tail = (
        "read only when vllm-omni's own `vllm`/`vllm-omni` command parses the launch; vLLM's own `vllm` "
        'refuses it ("unrecognized arguments", exit 2), as it does when vllm-omni is not installed or vLLM '
        "was installed after it (assumed: the installed packages are not visible here)"
    )
    assert found == [
        (
            "PA001",
            "warning",
            f"--omni is not a vllm 0.33.0 flag: it is vllm-omni's (vllm-omni 0.14.0-0.30.0 add it), {tail}",
            OMNI_FIX,
        ),
        (
            "PA001",
            "warning",
            "--stage-configs-path is not a vllm 0.33.0 flag: it is vllm-omni's (vllm-omni 0.14.0-0.26.0 add "
            f"it), {tail}",
            OMNI_FIX,
        ),
    ]


# --- misses: no error or warning names the root cause -------------------------------------------------------

STAND_IN = "PR008: the named release is read from its family's bundled release (true of argtrace's reach)"

MISSED_10 = [
    Missed(
        "vllm42005",
        'a Gemma 4 \'-assistant\' drafter is an MTP head, to be given with "method": "mtp"; as a plain draft '
        "model vLLM 0.20.2 refuses it for a multimodal target: the drafter's kind (its config.json, not on a "
        "new user's machine); `why` names SpecDecodeBaseProposer._raise_if_multimodal with no setting "
        "(class b by why)",
    ),
    Missed(
        "vllm52069",
        f"SpeculativeConfig verifies the MTP draft against the target's pipeline size: {FRAMEWORK_BUG}; "
        "`why` names ModelConfig.verify_with_parallel_config and --pipeline-parallel-size (a workaround). "
        f"{STAND_IN}",
        besides=("PR008",),
    ),
    Missed(
        "vllm57941",
        f"no guard keeps requests longer than the DFlash drafter's context from it: {FRAMEWORK_BUG}; `why` "
        "on the CUDA error has no site (weak)",
    ),
    Missed("sglang16624", f"the spec-v2 overlap scheduler with DP attention crashed: {FRAMEWORK_BUG}"),
    Missed(
        "vllm52435",
        "DeepSeek-V4-Flash's 256 experts (its config.json) over an expert group of 3 ranks; the release is "
        "not named (PA026 info: 0.33.0's AttentionConfig lacks the report's use_fp4_indexer_cache); `why` "
        "names DeepseekV4MoE._init_mega_moe_experts with no setting (class b by why)",
    ),
    Missed(
        "sglang19760",
        f"the warmup dummy run with DP attention and dp < tp: {FRAMEWORK_BUG} (PR#19760); `why` matched a "
        "vLLM MiniMax site as if it were the cause (d by why), now PyTorch's process group (weak)",
    ),
]


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.name, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in MISSED_10],
)
def test_batch_10_a_missed_root_cause_is_still_missed(case: Missed) -> None:
    # an error or warning means something changed: look at it, then move the case
    found = alarms(check(LAUNCHES[case.name]))
    assert [f for f in found if f["code"] not in case.besides] != []


def test_batch_10_the_misses_raise_no_other_alarm() -> None:
    """Class d is a wrong error or warning: the misses raise none besides the listed ones (none was d on
    first sight)."""
    got = {}
    for case in MISSED_10:
        codes = sorted({f["code"] for f in alarms(check(LAUNCHES[case.name]))})
        if codes:
            got[case.name] = codes
    assert got == {}  # PR008, the family's stand-in, is a note


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_batch_10_correct_launches_raise_no_alarm(name: str) -> None:
    assert alarms(check(CORRECT[name])) == []


# --- `argtrace why` on the error text a report quotes -----------------------------------------------------


@dataclass(frozen=True)
class Why:
    url: str
    text: str
    function: str | None
    settings: tuple[str, ...]
    confidence: str
    klass: str  # a / b / c / d, by why alone, after this batch


WHY_10 = [
    Why(
        "https://github.com/1CatAI/1Cat-vLLM/issues/27",
        'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are '
        "('fp8e4b15', 'fp8e5')\")",
        "dtype.to_ir",
        ("kv_cache_dtype", "quantization", "kv_cache_dtype", "quantization"),
        "strong",
        "a",
    ),
    Why(
        "https://github.com/containers/ramalama/issues/758",
        "vllm: error: unrecognized arguments: --temperature 0.8",
        "FlexibleArgumentParser.parse_args",
        (),
        "strong",
        "a",
    ),
    Why(
        "https://github.com/vllm-project/vllm-omni/issues/1081",
        "vllm: error: unrecognized arguments: --stage-configs-path",
        "FlexibleArgumentParser.parse_args",
        ("stage_configs_path",),
        "strong",
        "b",
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/42005",
        "NotImplementedError: Speculative Decoding with draft models or parallel drafting does not support "
        "multimodal models yet",
        "SpecDecodeBaseProposer._raise_if_multimodal",
        (),
        "strong",
        "b",
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/52435",
        "AssertionError: n_physical_experts=256 must be divisible by ep_size=3. Adjust "
        "num_redundant_experts.",
        "DeepseekV4MoE._init_mega_moe_experts",
        (),
        "strong",
        "b",
    ),
    # a framework bug: the site of the raise and the flag as a workaround, not the cause (class c)
    Why(
        "https://github.com/vllm-project/vllm/issues/52069",
        "NotImplementedError: Pipeline parallelism is not supported for this model. Supported models "
        "implement "
        "the `SupportsPP` interface.",
        "ModelConfig.verify_with_parallel_config",
        ("pipeline_parallel_size",),
        "strong",
        "c",
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/57941",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        "check_cuda_result",
        (),
        "weak",
        "c",
    ),
    # was d: vLLM's "k_scale and v_scale must be on the same device as output" (21 characters, partial) came
    # first as a strong match; PyTorch's wording now says whose text it is, and two signs need 40 characters
    Why(
        "https://github.com/sgl-project/sglang/pull/19760",
        "ValueError: input tensor must be the same size as output size times world size",
        "_kv_scale_args",
        (),
        "weak",
        "c",
    ),
    Why(
        "https://github.com/sgl-project/sglang/issues/26640",
        "KeyError: 'gemma4_assistant'",
        None,
        (),
        "none",
        "c",
    ),
]


@pytest.mark.parametrize(
    "case", WHY_10, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1]
)
def test_batch_10_why_first_site(case: Why) -> None:
    section = explain(case.text)
    matches = section["matches"]
    first = matches[0] if matches else None
    got = (first["function"], tuple(s["name"] for s in first["settings"])) if first else (None, ())
    assert (*got, section["confidence"]) == (case.function, case.settings, case.confidence)


def test_sglang19760_why_says_pytorch_s_process_group_printed_it() -> None:
    section = explain(WHY_10[7].text)
    assert section["origin"] == {
        "origin": "PyTorch's process group (torch.distributed, ProcessGroupNCCL): a collective's input and "
        "output tensors do not fit the group's world size",
        "basis": "wording",
        "evidence": "input tensor must be the same size as output size times world size",
        "source": "https://github.com/sgl-project/sglang/pull/19760",
    }
    assert section["reasons"] == [
        "the best site shares 21 literal characters with the text (fewer than 40)",
        "only some of its words occur in the text, in order",
        "the text comes from PyTorch's process group (torch.distributed, ProcessGroupNCCL) (its wording)",
        # why28's missing-opening sign (why_confidence.head_missing)
        "the site's message opens with 'k_scale and v_scale must', which the text does not hold",
        # why25's stock-phrase sign (why_confidence.words_amid)
        "the text holds the site's words 'must be' amid others: 'tensor' before them where the site has "
        "'v_scale', 'the' after them where the site has 'on'",
    ]


def test_the_all_gather_twin_of_the_message_is_pytorch_s_too() -> None:
    """sglang#3658's "output tensor size must be equal to world_size times input tensor size"."""
    section = explain("RuntimeError: output tensor size must be equal to world_size times input tensor size")
    assert section["origin"]["basis"] == "wording"


SOURCE = re.compile(r"^# Reconstructed \(not copied\) after https://\S+ .*seen \d{4}-\d{2}-\d{2}: \S", re.M)


@pytest.mark.parametrize("path", sorted(CASES.iterdir()), ids=lambda p: p.name)
def test_every_batch_10_case_names_its_source(path: Path) -> None:
    assert SOURCE.search(path.read_text().splitlines()[0]), path.name
