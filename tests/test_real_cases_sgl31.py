"""SGLang batch of the 31st session (docs/real_cases.md, "SGLang sgl31: speculative decoding against the
release's draft loop and CUDA graphs, expert-distribution metrics, variables renamed per release, the
tokenizer path and the router's served name"), measured before any fix.

Eight failure reports of 2025-2026 whose cause lies in the launch (expert-distribution metrics with a
three-step EAGLE draft on 0.5.15.post1, a Qwen3.5 checkpoint with a standalone --tokenizer-path,
SGLANG_CHUNKED_PREFIX_CACHE_THRESHOLD in a release that still read the SGL_ name, --served-model-name behind
the router, EAGLE3 with topk 10 on fa3, GLM-4.5-Air's MTP after 0.5.10, EAGLE3 and EAGLE-2 on Gemma 3
targets) and three correct launches (``ok_*``). Each case under ``tests/data/real_cases_sgl31/`` names its
URL in its header: ``.cmd`` launches (``argtrace check -c``) and one script. A new user's machine (no
resolver environment, no Hugging Face cache); ``--framework-version`` only where the report names its release
(sglang#32105: 0.5.15.post1; sglang#24795: 0.5.10), ``--env`` for sglang#8336's own ${MODEL}/${DRAFT}
placeholders (stand-in paths: the report's shell set them). Classes by the better of `check` and `why` on
the message a report quotes (sglang#32105's capture error). Each command runs once per worker
(tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import (
    RECONSTRUCTED,
    finding,
    missing_cases,
    recorded_check,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl31"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report, by the better of `check` and `why`: first seen (8509b40b) and now.
CLASSES = {
    "sglang32105_eplb_metrics_eagle_steps3.cmd": ("b", "a"),  # RS078; before, why's generic capture signature
    "sglangpr14401_sglang_chunked_prefix_threshold_unread.cmd": ("b", "b"),
    "sglang25565_qwen35_standalone_tokenizer_path.cmd": ("c", "c"),
    "sglang12977_router_served_model_name.sh": ("c", "c"),
    "sglang8336_eagle3_topk10_fa3_illegal_memory.cmd": ("c", "c"),
    "sglang24795_glm45air_eagle_accept_len1.cmd": ("c", "c"),
    "sglang18971_eagle3_gemma3_target.cmd": ("c", "c"),
    "sglang8186_eagle2_gemma3_capture.cmd": ("c", "c"),
}
# the release a report names, and sglang#8336's placeholders (set by the report's shell)
OPTIONS: dict[str, tuple[str, ...]] = {
    "sglang32105_eplb_metrics_eagle_steps3.cmd": ("--framework-version", "0.5.15.post1"),
    "ok_sglang32105_eagle_steps1_metrics.cmd": ("--framework-version", "0.5.15.post1"),
    "sglang24795_glm45air_eagle_accept_len1.cmd": ("--framework-version", "0.5.10"),
    "sglang8336_eagle3_topk10_fa3_illegal_memory.cmd": (
        "--env",
        "MODEL=/models/Qwen3-32B",
        "--env",
        "DRAFT=/models/Qwen3-32B-eagle3",
    ),
}
CORRECT = [
    "ok_sglang32105_eagle_steps1_metrics.cmd",
    "ok_sglang9481_mimo_eagle_fa3.cmd",
    "ok_eagle173_llama2_eagle_torch_compile.cmd",
]


def check(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([0, 2, 6, 0], [1, 1, 6, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-05: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


ALARMS = {"sglang32105_eplb_metrics_eagle_steps3.cmd": [("RS078", "warning")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm from `check` on any failure report, before or after: RS078 is sglang#32105's cause."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_expert_metrics_with_a_three_step_draft() -> None:
    """sglang#32105 by `check` (RS078): the recorder's pass boundary runs inside the draft's capture."""
    rs078 = finding(check("sglang32105_eplb_metrics_eagle_steps3.cmd"), "RS078")
    assert rs078["message"] == (
        'sglang 0.5.15.post1 will fail to start ("operation not permitted when stream is capturing", then '
        '"Capture cuda graph failed"): --enable-expert-distribution-metrics makes every ModelRunner.forward '
        "end with the expert recorder's pass boundary, whose metrics read the counts back to the host, and "
        "EAGLE's draft_forward runs a ModelRunner.forward for each of its 3 draft steps but the last inside "
        "the draft model's CUDA-graph capture (srt/eplb/expert_distribution.py, srt/speculative/"
        "eagle_worker*.py); with one step none runs there (assumed: a MoE model, whose experts the metrics "
        "count)"
    )
    assert rs078["fix"] == (
        "drop --enable-expert-distribution-metrics, or use --speculative-num-steps 1 (with "
        "--speculative-num-draft-tokens 2), or --disable-cuda-graph; the capture-aware boundary is sglang "
        "PR#32106"
    )
    assert (rs078["setting"], rs078["basis"]) == ("enable_expert_distribution_metrics", "assumed")


def _codes(command: str, *options: str) -> list[str]:
    report = run_cli(["check", "--format", "json", "--no-resolve", *options, "-c", command]).json
    return [f["code"] for f in report["findings"] if f["severity"] != "info"]


def test_rs078_only_where_the_draft_loop_runs_in_the_capture() -> None:
    """One step, no CUDA graphs, NGRAM (no draft model), steps left to the default, and a release whose
    draft loop called the bare model (0.4.6.post5) or that was not read say nothing; EAGLE3 on 0.5.10.post1
    (the first wheel read) and 0.5.17 (the last) do."""
    launch = (
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 "
        "--enable-expert-distribution-metrics {spec}"
    )
    # the three draft counts written together (num_steps alone is RS088's, session 36)
    eagle3 = (
        "--speculative-algorithm EAGLE3 --speculative-draft-model-path /d --speculative-num-steps 2 "
        "--speculative-eagle-topk 1 --speculative-num-draft-tokens 3"
    )
    assert _codes(launch.format(spec=eagle3), "--framework-version", "0.5.10.post1") == ["RS078"]
    assert _codes(launch.format(spec=eagle3), "--framework-version", "0.5.17") == ["RS078"]
    for spec, release in (
        ("--speculative-algorithm EAGLE --speculative-num-steps 1", "0.5.17"),
        (eagle3 + " --disable-cuda-graph", "0.5.17"),
        ("--speculative-algorithm NGRAM --speculative-num-steps 3", "0.5.17"),
        ("--speculative-algorithm EAGLE", "0.5.17"),
        (eagle3, "0.4.6.post5"),
        (eagle3, "0.5.9"),
    ):
        codes = _codes(launch.format(spec=spec), "--framework-version", release)
        assert "RS078" not in codes, (spec, release)


def test_why_on_the_capture_error_stays_generic() -> None:
    """sglang#32105's message before and after: `why` names the capture-unsafe call generically (its fix
    relaunches without CUDA graphs); the flag behind it is `check`'s RS078, read from the launch."""
    section = explain(
        "torch.AcceleratorError: CUDA error: operation not permitted when stream is capturing "
        "(cudaErrorStreamCaptureUnsupported)\nException: Capture cuda graph failed"
    )
    assert [s["id"] for s in section["signatures"]] == ["cuda-stream-capture-error"]


def test_a_variable_older_releases_do_not_read_is_a_note() -> None:
    """sglang PR#14401 (b): no release named, so the launch is analysed as 0.5.23, which reads
    SGLANG_CHUNKED_PREFIX_CACHE_THRESHOLD; PR011's note names the releases that do not know it."""
    note = finding(check("sglangpr14401_sglang_chunked_prefix_threshold_unread.cmd"), "PR011")
    assert note["severity"] == "info"
    refused = "sglang 0.4.0.post2-0.5.6.post2 do not know SGLANG_CHUNKED_PREFIX_CACHE_THRESHOLD"
    assert refused in note["message"]


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglangpr14401_sglang_chunked_prefix_threshold_unread.cmd": (
        "SGLANG_CHUNKED_PREFIX_CACHE_THRESHOLD",
        "the PR names no release: analysed as 0.5.23, which reads the variable; PR011's note names the "
        "releases that do not (0.4.0.post2-0.5.6.post2), the PR's among them",
    ),
    "sglang25565_qwen35_standalone_tokenizer_path.cmd": (
        "tokenizer",
        "the processor lookup with a standalone --tokenizer-path is a code path of the release of May 2026; "
        "the folders are local and the release is not named",
    ),
    "sglang12977_router_served_model_name.sh": (
        "served",
        "the router's worker registration read a model_id the worker does not return: router code of its "
        "release, no argument of the launch is wrong",
    ),
    "sglang8336_eagle3_topk10_fa3_illegal_memory.cmd": (
        "topk",
        "an illegal memory access under load in the verify step with topk 10 on fa3: a kernel path at run "
        "time, no start-up check refuses the sizes",
    ),
    "sglang24795_glm45air_eagle_accept_len1.cmd": (
        "accept",
        "an accept length of 1 after an upgrade: what changed in 0.5.10's MTP path is not in the report",
    ),
    "sglang18971_eagle3_gemma3_target.cmd": (
        "EAGLE3",
        "which model classes define set_eagle3_layers_to_capture is the release's code, and a new user has "
        "no config.json naming the target's architecture",
    ),
    "sglang8186_eagle2_gemma3_capture.cmd": (
        "Gemma",
        "the capture failure's text is cut in the report and the architecture is config.json's",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
