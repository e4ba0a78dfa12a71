"""SGLang batch of the 36th session on speculative decoding's counts and the Mamba track index
(docs/real_cases.md, "SGLang sglmtp36: EAGLE draft counts and the Mamba track index"), measured before any
fix.

Four failure reports of 2025-2026 (gpustack PR#3396: the draft tokens without num_steps on 0.5.5;
sglang#28484, #31249 and #29516: the TypeError in set_mamba_track_indices_from_reqs with speculative
decoding and the extra_buffer strategy on hybrid Qwen3.6 models, 0.5.13-0.5.15) and two correct EAGLE3
launches (``ok_*``: a chain and a tree). Each case under ``tests/data/sglmtp36/`` names its URL in its
header; ``why/`` holds the error text two reports quote. A new user's machine (no resolver environment, no
Hugging Face cache); ``--framework-version`` and ``--gpu`` where the report names them. Each command runs
once per worker (tests/batches.py's ``recorded_*``). Then the two rules on launches of our own: RS088 (the
counts written in part) and RS085 (a draft tree with fewer candidates than it keeps), and the generators'
data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.batches import (
    RECONSTRUCTED,
    case_why,
    finding,
    missing_cases,
    recorded_check,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import REPO, Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "sglmtp36"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report, by the better of `check` and `why`: first seen (a378c796) and now.
CLASSES = {
    "gpustackpr3396_qwen3_eagle3_draft_tokens_only.cmd": ("c", "a"),  # RS088: the bare assertion
    "sglang28484_qwen36_specv2_eagle_extra_buffer_h100.cmd": ("c", "a"),  # why: the unguarded track index
    "sglang29516_qwen36_35b_a3b_eagle_extra_buffer.cmd": ("c", "a"),  # why: the same, on 0.5.14
    "sglang31249_qwen36_27b_fp8_mtp_warmup.cmd": ("c", "c"),  # the stored copy holds no error line
}
OPTIONS: dict[str, tuple[str, ...]] = {
    "gpustackpr3396_qwen3_eagle3_draft_tokens_only.cmd": ("--framework-version", "0.5.5.post3"),
    "sglang28484_qwen36_specv2_eagle_extra_buffer_h100.cmd": (
        "--gpu",
        "h100x1",
        "--framework-version",
        "0.5.13.post1",
    ),
    "sglang29516_qwen36_35b_a3b_eagle_extra_buffer.cmd": ("--framework-version", "0.5.14"),
    "sglang31249_qwen36_27b_fp8_mtp_warmup.cmd": ("--framework-version", "0.5.15.post1"),
}
CORRECT = ["ok_sglang6783_llama33_eagle3_tree.cmd", "ok_sglangpr9573_llama31_eagle3_chain.cmd"]


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def why(name: str) -> dict[str, Any]:
    return case_why(CASES, name)


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir() if p.is_file()}
    assert files == set(CLASSES) | set(CORRECT)
    quoted = {p.name.rsplit(".", 1)[0] for p in (CASES / "why").iterdir()}
    assert quoted <= {n.rsplit(".", 1)[0] for n in CLASSES}
    assert table_counts(CLASSES) == ([0, 0, 4, 0], [3, 0, 1, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == ["ok_sglangpr9573_llama31_eagle3_chain.cmd"]
    assert unsourced(CASES, prefix="# Copied from https://") == sorted(
        set(CLASSES) | set(CORRECT) - {"ok_sglangpr9573_llama31_eagle3_chain.cmd"}
    )
    for path in sorted(p for p in CASES.iterdir() if p.is_file()):
        assert ", seen 2026-12-05: " in path.read_text(encoding="utf-8").splitlines()[0], path.name
    assert unsourced(CASES / "why", prefix="# https://github.com/") == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


# what `check` rightly says of a failure report since this batch (every other gives no error or warning)
ALARMS = {"gpustackpr3396_qwen3_eagle3_draft_tokens_only.cmd": [("RS088", "error")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm from `check` on any failure report: the track-index crashes are a bug of the release
    (check says nothing of them), the partial counts an error."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_draft_tokens_without_num_steps_stop_at_the_assertion() -> None:
    """gpustack PR#3396 (c -> a): 0.5.5.post3 asserts that topk and the draft tokens are None when it picks
    the three counts itself, which it does only when num_steps is None."""
    error = finding(check("gpustackpr3396_qwen3_eagle3_draft_tokens_only.cmd"), "RS088")
    assert error["message"] == (
        "--speculative-num-draft-tokens without --speculative-num-steps: sglang 0.5.5.post3 picks the three "
        "draft counts itself only when num_steps is None, and then asserts the other two are None as well "
        "(_handle_speculative_decoding, sglang/srt/server_args.py:1594): the start stops at a bare "
        "AssertionError"
    )
    assert error["fix"] == (
        "write --speculative-num-steps with them (and --speculative-eagle-topk), or leave all three to the "
        "server"
    )
    assert (error["severity"], error["basis"], error["setting"]) == (
        "error",
        "framework-code",
        "speculative_num_draft_tokens",
    )
    assert [e["text"] for e in error["evidence"]] == [
        "speculative_num_draft_tokens=4",
        "self.speculative_num_steps is None",
    ]


_TRACK = (
    "SGLang's Mamba track indices for a speculative verify (set_mamba_track_indices_from_reqs, "
    "sglang/srt/managers/schedule_batch.py:1571 of 0.5.15.post1): a request whose Mamba ping-pong buffer was "
    "not allocated yet (spec v2's verify, extra_buffer_lazy) or that finished during the verify still has no "
    "track index, and sglang 0.5.13.post1-0.5.15.post1 build the tensor without testing for it: a bug of the "
    "release, not a setting's check. sglang 0.5.16 and later read a None index as 0 (sglang PR#27998): run "
    "one of them; else serve without the extra_buffer strategies (--mamba-scheduler-strategy no_buffer with "
    "--disable-radix-cache) or without speculative decoding"
)


@pytest.mark.parametrize(
    "name",
    [
        "sglang28484_qwen36_specv2_eagle_extra_buffer_h100.cmd",
        "sglang29516_qwen36_35b_a3b_eagle_extra_buffer.cmd",
    ],
)
def test_why_names_the_unguarded_track_index(name: str) -> None:
    """sglang#28484 and #29516 (c -> a): no framework prints Python's "'NoneType' object cannot be
    interpreted as an integer", so no raise site matches; the function the text names is the origin, with the
    releases read from the wheels."""
    section = why(name)
    assert section["confidence"] == "none"
    assert section["matches"] == []
    assert section["origin"]["origin"] == _TRACK
    assert section["origin"]["basis"] == "wording"


MISSING = {
    "sglang31249_qwen36_27b_fp8_mtp_warmup.cmd": (
        "set_mamba_track_indices_from_reqs",
        "the stored copy shows the traceback's head, not its error line: `why` needs the text; `check` does "
        "not warn of a release's bug on a launch it accepts",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_named(name: str) -> None:
    word, _ = MISSING[name]
    said = [f["message"] + " " + (f.get("fix") or "") for f in alarms(check(name))]
    assert any(word in s for s in said)


# --- the two rules on launches of our own ------------------------------------------------------------------

_EAGLE = "python -m sglang.launch_server --model-path org/model --speculative-algorithm {algorithm} {counts}"


def _codes(counts: str, *options: str, algorithm: str = "EAGLE3") -> list[tuple[str, str]]:
    command = _EAGLE.format(algorithm=algorithm, counts=counts)
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command]).json
    return [(f["code"], f["severity"]) for f in report["findings"] if f["code"] in ("RS085", "RS088")]


def test_rs088_the_counts_written_in_part() -> None:
    """topk or the draft tokens without num_steps: the assertion (every release read); num_steps without
    topk: the TypeError (0.5.2 on, not 0.5.1.post3, whose first comparison is nested); all three, none, or
    --speculative-adaptive (which picks them from its own configuration): nothing; an NGRAM draft is not
    judged; no release named: a warning on the assumed one."""
    release = ("--framework-version", "0.5.14")
    cases = [
        (("--speculative-eagle-topk 1", *release), [("RS088", "error")]),
        (("--speculative-eagle-topk 2 --speculative-num-draft-tokens 8", *release), [("RS088", "error")]),
        (("--speculative-num-steps 3", *release), [("RS088", "error")]),
        (("--speculative-num-steps 3 --speculative-num-draft-tokens 4", *release), [("RS088", "error")]),
        (("--speculative-num-steps 3", "--framework-version", "0.5.2"), [("RS088", "error")]),
        (("--speculative-num-steps 3", "--framework-version", "0.5.1.post3"), []),
        (("--speculative-num-draft-tokens 4", "--framework-version", "0.5.1.post3"), [("RS088", "error")]),
        (
            (
                "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
                *release,
            ),
            [],
        ),
        (("", *release), []),
        (("--speculative-num-steps 3 --speculative-adaptive", *release), []),
        (("--speculative-num-steps 3",), [("RS088", "warning")]),
    ]
    for (counts, *options), expected in cases:
        assert _codes(counts, *options) == expected, (counts, options)
    assert _codes("--speculative-num-draft-tokens 4", *release, algorithm="NGRAM") == []
    assert _codes("--speculative-num-steps 2", *release, algorithm="NEXTN") == [("RS088", "error")]


def test_rs088_num_steps_alone_names_the_comparison() -> None:
    report = run_cli(
        [
            "check",
            "--format",
            "json",
            "--no-resolve",
            "--framework-version",
            "0.5.23",
            "-c",
            _EAGLE.format(algorithm="NEXTN", counts="--speculative-num-steps 3"),
        ]
    ).json
    error = finding(report, "RS088")
    assert error["message"] == (
        "--speculative-num-steps 3 without --speculative-eagle-topk: sglang 0.5.23 picks the draft counts "
        "itself only when num_steps is None, so topk stays None and its check `cfg.speculative_eagle_topk > "
        "1` (sglang/srt/arg_groups/speculative_hook.py:1273) raises \"TypeError: '>' not supported between "
        "instances of 'NoneType' and 'int'\": the server does not start"
    )
    assert error["fix"] == (
        "write --speculative-eagle-topk (1 for a chain; the server then sets the draft tokens to num_steps + "
        "1) and --speculative-num-draft-tokens, or leave all three to the server"
    )


def test_rs085_a_tree_with_fewer_candidates_than_it_keeps() -> None:
    """topk 2 and 2 steps make 2 + 1 * 4 = 6 candidates: 7 draft tokens keep 6 (fine), 8 keep 7 (the
    topk fails); topk 1 is a chain the server adjusts; no release named: a warning on the assumed one."""
    release = ("--framework-version", "0.5.14")
    tree = "--speculative-num-steps 2 --speculative-eagle-topk {topk} --speculative-num-draft-tokens {draft}"
    cases = [
        ((2, 7, *release), []),
        ((2, 8, *release), [("RS085", "error")]),
        ((1, 16, *release), []),
        ((4, 16, *release), []),
        ((2, 8, "--framework-version", "0.5.2"), [("RS085", "error")]),
        ((2, 8), [("RS085", "warning")]),
    ]
    for (topk, draft, *options), expected in cases:
        assert _codes(tree.format(topk=topk, draft=draft), *options) == expected, (topk, draft, options)
    report = run_cli(
        [
            "check",
            "--format",
            "json",
            "--no-resolve",
            *release,
            "-c",
            _EAGLE.format(algorithm="EAGLE", counts=tree.format(topk=2, draft=16)),
        ]
    ).json
    error = finding(report, "RS085")
    assert error["message"] == (
        "--speculative-num-draft-tokens 16 keeps the best 15 of the draft tree's candidates, and "
        "--speculative-eagle-topk 2 with --speculative-num-steps 2 makes 6 (2 + (2 - 1) * 2^2): sglang "
        "0.5.14's torch.topk(score_list, num_draft_token - 1) (organize_draft_results, "
        'sglang/srt/speculative/eagle_utils.py:79) fails with "selected index k out of range" when the draft '
        "runs (its CUDA graphs are captured at start-up)"
    )
    assert error["fix"] == (
        "lower --speculative-num-draft-tokens to at most 7, or raise --speculative-eagle-topk or "
        "--speculative-num-steps"
    )


def test_the_generated_tables_are_current() -> None:
    """The two tables are what their generators read from the wheels (re-run with the wheels to refresh):
    every release read has the steps assertion and the tree's topk; the comparison from 0.5.2; the track
    index's guard from 0.5.16."""
    data = REPO / "src/argtrace/frameworks/data"
    tree = json.loads((data / "sglang_eagle_tree.json").read_text())
    assert tree["generated_by"] == "scripts/gen_sglang_eagle_tree.py"
    releases = tree["releases"]
    assert all("steps_assert" in f and "tree_topk" in f for f in releases.values())
    assert sorted(r for r, f in releases.items() if "none_compare" not in f) == ["0.5.1.post3"]
    track = json.loads((data / "sglang_mamba_track.json").read_text())["releases"]
    assert sorted(r for r, f in track.items() if f and not f["guards_none"]) == [
        "0.5.13.post1",
        "0.5.14",
        "0.5.15.post1",
    ]
    assert track["0.5.16"] == {"at": "srt/managers/schedule_batch.py:1688", "guards_none": True}


_HOOK = """
def _handle_eagle_family(server_args):
    if not server_args.speculative_adaptive and server_args.speculative_num_steps is None:
        assert (
            server_args.speculative_eagle_topk is None
            and server_args.speculative_num_draft_tokens is None
        )
        server_args.speculative_eagle_topk = 1
    if server_args.attention_backend == "trtllm_mha":
        if server_args.speculative_eagle_topk > 1:
            raise ValueError("trtllm_mha")
    if (
        server_args.speculative_eagle_topk == 1
        and server_args.speculative_num_draft_tokens != server_args.speculative_num_steps + 1
    ):
        server_args.speculative_num_draft_tokens = server_args.speculative_num_steps + 1
    if server_args.speculative_eagle_topk > 1 and server_args.page_size > 1:
        raise ValueError("page")
"""
_UTILS = """
def organize_draft_results(score_list, token_list, parents_list, num_draft_token):
    top_scores = torch.topk(score_list, num_draft_token - 1, dim=-1)
"""
_BATCH = """
def set_mamba_track_indices_from_reqs(batch):
    batch.mamba_track_indices = torch.tensor(
        [{index} for req in batch.reqs], dtype=torch.int64
    )
"""


def test_the_generators_on_minimal_modules() -> None:
    """The steps assertion, the first top-level topk comparison after it (not the nested trtllm one), the
    chain adjustment and the tree's topk; an assignment of topk between them means no comparison; the track
    index's None test."""
    import sys

    sys.path.insert(0, str(REPO / "scripts"))
    from gen_sglang_eagle_tree import facts as tree_facts
    from gen_sglang_mamba_track import facts as track_facts

    hook = "sglang/srt/arg_groups/speculative_hook.py"
    utils = "sglang/srt/speculative/eagle_utils.py"
    assert tree_facts({hook: _HOOK, utils: _UTILS}) == {
        "function": "_handle_eagle_family",
        "steps_assert": "srt/arg_groups/speculative_hook.py:4",
        "steps_guard": "not server_args.speculative_adaptive and server_args.speculative_num_steps is None",
        "none_compare": "srt/arg_groups/speculative_hook.py:17",
        "none_compare_test": "server_args.speculative_eagle_topk > 1",
        "chain_adjust": "srt/arg_groups/speculative_hook.py:12",
        "tree_topk": {"at": "srt/speculative/eagle_utils.py:3", "function": "organize_draft_results"},
    }
    filled = _HOOK.replace(
        "    if server_args.attention_backend",
        "    server_args.speculative_eagle_topk = 1\n    if server_args.attention_backend",
    )
    assert "none_compare" not in tree_facts({hook: filled})
    assert tree_facts({hook: "x = 1\n"}) == {}
    module = "sglang/srt/managers/schedule_batch.py"
    assert track_facts({module: _BATCH.format(index="req.mamba_next_track_idx")}) == {
        "at": "srt/managers/schedule_batch.py:2",
        "guards_none": False,
    }
    guarded = "req.mamba_next_track_idx if req.mamba_next_track_idx is not None else 0"
    assert track_facts({module: _BATCH.format(index=guarded)})["guards_none"] is True
    assert track_facts({module: "x = 1\n"}) == {}
