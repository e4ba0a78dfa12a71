"""SGLang batch of the 27th session (docs/real_cases.md, "SGLang sgl27: NGRAM trie sizes, NIXL and Mooncake
transfer flags, DFLASH under PD, HiCache storage backends per model, LoRA target modules, EPLB without an
all-to-all backend, AITER on Radeon, multi-layer EAGLE"), measured before any fix.

Thirteen failure reports of 2025-2026 whose cause lies in the launch (an NGRAM trie capacity equal to its
depth, ``--disaggregation-ib-device`` on the NIXL path without ``UCX_NET_DEVICES``, DFLASH on a PD decode
server, HiCache's Mooncake and file backends on DeepSeek-V4-Flash and Gemma 4, PEFT's ``all-linear`` for
``--lora-target-modules``, LoRA on a W4A16 MoE with CUDA graphs, EPLB's redundant experts without an
all-to-all backend, Qwen3.5 on an RTX 5090, AITER on a gfx1100, NGRAM beside ReplaySSM, multi-layer EAGLE's
auto-filled sizes, mixed chunk beside EAGLE3) and five correct launches (``ok_*``). Each case under
``tests/data/real_cases_sgl27/`` names its URL in its header: ``.cmd`` launches (``argtrace check -c``) and
scripts. A new user's machine (no resolver environment, no Hugging Face cache); ``--framework-version``
only where the report names its release (sglang#36536: 0.5.18), ``--gpu`` only where it names a GPU argtrace
has a profile of (gpustack#4770: RTX 5090). Each command runs once per worker (tests/batches.py's
``recorded_*``).
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
    finding,
    missing_cases,
    recorded_check,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl27"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check` and `why`: first seen (0f0ca7e8) and now.
CLASSES = {
    "sglang36495_ngram_capacity_equals_depth.cmd": ("c", "a"),
    "sglang36536_multi_layer_eagle_llama.cmd": ("a", "a"),
    "verlpr7413_lora_target_all_linear.cmd": ("b", "b"),
    "sglangpr37061_ngram_replayssm_gdn.cmd": ("b", "b"),
    "sglangpr28737_nixl_ib_device_two_hosts.sh": ("c", "c"),
    "sglangpr34285_dflash_pd_decode.sh": ("c", "c"),
    "sglang26647_hicache_mooncake_dsv4_flash.sh": ("c", "c"),
    "sglang24800_gemma4_hicache_file.cmd": ("c", "c"),
    "sglang26930_lora_w4a16_moe_cuda_graph.cmd": ("c", "c"),
    "sglangpr32962_eplb_redundant_no_a2a.cmd": ("c", "c"),
    "gpustack4770_qwen35_rtx5090.cmd": ("c", "c"),
    "sglangpr36867_gfx1100_default_aiter.cmd": ("c", "c"),
    "sglangpr26201_mixed_chunk_eagle3.cmd": ("c", "c"),
}
# the release or GPU a report names, where argtrace has it (sglang#36536 tested on 0.5.18; gpustack#4770's
# RTX 5090)
OPTIONS = {
    "sglang36536_multi_layer_eagle_llama.cmd": ("--framework-version", "0.5.18"),
    "gpustack4770_qwen35_rtx5090.cmd": ("--gpu", "rtx-5090"),
}
CORRECT = [
    "ok_sglang36495_ngram_capacity_8.cmd",
    "ok_sglangpr28737_nixl_ucx_net_devices.sh",
    "ok_sglangpr19663_hicache_file_mamba.cmd",
    "ok_sglangpr22916_pd_mooncake_deterministic.sh",
    "ok_sglangpr20016_npu_hicache_mooncake.sh",
]

# the error each report quotes (the others quote none argtrace could read)
WHY_TEXTS = {
    "sglang36495_ngram_capacity_equals_depth.cmd": "munmap_chunk(): invalid pointer",
    "sglang36536_multi_layer_eagle_llama.cmd": (
        "AssertionError: multi-layer EAGLE requires speculative_num_draft_tokens == "
        "speculative_num_steps + 1, got 8 and 5"
    ),
    "sglangpr37061_ngram_replayssm_gdn.cmd": (
        "AssertionError: ReplaySSM fold-every-commit supports a linear draft chain only (topk <= 1); EAGLE "
        "tree verify must use the recurrent verify."
    ),
}
WHY = [
    # the C++ trie's abort quotes no framework site (c); `check`'s RS066 names the cause
    WhyCase("sglang36495_ngram_capacity_equals_depth.cmd", "c", "c", None, "none"),
    # the assert and the two sizes the release auto-filled (a): the report's fix gives them explicitly
    WhyCase(
        "sglang36536_multi_layer_eagle_llama.cmd",
        "a",
        "a",
        "MultiLayerEagleDraftWorker.__init__",
        "strong",
        at="sglang/srt/speculative/multi_layer_eagle_worker_v2.py:150",
        settings=("speculative_num_draft_tokens", "speculative_num_steps"),
        fix="make the condition false (not (self.speculative_num_draft_tokens == "
        "self.speculative_num_steps + 1)): change --speculative-num-draft-tokens, --speculative-num-steps",
    ),
    # the raise site is right, but the fix sends the user to the linear-attention backend (b; before this
    # batch to --attention-backend, which does not pick it): the tree mask is NGRAM's, and the report's fix
    # drops --enable-linear-replayssm-spec or NGRAM
    WhyCase(
        "sglangpr37061_ngram_replayssm_gdn.cmd",
        "b",
        "b",
        "GDNAttnBackend._replayssm_fold_target_verify",
        "strong",
        at="sglang/srt/layers/attention/linear/gdn_backend.py:1385",
        settings=("linear_attn_backend",),
        fix="make the condition false (not (retrieve_parent_token is None)); the backend that raised is the "
        "one --linear-attn-backend picked",
    ),
]


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([1, 2, 10, 0], [2, 2, 9, 0])
    for case in WHY:
        assert "abcd".index(CLASSES[case.name][1]) <= "abcd".index(case.grade), case.name


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-04: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


ALARMS = {"sglang36495_ngram_capacity_equals_depth.cmd": [("RS066", "warning")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm from `check`, before or after: the one warning is RS066's on sglang#36495's trie; the
    others get notes only (the release assumed, --tp read as --tp-size, PA009's note on 'all-linear')."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_the_trie_finding_names_both_sizes_the_failure_and_the_fix() -> None:
    rs066 = finding(check("sglang36495_ngram_capacity_equals_depth.cmd"), "RS066")
    assert rs066["message"] == (
        "--speculative-ngram-capacity 4 is not above --speculative-ngram-max-trie-depth 4: the NGRAM trie "
        "holds 4 nodes and its root takes one, so a suffix of 4 tokens finds 3 free; once a request holds 4 "
        "tokens Trie::insert evicts a node from an empty LRU list and frees an invalid pointer "
        '("munmap_chunk(): invalid pointer"), which aborts the scheduler, and the server stops'
    )
    assert rs066["fix"] == (
        "give --speculative-ngram-capacity a value above 4 (its default is 10000000), or lower "
        "--speculative-ngram-max-trie-depth below 4"
    )
    assert (rs066["at"], rs066["setting"], rs066["basis"]) == (
        "<-c>:1:156",
        "speculative_ngram_capacity",
        "assumed",
    )


@pytest.mark.parametrize("case", WHY, ids=[c.name for c in WHY])
def test_why_on_the_quoted_errors(case: WhyCase) -> None:
    assert_why_gives(explain(WHY_TEXTS[case.name]), case, origin=False)


def _rs066(flags: str, *options: str) -> list[tuple[str, str]]:
    command = f"python3 -m sglang.launch_server --model-path m {flags}"
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command]).json
    return [(f["severity"], f["message"]) for f in report["findings"] if f["code"] == "RS066"]


def test_the_trie_against_its_depth_per_value_algorithm_and_release() -> None:
    """Variants (not reports) of sglang#36495: a capacity below the release's default depth (18) fails too
    (Trie::squeeze raises); a capacity above the depth, NGRAM's defaults, another algorithm and a release
    without the depth flag (0.5.9) say nothing; the release named makes it an error."""
    ngram = "--speculative-algorithm NGRAM"
    ((severity, message),) = _rs066(f"{ngram} --speculative-ngram-capacity 8")
    assert severity == "warning"
    assert message.startswith(
        "--speculative-ngram-capacity 8 is not above --speculative-ngram-max-trie-depth 18:"
    )
    assert message.endswith(
        'Trie::squeeze raises "Insufficient node size to release required nodes", and the server stops'
    )
    for flags in (
        f"{ngram} --speculative-ngram-max-trie-depth 4 --speculative-ngram-capacity 5",
        ngram,
        f"{ngram} --speculative-ngram-max-trie-depth 40",
        "--speculative-algorithm EAGLE --speculative-ngram-capacity 4",
    ):
        assert _rs066(flags) == [], flags
    assert _rs066(f"{ngram} --speculative-ngram-capacity 4", "--framework-version", "0.5.9") == []
    equal = f"{ngram} --speculative-ngram-max-trie-depth 6 --speculative-ngram-capacity 6"
    assert [(s, m.split(":", 1)[0]) for s, m in _rs066(equal, "--framework-version", "0.5.23")] == [
        ("error", "--speculative-ngram-capacity 6 is not above --speculative-ngram-max-trie-depth 6")
    ]


def test_the_trie_read_from_an_engine_s_keywords(tmp_path: Path) -> None:
    """The same sizes given to ``sglang.Engine`` as keywords (a Python launch): the same finding, at the
    keyword's value."""
    script = tmp_path / "engine.py"
    script.write_text(
        "import sglang as sgl\n"
        'llm = sgl.Engine(model_path="Qwen/Qwen3-8B", speculative_algorithm="NGRAM", '
        "speculative_ngram_capacity=4, speculative_ngram_max_trie_depth=4)\n",
        encoding="utf-8",
    )
    report = run_cli(["check", "--format", "json", "--no-resolve", str(script)]).json
    assert [(f["severity"], f["at"]) for f in report["findings"] if f["code"] == "RS066"] == [
        ("warning", f"{script}:2:125")
    ]


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "verlpr7413_lora_target_all_linear.cmd": (
        "all-linear",
        "PA009 names the refused value and SGLang's 'all', but as a note: no bundled release lists "
        "'all-linear', and a release newer than the bundled ones might (the false-alarm gate holds such a "
        "launch, cases12's sglang#8582), so an invalid choice on an assumed release stays a note",
    ),
    "sglangpr37061_ngram_replayssm_gdn.cmd": (
        "replayssm",
        "`why` finds the GDN backend's assert, but its condition reads a local (retrieve_parent_token), so "
        "the fix falls back to --linear-attn-backend; that NGRAM always builds a tree mask is the worker's "
        "code, and the model's GDN layers are in config.json",
    ),
    "sglangpr28737_nixl_ib_device_two_hosts.sh": (
        "ib-device",
        "0.5.23's NIXL connection maps --disaggregation-ib-device to UCX's device list (nixl/conn.py:564), "
        "0.5.17's reads no ib_device (the cookbook's case): the assumed newest release honours the flag, the "
        "release that ran is not named, and no table says which releases between read it",
    ),
    "sglangpr34285_dflash_pd_decode.sh": (
        "DFLASH",
        "0.5.23's build_disagg_draft_input has the DFLASH branch (speculative/spec_info.py:222), 0.5.17's "
        "has EAGLE and DSPARK only: the assumed newest release engages DFLASH, and the older releases' "
        "fallback is silent (no raise or log site to evaluate)",
    ),
    "sglang26647_hicache_mooncake_dsv4_flash.sh": (
        "mooncake",
        "the hybrid host pool is DeepSeek-V4's (config.json), and the layout assert is Mooncake's store "
        "registration at run time",
    ),
    "sglang24800_gemma4_hicache_file.cmd": (
        "hicache",
        "Gemma 4's SWA pool (config.json) against HiRadixCache's L3 path: a run-time failure of the model "
        "class",
    ),
    "sglang26930_lora_w4a16_moe_cuda_graph.cmd": (
        "cuda-graph",
        "garbled output after ~100 tokens from LoRA on a W4A16 MoE under CUDA graphs: a numerical bug at run "
        "time, the quantization is config.json's",
    ),
    "sglangpr32962_eplb_redundant_no_a2a.cmd": (
        "redundant",
        "silent corruption fixed by the PR: the releases before it are not told apart, and no site logs it",
    ),
    "gpustack4770_qwen35_rtx5090.cmd": (
        "attention-backend",
        "the registry's Blackwell assertion tests the model's hybrid GDN layers (config.json), which a new "
        "user's machine lacks",
    ),
    "sglangpr36867_gfx1100_default_aiter.cmd": (
        "aiter",
        "the report names an RX 7900 XTX (gfx1100), for which argtrace has no GPU profile, and the launch "
        "shows no ROCm build",
    ),
    "sglangpr26201_mixed_chunk_eagle3.cmd": (
        "mixed-chunk",
        "the launch is analysed as 0.5.20 (SGLANG_ENABLE_SPEC_V2 narrows it), whose _handle_eagle_family "
        "keeps mixed chunk for EAGLE3 (algo.supports_mixed_chunk(), speculative/spec_info.py:139-150 in the "
        "0.5.20 wheel); the releases that drop it, 0.5.13.post1-0.5.18, log 'Mixed chunked prefill is "
        "disabled' under enable_mixed_chunk alone, the caller's algorithm test unrecorded (RS055 keeps "
        "two-setting sites)",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
