"""SGLang batch sgl24 (docs/real_cases.md, "SGLang sgl24: variables renamed per release, MoE block-quant sizes
against --tp/--ep, speculative top-k, scheduling and cache flags"), measured before any fix.

Fifteen failure reports of 2025-2026 whose cause lies in the launch (a variable another release renamed, a
flag a release removed, --tp/--ep against the checkpoint's FP8 blocks, --moe-dense-tp-size without DP
attention, speculative top-k under spec v2 or a paged backend, lpm without the radix cache, a checkpoint's
own quantization) and five correct launches (``ok_*``: NVFP4 dispatch with DP attention, a 4-node DeepEP
server, a STANDALONE draft, --tp-size 8 with --ep-size 8, `sglang serve` with SGLANG_ENABLE_SPEC_V2). Each
case under ``tests/data/real_cases_sgl24/`` names its URL in its header: ``.cmd`` launches (``argtrace check
-c``), one ``.sh`` script. The error a report quotes is in ``WHY_TEXTS`` (``argtrace why``). A new user's
machine (no resolver environment, no Hugging Face cache); ``--framework-version`` only where the report names
the release (srt-slurm PR#96: 0.5.5), ``--gpu`` where it names one argtrace has a profile of (A100, B200).
Each command runs once per worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import (
    RECONSTRUCTED,
    WhyCase,
    assert_why_gives,
    missing_cases,
    recorded_check,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl24"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check` and `why`: first seen (45bc8c85) and now.
CLASSES = {
    "srtslurm96_nvfp4_dispatch_renamed.cmd": ("b", "a"),
    "vastai275_qwen38_fp8_tp4_no_ep.cmd": ("a", "a"),
    "sglang18875_minimax25_a100_fp8.cmd": ("a", "a"),
    "sglangpr12167_enable_beta_spec_removed.cmd": ("b", "b"),
    "sglangpr27964_spec_v2_zero_removed.cmd": ("b", "b"),
    "sglangpr26570_radix_eviction_slru.cmd": ("b", "b"),
    "sglang9742_nextn_topk2_page16.cmd": ("c", "c"),
    "sglang14077_specv2_eagle3_topk4.cmd": ("c", "c"),
    "inferencex1157_moe_dense_tp_no_dp_attention.cmd": ("c", "c"),
    "sglangpr11702_tp8_ep7.cmd": ("c", "c"),
    "aiconfigurator572_nvfp4_no_quantization.cmd": ("c", "c"),
    "areal619_lpm_disable_radix_cache.cmd": ("c", "c"),
    "sglang23265_minimax27_tp8_fp8.cmd": ("c", "c"),
    "sglangpr34409_skip_tokenizer_init_grammar.cmd": ("c", "c"),
    "sglangpr21005_cuda_graph_max_bs_not_captured.cmd": ("c", "c"),
}
CORRECT = [
    "ok_sglangpr13756_nvfp4_dispatch.cmd",
    "ok_uccl562_deepep_ep32.sh",
    "ok_sglangpr23519_standalone_spec.cmd",
    "ok_sglangpr11702_tp8_ep8.cmd",
    "ok_sglcookbook240_serve_spec_v2.cmd",
]
# the release and GPU a report names (argtrace's profiles only)
OPTIONS = {
    "srtslurm96_nvfp4_dispatch_renamed.cmd": ("--framework-version", "0.5.5"),
    "sglang18875_minimax25_a100_fp8.cmd": ("--gpu", "a100-80g"),
    "aiconfigurator572_nvfp4_no_quantization.cmd": ("--gpu", "b200"),
}
# the error each report quotes (the others quote none, or a traceback cut before the message)
WHY_TEXTS = {
    "vastai275_qwen38_fp8_tp4_no_ep.cmd": (
        "(moe_intermediate_size=640 / moe_tp_size=4) % weight_block_size_n=128 != 0"
    ),
    "sglang18875_minimax25_a100_fp8.cmd": (
        'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are '
        "('fp8e4b15', 'fp8e5')\")"
    ),
}
WHY = [
    WhyCase(
        "vastai275_qwen38_fp8_tp4_no_ep.cmd",
        "a",
        "a",
        "check_quantized_moe_compatibility",
        "strong",
        at="sglang/srt/model_executor/model_runner_components/moe_ep_setup.py:172",
        settings=("ep_size", "tp_size", "SGLANG_SHARED_EXPERT_TP1"),
        fix="make the condition false (not envs.SGLANG_SHARED_EXPERT_TP1.get() and moe_intermediate_size // "
        "moe_tp_size % weight_block_size_n != 0 and (not _use_aiter)): change --ep, --tp-size",
    ),
    WhyCase(
        "sglang18875_minimax25_a100_fp8.cmd",
        "a",
        "a",
        "dtype.to_ir",
        "strong",
        at="triton/language/core.py:599",
        settings=("kv_cache_dtype", "quantization", "kv_cache_dtype", "quantization"),
        fix="triton refused 'fp8e4nv', which comes from --kv-cache-dtype (sglang), --quantization (sglang)",
    ),
]


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([2, 4, 9, 0], [3, 3, 9, 0])
    for case in WHY:
        assert "abcd".index(CLASSES[case.name][1]) <= "abcd".index(case.grade), case.name


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-04: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


# the alarms `check` gives now: each a true one (before any fix the same, with the wrong fix "remove")
ALARMS = {"srtslurm96_nvfp4_dispatch_renamed.cmd": [("PR001", "error")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm (d), before or after: the one error is PR001's on srt-slurm PR#96 (sglang 0.5.5 does
    not read the name the recipe sets); the others get notes only (abbreviations, a release not named, a
    flag a later release drops)."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_srtslurm96_names_the_spelling_the_release_reads() -> None:
    (pr001,) = [f for f in check("srtslurm96_nvfp4_dispatch_renamed.cmd")["findings"] if f["code"] == "PR001"]
    assert pr001["message"].endswith(
        "but not by sglang 0.5.5.post3: only newer releases read it; sglang 0.5.6.post2 renamed "
        "SGLANG_CUTEDSL_MOE_NVFP4_DISPATCH to SGLANG_MOE_NVFP4_DISPATCH, the name sglang 0.5.5.post3 reads"
    )
    assert pr001["fix"] == (
        "Rename SGLANG_MOE_NVFP4_DISPATCH to SGLANG_CUTEDSL_MOE_NVFP4_DISPATCH at <-c>:1:1."
    )
    assert pr001["fix_verified"] is True


# the class-b cases: no release named, so the newest release that takes the launch is assumed, and the cause
# is a note (the releases that refuse or ignore what the report's release refused or ignored)
NOTES = {
    "sglangpr12167_enable_beta_spec_removed.cmd": (
        "PA024",
        "--enable-beta-spec works in sglang 0.5.3.post3 but sglang 0.5.4.post3 no longer accepts it",
    ),
    "sglangpr27964_spec_v2_zero_removed.cmd": ("PR011", "0.5.21-0.5.23 do not know SGLANG_ENABLE_SPEC_V2"),
    "sglangpr26570_radix_eviction_slru.cmd": (
        "PR011",
        "sglang 0.5.3.post3-0.5.9 refuse --radix-eviction-policy slru (not one of its choices)",
    ),
}


@pytest.mark.parametrize("name", sorted(NOTES))
def test_class_b_cases_say_the_cause_in_a_note(name: str) -> None:
    code, said = NOTES[name]
    assert any(
        f["code"] == code and f["severity"] == "info" and said in f["message"]
        for f in check(name)["findings"]
    )
    assert {n for n, (_, now) in CLASSES.items() if now == "b"} == set(NOTES)


def _pr001(assignment: str, release: str) -> tuple[str, str, str, bool | None]:
    argv = ["check", "--format", "json", "--no-resolve", "--framework-version", release, "-c"]
    report = run_cli([*argv, f"{assignment} python3 -m sglang.launch_server --model-path /m"]).json
    (f,) = [f for f in report["findings"] if f["code"] in ("PR001", "PR002")]
    said = f["message"].split(f"sglang {release}: ", 1)[-1]  # PR001's reason after the releases it lists
    return f["code"], f["severity"], said, f.get("fix_verified")


def test_renames_across_releases_name_the_other_spelling() -> None:
    """Variants (not reports), from the releases' own renames (env_prefix_aliases.json): a name a newer
    release renamed to (SGLang PR#24297's all-reduce switch on 0.5.11), the old name after the last release
    that converted it (0.5.18), an ENABLE/DISABLE rename either way (the value inverted), a release that
    converts the name itself (PR002, as before) and a variable no release renamed (the fix stays remove)."""
    assert _pr001("SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=1", "0.5.11") == (
        "PR001",
        "error",
        "only newer releases read it; sglang 0.5.12.post1 renamed SGLANG_USE_JIT_ALL_REDUCE to "
        "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2, the name sglang 0.5.11 reads",
        True,
    )
    assert _pr001("SGLANG_CUTEDSL_MOE_NVFP4_DISPATCH=1", "0.5.18") == (
        "PR001",
        "warning",
        "the release ignores it; sglang 0.5.17 renamed SGLANG_CUTEDSL_MOE_NVFP4_DISPATCH to "
        "SGLANG_MOE_NVFP4_DISPATCH, the name sglang 0.5.18 reads",
        True,
    )
    assert _pr001("SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=1", "0.5.6.post2")[2].endswith(
        "sglang 0.5.7 renamed SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK to "
        "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK, the name sglang 0.5.6.post2 reads, which means the opposite"
    )
    assert _pr001("SGLANG_CUTEDSL_MOE_NVFP4_DISPATCH=1", "0.5.14")[:2] == ("PR002", "warning")
    assert _pr001("SGLANG_ENABLE_SPEC_V2=1", "0.5.23") == (
        "PR001",
        "warning",
        "the release ignores it",
        None,
    )


def test_an_inverted_rename_writes_the_opposite_value() -> None:
    argv = ["check", "--format", "json", "--no-resolve", "--framework-version", "0.5.6.post2", "-c"]
    command = "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=1 python3 -m sglang.launch_server --model-path /m"
    (f,) = [f for f in run_cli([*argv, command]).json["findings"] if f["code"] == "PR001"]
    assert f["fix_edits"] == [
        {
            "file": "<-c>",
            "start": "1:1",
            "end": "1:42",
            "replacement": "SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=0",
        }
    ]
    assert f["fix_verified"] is True


@pytest.mark.parametrize("case", WHY, ids=[c.name for c in WHY])
def test_why_on_the_quoted_errors(case: WhyCase) -> None:
    assert_why_gives(explain(WHY_TEXTS[case.name]), case, origin=False)


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglangpr12167_enable_beta_spec_removed.cmd": (
        "enable-beta-spec",
        "no release named: the newest release that accepts --enable-beta-spec (0.5.3.post3) is assumed and "
        "PA024 notes that 0.5.4.post3 dropped it; the CI ran main, where the flag is refused",
    ),
    "sglang9742_nextn_topk2_page16.cmd": (
        "page-size",
        "the removed --cuda-graph-bs picks 0.5.1.post3, which had no refusal of topk > 1 with page_size > 1 "
        "(0.5.10.post1 refuses it but for flashinfer): the report is the bug the later check answers",
    ),
    "sglang14077_specv2_eagle3_topk4.cmd": (
        "topk",
        "spec v2's topk-1-only limit was a tensor error in the worker, not a check of the arguments",
    ),
    "inferencex1157_moe_dense_tp_no_dp_attention.cmd": (
        "moe-dense-tp-size",
        "--moe-dense-tp-size is ignored without DP attention in the layer code (dp_attention/communicator), "
        "not in the arguments' resolution",
    ),
    "sglangpr11702_tp8_ep7.cmd": (
        "ep-size",
        "the block-quant check needs the checkpoint's config.json (moe_intermediate_size, "
        "weight_block_size): a new user has no Hugging Face cache and passes no --model-config",
    ),
    "aiconfigurator572_nvfp4_no_quantization.cmd": (
        "modelopt_fp4",
        "the quantization auto-detected from hf_quant_config.json needs the checkpoint's files",
    ),
    "areal619_lpm_disable_radix_cache.cmd": (
        "lpm",
        "the scheduler's _validate_and_adjust_policy turns lpm into fcfs without a log line when the radix "
        "cache is off: not in the arguments' code",
    ),
    "sglangpr27964_spec_v2_zero_removed.cmd": (
        "SGLANG_ENABLE_SPEC_V2",
        "no release named: the newest release that reads the variable (0.5.20) is assumed, where =0 still "
        "works; PR011's note says 0.5.21-0.5.23 do not know it",
    ),
    "sglangpr26570_radix_eviction_slru.cmd": (
        "radix-eviction-policy",
        "no release named: the newest release lists slru; PR011's note says 0.5.3.post3-0.5.9 refuse it",
    ),
    "sglang23265_minimax27_tp8_fp8.cmd": (
        "tp",
        "the block-quant check needs the checkpoint's config.json (no Hugging Face cache, no --model-config)",
    ),
    "sglangpr34409_skip_tokenizer_init_grammar.cmd": (
        "skip-tokenizer-init",
        "GrammarManager builds no grammar backend under --skip-tokenizer-init: the scheduler's code, not the "
        "arguments'",
    ),
    "sglangpr21005_cuda_graph_max_bs_not_captured.cmd": (
        "cuda-graph",
        "the capture list left out --cuda-graph-max-bs in the model runner of releases before the fix: "
        "runtime code",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}


COMPOSE = """services:
  sglang:
    image: lmsysorg/sglang:v0.5.5
    environment:
      SGLANG_MOE_NVFP4_DISPATCH: "1"
    command: python3 -m sglang.launch_server --model-path nvidia/DeepSeek-R1-0528-FP4-v2 --tp-size 4
"""


def test_a_renamed_variable_in_compose_is_renamed_where_written(tmp_path: Path) -> None:
    """Variant: srt-slurm PR#96's variable in a compose `environment:` on the image's release (0.5.5, read as
    0.5.5.post3): the fix renames it in the map, verified."""
    (tmp_path / "docker-compose.yml").write_text(COMPOSE, encoding="utf-8")
    report = run_cli(["check", "--format", "json", "--no-resolve", "docker-compose.yml"], cwd=tmp_path).json
    (f,) = [f for f in report["findings"] if f["code"] == "PR001"]
    assert f["fix_edits"] == [
        {
            "file": "docker-compose.yml",
            "start": "5:7",
            "end": "5:32",
            "replacement": "SGLANG_CUTEDSL_MOE_NVFP4_DISPATCH",
        }
    ]
    assert f["fix_verified"] is True
