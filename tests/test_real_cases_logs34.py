"""Real server logs, session 34's batch (docs/real_cases.md, "Logs, 19th batch"): 6 failures, 1 working run.

Each ``*.log`` under ``tests/data/real_cases_logs34/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy gives it (prefixes kept as posted), behind a ``# source:`` header line with
the URL and the date. The areas the batch went for: multi-process logs of the newest releases (SGLang 0.5.15's
DP-attention ranks ``DP2 TP2 EP2`` on a PD decode server, GLM-5.2 on the 0.5.1x scheduler, a PD decode
rank whose timestamp the report normalized away: ``[TP0 EP0]``), logs behind Ray (slime's ``(SGLangEngine
pid=N)`` actor tag on every line of SGLang's DP-attention scheduler; vLLM's engine core with its Ray workers'
two nested tags ``(EngineCore pid=N) (RayWorkerWrapper pid=N, ip=...)``), a two-node TP16 launch whose NCCL
debug line comes before the scheduler's exception, and SGLang's DeepGEMM compile tool (a working run).

What each copy cuts (the corpus keeps about 2,000 characters around the words searched): slime369 (in the
radix cache, after ``process_batch_result_prefill``), sglang4503 (in the exception line's message),
sglang30663 (in the scheduler's constructor, ``init_model_worker``), sglang30854 (in SGLang's
``dispatch_event_loop``, before the mode's loop), sglangpr38417 (in the PD decode loop), vllmpr38476 (two
stored excerpts of one comment joined in their order, the lines between them not stored: the Ray workers'
start-up lines, then the engine core's frames in ``ray.get``, cut before the exception). The working copy
(sglang PR#31006) is the whole of what the report shows: the compile tool's last line and the stop after it.
``why/`` holds each failure's error text (its lines from the first line naming an error, a failure or a
death on).

Classes as in the other batches (``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without its change, ``c`` not named, ``d`` a wrong error, warning or claim).
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.batches import (
    LogCase,
    log_batch_tests,
    recorded_why,
)
from tests.conftest import (
    class_counts,
    last_launch,
    log_files,
    log_report,
    written_log,
)

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs34"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
ERROR7 = ("LG007", "error")
SCHEDULER_FIX = "Read the traceback after this line"
CUT = "the exception is not in the copy (cut before it)"
OTHER_RANKS_FIX = (
    "Read the log of the rank that did not finish loading (each node's own log on a multi-node launch) for "
    "its first error; if none failed but one was slow, put the weights on fast local storage on every node "
    "(or download them there first) so that every rank loads them within 480 s"
)

CASES = [
    LogCase(
        "slime369_sglang_dp_attention_ray_actor_prefix_radix_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows (during serving). "
        "Its traceback is cut after its last frame (managers/scheduler_output_processor_mixin.py, "
        "process_batch_result_prefill)",
        SCHEDULER_FIX,
        cause="radix",
        change="--disable-radix-cache",
        missing=CUT + ": the DP-attention rank's frames stop in the radix cache (the thread: slime's scripts "
        "later dropped --sglang-disable-radix-cache once newer SGLang fixed the crash)",
    ),
    LogCase(
        # was the generic "Read the traceback after this line"
        "sglang4503_tp16_nccl_info_load_model_valueerror_cut.log",
        "c",
        "a",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "weights",
        "[sglang-other-ranks-did-not-finish-loading] This rank loaded its weights, but another rank of its "
        "tensor-parallel group did not finish loading within SGLang's wait for them (480 s)",
        OTHER_RANKS_FIX,
        cause="another rank",
        change="Read the log of the rank that did not finish loading",
    ),
    LogCase(
        # was "during a step this excerpt does not show": the frames are the scheduler's constructor
        "sglang30663_glm52_dp_attention_kv_pool_init_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "scheduler_init",
        "SGLang's scheduler crashed; the traceback follows (during starting SGLang's scheduler: a step of "
        "its constructor the frames do not name). Its traceback is cut after its last frame "
        "(managers/scheduler.py, init)",
        SCHEDULER_FIX,
        cause="get_attention_cp_size",
        change="release",
        missing=CUT + ": the frames stop in init_model_worker (the title: a missing get_attention_cp_size "
        "import while sizing the KV pool, a bug of that SGLang revision)",
    ),
    LogCase(
        # was "during a step this excerpt does not show": run_event_loop/dispatch_event_loop are serving
        "sglang30854_glm52_pd_decode_dp_attention_dsa_seed_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        "SGLang's scheduler crashed; the traceback follows (during serving). Its traceback is cut after its "
        "last frame (managers/scheduler.py, dispatch_event_loop)",
        SCHEDULER_FIX,
        cause="dsa_seed_topk",
        change="--speculative",
        missing=CUT
        + ": cut in dispatch_event_loop (the title: GLM-5.2's MTP seed on a PD decode server with "
        "DP attention, a bug of 0.5.15 fixed after it)",
    ),
    LogCase(
        "sglangpr38417_pd_decode_tp0_ep0_normalized_timestamp_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        "SGLang's scheduler crashed; the traceback follows (during serving). Its traceback is cut after its "
        "last frame (disaggregation/decode.py, event_loop_overlap_disagg_decode)",
        SCHEDULER_FIX,
        cause="compression tail",
        change="release",
        missing=CUT + ": the PD decode loop's frames stop in event_loop_overlap_disagg_decode (the PR: a DSA "
        "compression tail sized without the decode request slots, fixed in SGLang itself)",
    ),
    LogCase(
        "vllmpr38476_glm51_ray_nested_prefix_a800_cut.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 10) that the file cuts before its exception line",
        "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
        "`argtrace why` on the exception line names its raise site and the settings it reads.",
        cause="TRITON_MLA_SPARSE",
        change="--attention-backend",
        missing=CUT
        + ": the engine core's frames stop in ray.get; the workers' \"Loading weights took\" line "
        "(default_loader.py) is no step argtrace reads, so the stage is unknown",
    ),
]

# A run that did what it is for; notes only.
OK_LOGS = {
    # was LG012 warning "has 6 line(s) but none from an SGLang or vLLM server: it cannot say what the server
    # saw"
    "sglangpr31006_glm52_w4afp8_deepgemm_leaked_semaphores.log": (
        (("LG012", "info"),),
        "line(s) of SGLang's DeepGEMM compile tool (`python -m sglang.compile_deep_gemm`: `DeepGEMM Kernels "
        "compilation finished successfully.`), which starts a server, sends it one request and stops it once "
        "the kernels are compiled: this run's compilation finished, and the stop follows it by design",
    ),
}


def test_the_batch() -> None:
    assert len(CASES) == 6
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([0, 0, 6, 0], [1, 0, 5, 0])
    assert [sum(WHY_CLASSES[0]), sum(WHY_CLASSES[1])] == [6, 6]
    assert {p.stem for p in (LOGS / "why").glob("*.txt")} == {Path(c.file).stem for c in CASES}


# --- `why` on each failure's error text -----------------------------------------------------------------

# name -> (confidence, the first site's function or None, the signatures' ids in order)
WHY = {
    "slime369_sglang_dp_attention_ray_actor_prefix_radix_cut": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
    ),
    # was the scheduler's wrapper alone
    "sglang4503_tp16_nccl_info_load_model_valueerror_cut": (
        "strong",
        "run_scheduler_process",
        ["sglang-other-ranks-did-not-finish-loading", "sglang-scheduler-exception"],
    ),
    "sglang30663_glm52_dp_attention_kv_pool_init_cut": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
    ),
    "sglang30854_glm52_pd_decode_dp_attention_dsa_seed_cut": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
    ),
    "sglangpr38417_pd_decode_tp0_ep0_normalized_timestamp_cut": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
    ),
    "vllmpr38476_glm51_ray_nested_prefix_a800_cut": ("none", None, []),
}
# before, after (docs/real_cases.md): sglang#4503 from the generic wrapper (c) to its own entry (a)
WHY_CLASSES = ([0, 0, 6, 0], [1, 0, 5, 0])


globals().update(log_batch_tests(LOGS, CASES, OK_LOGS, WHY, sources=7))


def test_why_gives_the_other_ranks_entrys_fix() -> None:
    section = recorded_why(LOGS / "why" / "sglang4503_tp16_nccl_info_load_model_valueerror_cut.txt")
    assert section["signatures"][0]["fix"] == OTHER_RANKS_FIX


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------

HIT = "[2026-07-11 06:25:48 DP2 TP2 EP2] Scheduler hit an exception: Traceback (most recent call last):\n"


def _frame(path: str, function: str, code: str) -> str:
    return f'  File "/sgl-workspace/sglang/python/sglang/srt/{path}", line 1, in {function}\n    {code}\n'


@pytest.mark.parametrize(
    ("frames", "stage"),
    [
        # SGLang 0.5.1x+: run_event_loop, then dispatch_event_loop picks the mode's loop
        (
            _frame("managers/scheduler.py", "run_scheduler_process", "scheduler.run_event_loop()")
            + _frame("managers/scheduler.py", "run_event_loop", "dispatch_event_loop(self)"),
            "serving",
        ),
        # the constructor, no step named: start-up
        (
            _frame("managers/scheduler.py", "run_scheduler_process", "scheduler = Scheduler(server_args)")
            + _frame("managers/scheduler.py", "__init__", "self.init_model_worker()"),
            "scheduler_init",
        ),
        # the constructor through the weights: the weights' step, not the constructor's
        (
            _frame("managers/scheduler.py", "run_scheduler_process", "scheduler = Scheduler(server_args)")
            + _frame("managers/scheduler.py", "__init__", "self.init_model_worker()")
            + _frame("model_executor/model_runner.py", "load_model", "raise ValueError("),
            "weights",
        ),
        # run_scheduler_process alone: which step is not in the frames
        (_frame("managers/scheduler.py", "run_scheduler_process", "x = 1"), "unknown"),
    ],
    ids=["run_event_loop", "constructor", "constructor_weights", "entry_alone"],
)
def test_the_stage_sglangs_scheduler_frames_show(tmp_path: Path, frames: str, stage: str) -> None:
    report = log_report(written_log(tmp_path, HIT + frames))
    assert (last_launch(report)["state"], last_launch(report)["stage"]) == ("failed", stage)


@pytest.mark.parametrize(
    ("line", "matched"),
    [
        # 0.5.23 load_model_utils.py:394, whole
        (
            "ValueError: TP rank 3 could finish the model loading, but there are other ranks that didn't "
            "finish loading. It is likely due to unexpected failures (e.g., OOM) or a slow node.",
            True,
        ),
        # a copy cut mid-message after the words that say it (sglang#4503)
        ("ValueError: TP rank 1 could finish the model loading, but there are other ranks th", True),
        # cut before them: the rank's own loading is all it says
        ("ValueError: TP rank 1 could finish the model loading, but th", False),
    ],
    ids=["whole", "cut_as_4503", "cut_before_the_words"],
)
def test_sglangs_other_ranks_message(tmp_path: Path, line: str, matched: bool) -> None:
    report = log_report(written_log(tmp_path, line + "\n"))
    ids = [f["message"].split("]")[0] for f in report["findings"] if f["code"] == "LG007"]
    assert ("[sglang-other-ranks-did-not-finish-loading" in ids) is matched


@pytest.mark.parametrize(
    ("text", "compile_tool"),
    [
        ("\nDeepGEMM Kernels compilation finished successfully.\n", True),
        # the tool's first words: the compilation did not end in the file
        ("Begin DeepGEMM Kernels compilation...\n", False),
    ],
    ids=["finished", "begun"],
)
def test_sglangs_deepgemm_compile_tool(tmp_path: Path, text: str, compile_tool: bool) -> None:
    report = log_report(written_log(tmp_path, text))
    (found,) = report["findings"]
    assert found["code"] == "LG012"
    assert ("SGLang's DeepGEMM compile tool" in found["message"]) is compile_tool
    assert (found["severity"] == "info") is compile_tool


# --- the fast paths read the batch as the slow one ----------------------------------------------------------
