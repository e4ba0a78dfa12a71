"""Real server logs, session 18's batch (docs/real_cases.md, "Logs, 7th batch"): 15 failures, 5 working.

Each ``*.log`` under ``tests/data/logs18/`` is a log quoted in a public report of 2025-2026 (vLLM 0.9-0.23 and
its 2026 main, vLLM behind RunPod's worker and GPUStack, a vLLM fork for V100, SGLang 0.4-0.5 and its 2026
main), saved as the search corpus's stored copy of the report gives it: its first line is a ``# source:``
comment with the URL and the date, worded so that no log pattern can match it (a title's "NCCL error" there
was read as a log line in the first measurement). ``ok/`` holds the working launches. ``why/`` holds each
failure's error text: its lines from the first error line on. The commands are ``argtrace log FILE --format
json`` and ``argtrace why TEXT`` on a new user's machine, measured on this batch's base before any change
(``before``), then after.

What each copy cuts (the search corpus keeps about 2,000 characters of a report around the words searched):
nccl2101 starts at NCCL's own ``NCCL WARN Cuda failure 'operation not supported'`` and stops in the engine's
first frame; vllm26898, dotsocr193, runpod276, vllm_pr46177, sglang_pr9195, sglang7547 stop in the frames of
the traceback that holds the cause; gpustack3567 is an API server's frames alone; vllm39685 is the engine's
repeat that a worker died, its workers' lines not in the report; vllm39774 is two excerpts (a worker's frames
inside NCCL's communicator, then the engine's, its last line cut mid-word: ``Exception: WorkerProc
initializat``); sglang26265 stops at ``raise RuntimeError(error_m``; sglang17231 is two excerpts (the
``server_args=`` line cut between them) and stops in the launcher's first frames; seedoss10 was pasted through
``cat -v`` (``^[[1;36m`` for ESC, ``^M`` for CR, several lines on one); vllm35679 is a Buildkite job log with
its line numbers; vllm_pr40760 starts and ends inside a DP/EP worker's traceback. Working launches: four TP
ranks of SGLang on B200 past their KV pools, a vLLM TP0 worker compiling, two TP ranks loading compiled graphs
while the engine notes a 60 s wait, a systemd journal whose month is Russian (``авг``), a DEBUG launch behind
a collector's bracketed ISO time.

Classes as in the other batches: ``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without a change, ``c`` not named, ``d`` a wrong error, warning or claim.
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks; ``LEADS`` what the first screen (80 columns) opens with. The mechanisms have variants on minimal inputs
below.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from argtrace.layers.log.lines import _decode
from argtrace.layers.log.prefilter import gnu_grep
from argtrace.layers.log.prefix import split_prefix
from argtrace.layers.log.signatures import match_cut
from argtrace.resolver.raise_lookup import raised_at
from tests.batches import (
    LogCase,
    assert_what_the_log_gives,
    log_sources,
    not_class_a,
    recorded_log_report,
    recorded_why,
)
from tests.conftest import (
    alarms,
    assert_working_launch,
    class_counts,
    log_files,
    log_report,
    names_the_cause_and_the_change,
    run_cli,
    written_log,
)
from tests.log.test_fast_equals_slow import _answers

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs18"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
ERROR7 = ("LG007", "error")
ENGINE = (
    "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
    "above it (during a step this excerpt does not show). Line: EngineCore failed to start."
)
ENGINE_FIX = "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line"
WORKER = "[vllm-worker-proc-failed] A worker process of vLLM's multiprocess executor raised while it started"
WORKER_FIX = (
    "Read the traceback after this line: its last line is the worker's exception (the engine's 'Engine core "
    "initialization failed' below it only repeats that a worker died)"
)
WORKER_INIT_FIX = (
    "Read the worker's traceback above this line (after 'WorkerProc failed to start.', in the "
    "Worker/VllmWorker process's lines): its last line is the worker's exception"
)
SCHEDULER = "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows"
CUT_TB_FIX = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
TEMPLATE_FIX = (
    "Check the chat template: pass one that renders these requests with --chat-template (the model's is "
    f"missing or broken), or change the request the template refuses. {CUT_TB_FIX}"
)
CUT = "the exception is not in the copy (cut before it)"


CASES = [
    LogCase(
        # NCCL's own warning above the engine's report: no anchor keeps an "NCCL WARN" line (the matcher's
        # 32 patterns are full, docs/log.md), so the log reads the report alone; `why` names NCCL first
        "nccl2101_vgpu_enginecore.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        # the engine's own traceback after its line, cut after a frame (logs22): the first screen says so
        ENGINE.removesuffix(" Line: EngineCore failed to start.")
        + " Its traceback is cut after its last frame (engine/core.py, run_engine_core), before its "
        "exception "
        "line: the error that names the cause is not in the copy. Line: EngineCore failed to start.",
        ENGINE_FIX,
        cause="NCCL",
        change="--",
        missing="NCCL's `NCCL WARN Cuda failure` line holds no anchor (a 33rd matcher pattern costs 18-30% "
        "on every log), and the vGPU's missing UVM is no setting",
    ),
    LogCase(
        "vllm26898_nccl_enginecore.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE,
        ENGINE_FIX,
        cause="NCCL",
        change="--",
        missing=CUT + ": the engine's frames only",
    ),
    LogCase(
        # logs19: the frames right under "EngineCore failed to start." name its stage (was "a step this
        # excerpt does not show")
        "dotsocr193_kv_enginecore.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
        "above it (during allocating the KV cache). Its traceback is cut after its last frame "
        "(engine/core.py, "
        "_initialize_kv_caches), before its exception line: the error that names the cause is not in "
        "the copy. "
        "Line: EngineCore failed to start.",
        ENGINE_FIX,
        cause="NCCL",
        change="--",
        missing=CUT + " (the title's NCCL error, raised while vLLM profiles the memory for its KV cache)",
    ),
    LogCase(
        "vllm39685_workerproc_wrapper_v019.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-worker-proc-init-failed] The engine's multiprocess executor saw a worker process fail",
        WORKER_INIT_FIX,
        cause="tensor",
        change="--",
        missing="the workers' lines are not in the report (it quotes the engine's repeat alone)",
    ),
    LogCase(
        # was LG011 "an error no signature knows" on the cut "Exception: WorkerProc initializat": the cut last
        # line now matches the signature its message starts, and the wrapper names the worker's frames above
        "vllm39774_worker_nccl_then_engine.log",
        "c",
        "b",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "distributed",
        "[vllm-worker-proc-init-failed] Another process's traceback above it (from line 2) stops in "
        "device_communicators/cuda_communicator.py, in __init__, cut before its exception: the cause is "
        "there.",
        WORKER_INIT_FIX,
        cause="NCCL",
        change="NCCL_",
        missing="the worker's NCCL exception ('unhandled system error', the title's) is cut; the frames say "
        "where (NCCL's communicator), not what to change",
    ),
    LogCase(
        "vllm_pr46177_worker_tp1_diffusiongemma.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        WORKER,
        WORKER_FIX,
        cause="DiffusionGemma",
        change="--",
        missing=CUT + ": TP1's frames stop in WorkerProc's construction",
    ),
    LogCase(
        "runpod276_iso_workerproc.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        WORKER,
        WORKER_FIX,
        cause="mxfp4",
        change="--",
        missing=CUT + ": the worker's first frame",
    ),
    LogCase(
        "sglang_pr9195_runai_s3_scheduler.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "weights",
        SCHEDULER + " (during loading the weights). Its traceback is cut after its last frame "
        "(model_executor/model_runner.py, load_model), before its exception line: the error that names "
        "the cause "
        "is not in the copy. Line: Scheduler hit an exception:",
        "Read the traceback after this line",
        cause="s3",
        change="--load-format",
        missing=CUT + " (an s3:// model path without the runai_streamer loader; the PR adds that message)",
    ),
    LogCase(
        "sglang7547_cpu_warmup_scheduler.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        SCHEDULER + " (during serving). Its traceback is cut after its last frame (utils/_contextlib.py, "
        "decorate_context), before its exception line: the error that names the cause is not in the "
        "copy. Line: "
        "Scheduler hit an exception:",
        "Read the traceback after this line",
        cause="cpu",
        change="--device",
        missing=CUT + " (the warm-up request's forward on a GPU build run for the CPU)",
    ),
    LogCase(
        # was LG007 "the traceback follows" with "Read the traceback after this line": the traceback stops at
        # `raise RuntimeError(error_m`, whose message the index holds; that message is a signature now
        "sglang26265_prefill_kv_pool.log",
        "c",
        "a",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        SCHEDULER
        + " (during serving): its cause is [sglang-kv-pool-exhausted] SGLang's KV cache pool had no free "
        "token slots for the batch its scheduler built",
        "Lower --chunked-prefill-size or --max-running-requests so that a batch fits the KV pool, or give "
        "the pool more tokens (a higher --mem-fraction-static)",
        cause="KV cache pool",
        change="--chunked-prefill-size",
    ),
    LogCase(
        # was a wrong claim: "stops after args_logged without an error" (a warning) above a traceback; the
        # traceback the copy cuts is the note now; the args line cut between the two excerpts stays a warning
        "sglang17231_chat_template_dict.log",
        "d",
        "c",
        (INFO10, ("LG010", "warning")),
        "sglang",
        "incomplete",
        "weights",
        "Launch 1 stops inside a traceback (from line 8) that the file cuts before its exception line: "
        "something failed there (the launch, or one request: the copy does not say which)",
        CUT_TB_FIX,
        cause="dict",
        change="--chat-template",
        missing=CUT + " (SGLang's template manager on a dict chat_template, a framework bug)",
    ),
    LogCase(
        # was a wrong claim: LG012 warning "none from an SGLang or vLLM server" (its lines behind `cat -v`'s
        # caret notation); now vLLM's lines, and the chat template's rendering the traceback stops in
        "seedoss10_chat_template_tools.log",
        "d",
        "b",
        (INFO10, INFO10),
        "vllm",
        "ready",
        None,
        "Launch 1 stops inside a traceback (from line 2) that the file cuts before its exception line: "
        "something failed while it served (one request, or the server)",
        TEMPLATE_FIX,
        cause="chat template",
        change="--chat-template",
        missing="a note: that the template is what failed rests on the frames (the exception is cut)",
    ),
    LogCase(
        # was nothing at all: the Buildkite line numbers hid vLLM's prefix
        "vllm35679_ci_chat_template_warmup.log",
        "c",
        "b",
        (INFO10,),
        "vllm",
        "incomplete",
        "validation",
        "Launch 1 stops inside a traceback (from line 4) that the file cuts before its exception line",
        TEMPLATE_FIX,
        cause="chat template",
        change="--chat-template",
        missing="a note: the exception (the model has no chat template) is cut",
    ),
    LogCase(
        "gpustack3567_apiserver_nccl.log",
        "c",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "holding 6 frame(s) of a vllm traceback",
        "Give argtrace the whole log, from the server's start, or the full traceback with its last line (the "
        "exception).",
        cause="NCCL",
        change="--",
        missing="the API server's frames alone",
    ),
    LogCase(
        "vllm_pr40760_dsv4_dp_ep_worker.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 2) (during loading the weights) that the file cuts "
        "before its exception line: the launch was failing there",
        CUT_TB_FIX,
        cause="marlin",
        change="--",
        missing=CUT + " (MXFP4 MoE weights for the Marlin kernel, a model port under review)",
    ),
]

# What the first screen (80 columns) opens with: its first finding's headline.
LEADS = {
    "nccl2101_vgpu_enginecore.log": "ERROR LG007 line 7 [vllm-engine-core-failed]",
    "vllm26898_nccl_enginecore.log": "ERROR LG007 line 7 [vllm-engine-core-failed]",
    "dotsocr193_kv_enginecore.log": "ERROR LG007 line 2 [vllm-engine-core-failed]",
    "vllm39685_workerproc_wrapper_v019.log": "ERROR LG007 line 2 [vllm-worker-proc-init-failed]",
    "vllm39774_worker_nccl_then_engine.log": "ERROR LG007 line 20 [vllm-worker-proc-init-failed] Another",
    "vllm_pr46177_worker_tp1_diffusiongemma.log": "ERROR LG007 line 4 [vllm-worker-proc-failed]",
    "runpod276_iso_workerproc.log": "ERROR LG007 line 5 [vllm-worker-proc-failed]",
    "sglang_pr9195_runai_s3_scheduler.log": "ERROR LG007 line 2 [sglang-scheduler-exception]",
    "sglang7547_cpu_warmup_scheduler.log": "ERROR LG007 line 14 [sglang-scheduler-exception]",
    "sglang26265_prefill_kv_pool.log": "ERROR LG007 line 2 [sglang-scheduler-exception]",
    # the args line cut between the report's two excerpts is a warning (true: the file lacks it), so it leads
    "sglang17231_chat_template_dict.log": "WARNING LG010 line 4 The server_args dump at line 4 is cut short",
    "seedoss10_chat_template_tools.log": "INFO LG010 line 2 Launch 1 stops inside a traceback",
    "vllm35679_ci_chat_template_warmup.log": "INFO LG010 line 4 Launch 1 stops inside a traceback",
    "gpustack3567_apiserver_nccl.log": "INFO LG012 tests/data/logs18/gpustack3567_apiserver_nccl.log",
    "vllm_pr40760_dsv4_dp_ep_worker.log": "INFO LG010 line 2 Launch 1 stops inside a traceback",
}

# Launches that started (or were starting when the copy ends): no error, no warning; the notes expected.
OK_LOGS = {
    "sglang_pr22537_b200_tp4_pool.log": ((INFO10, INFO10), "incomplete", "cuda_graph"),
    "vllm38820_worker_tp0_loading.log": ((INFO10, INFO10), "incomplete", "kv_cache"),
    "club3090_pr92_tp_aot_shm_wait.log": ((INFO10,), "incomplete", "unknown"),
    "vllm_pr22587_iso_debug.log": ((INFO10, INFO10), "incomplete", "kv_cache"),
}
# A few lines of vLLM's processes behind a Russian journal: no launch, a note (was LG012 warning "none from a
# server": the month was not English, so the journal's prefix was kept and the process tag never read).
NO_LAUNCH = {"onecat237_journald_v100.log": "7 of them logged by vLLM's own processes"}


def test_the_batch() -> None:
    assert len(CASES) == 15
    assert set(LEADS) == {c.file for c in CASES}
    assert {c.file for c in CASES} | {f"ok/{k}" for k in [*OK_LOGS, *NO_LAUNCH]} == log_files(LOGS)
    assert class_counts(CASES) == ([0, 0, 13, 2], [1, 3, 11, 0])
    assert [sum(WHY_CLASSES[0]), sum(WHY_CLASSES[1])] == [15, 15]
    assert {p.stem for p in (LOGS / "why").glob("*.txt")} == {Path(c.file).stem for c in CASES}


def test_every_log_has_its_source_in_a_header_no_pattern_reads() -> None:
    urls = log_sources(LOGS)
    assert len(set(urls)) == len(urls) == 20


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_what_each_log_gives(case: LogCase) -> None:
    report = recorded_log_report(LOGS / case.file)
    assert_what_the_log_gives(report, case)
    assert not any(f["code"] == "LG012" and f["severity"] == "warning" for f in report["findings"])
    # no "stops ... without an error" where the copy holds a traceback
    assert not any("without an error" in f["message"] for f in report["findings"])


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_the_first_screen_leads_with(case: LogCase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = run_cli(["log", f"tests/data/logs18/{case.file}"], cwd=LOGS.parents[2])
    screen = result.stdout.splitlines()[:25]
    assert screen[2].startswith(LEADS[case.file]), screen[:4]


@pytest.mark.parametrize("case", not_class_a(CASES))
def test_the_first_screen_names_the_cause_and_the_change(case: LogCase) -> None:
    assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


def test_the_first_screen_of_the_a_case(monkeypatch: pytest.MonkeyPatch) -> None:
    case = next(c for c in CASES if c.after == "a")
    assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)
    monkeypatch.setenv("COLUMNS", "80")
    screen = run_cli(["log", str(LOGS / case.file)]).stdout.splitlines()[:12]
    assert screen[2:5] == [
        "ERROR LG007 line 2 [sglang-scheduler-exception] SGLang's scheduler crashed; the",
        "  traceback follows (during serving): its cause is [sglang-kv-pool-exhausted]",
        "  SGLang's KV cache pool had no free token slots for the batch its scheduler",
    ]
    assert screen[7:10] == [
        "  fix: Lower --chunked-prefill-size or --max-running-requests so that a batch",
        "       fits the KV pool, or give the pool more tokens (a higher",
        "       --mem-fraction-static)",
    ]


@pytest.mark.parametrize("name", sorted(OK_LOGS))
def test_working_launches_give_no_alarm(name: str) -> None:
    assert_working_launch(recorded_log_report(LOGS / "ok" / name), OK_LOGS[name])


@pytest.mark.parametrize("name", sorted(NO_LAUNCH))
def test_a_few_server_lines_are_a_note(name: str) -> None:
    report = recorded_log_report(LOGS / "ok" / name)
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG012", "info")]
    assert NO_LAUNCH[name] in report["findings"][0]["message"]
    assert alarms(report) == []


# --- `why` on each failure's error text -----------------------------------------------------------------

# (confidence, first site's function or None, what the first screen's opening says); classes below
WHY = {
    # NCCL's own wording is named first (the origin), then the engine's report: b before and after
    "nccl2101_vgpu_enginecore": ("strong", "EngineCoreProc.run_engine_core", "NCCL's own log"),
    "sglang26265_prefill_kv_pool": ("strong", "run_scheduler_process", "Prefill out of memory"),
    # was strong on a Neuron loader's `Exception: {e}` warning (9 characters): a candidate now
    "vllm39774_worker_nccl_then_engine": (
        "weak",
        "NeuronSpeculationCausalLM.load_weights",
        "9 literal",
    ),
    # the log signature first, then a site printing "Exception: {e}": a candidate (was strong); since the
    # text's vLLM format keeps to vLLM's sites (2026-12-04), a vLLM one, no longer SGLang's
    "vllm39685_workerproc_wrapper_v019": (
        "weak",
        "NeuronSpeculationCausalLM.load_weights",
        "vllm-worker-proc-init-failed",
    ),
    "seedoss10_chat_template_tools": ("strong", "OpenAIServingChat.render_chat_request", "transformers"),
}
# before, after (docs/real_cases.md): b NCCL's own wording (nccl2101) and the chat template's frames
# (seedoss10), a sglang26265 (was c), c vllm39774 (was d: a strong wrong site), c the other 11 (cut)
WHY_CLASSES = ([0, 2, 12, 1], [1, 2, 12, 0])


@pytest.mark.parametrize("name", sorted(WHY))
def test_why_on_the_error_text(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    confidence, function, opening = WHY[name]
    section = recorded_why(LOGS / "why" / f"{name}.txt")
    assert section["confidence"] == confidence
    assert (section["matches"] or [{}])[0].get("function") == function
    text = (LOGS / "why" / f"{name}.txt").read_text(encoding="utf-8").split("\n", 1)[1]
    monkeypatch.setenv("COLUMNS", "80")
    screen = " ".join(run_cli(["why", text]).stdout.splitlines()[1:6])
    assert opening in screen


def test_why_names_the_message_a_cut_raise_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    section = recorded_why(LOGS / "why" / "sglang26265_prefill_kv_pool.txt")
    trace = section["traceback"]
    assert trace["first"] is True
    assert (
        "that statement raises RuntimeError: 'Prefill out of memory. Try to lower your batch size."
        in (trace["meaning"])
    )
    assert trace["fix"].startswith("Lower --chunked-prefill-size or --max-running-requests")


# --- variants of the mechanisms, on minimal inputs -------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "proc", "body"),
    [
        (
            "авг 18 14:15:04 llm python3[28059]: (EngineCore pid=28059) INFO 08-18 14:15:04 [v.py:1] x",
            "EngineCore",
            "x",
        ),
        (
            "Aug  8 14:15:04 host vllm[12]: (APIServer pid=12) INFO 08-08 14:15:04 [a.py:1] y",
            "APIServer",
            "y",
        ),
        ("févr. 18 14:15:04 h svc[1]: (Worker_TP0 pid=3) INFO 02-18 14:15:04 [a.py:1] z", "Worker_TP0", "z"),
        (
            "Mär 02 01:02:03 h svc[1]: (EngineCore_DP0 pid=9) ERROR 03-02 01:02:03 [c.py:2] w",
            "EngineCore_DP0",
            "w",
        ),
    ],
    ids=["russian", "english", "french-dot", "german"],
)
def test_a_journal_month_in_any_locale_is_a_prefix(line: str, proc: str, body: str) -> None:
    parsed = split_prefix(line)
    assert (parsed.proc, parsed.body) == (proc, body)


@pytest.mark.parametrize(
    "line",
    [
        "Loading safetensors checkpoint shards: 12 34:56:78 x y: z",  # a word, not a month, before it
        "INFO 08-18 14:15:04 [vllm.py:1295] Not auto-setting",  # vLLM's own prefix
    ],
)
def test_what_is_not_a_journal_prefix_stays(line: str) -> None:
    assert split_prefix(line).proc is None
    assert "14:15:04" not in line or split_prefix(line).body.startswith("Not auto-setting")


def test_caret_notation_is_read_as_the_terminal_showed_it() -> None:
    raw = b"^[[1;36m(APIServer pid=7)^[[0;0m ERROR 08-22 21:36:14 [serving_chat.py:250] Error^M"
    assert _decode(raw) == "(APIServer pid=7) ERROR 08-22 21:36:14 [serving_chat.py:250] Error"
    assert _decode(b"a ^ b ^[ c") == "a ^ b ^[ c"  # a caret alone stays


def test_a_caret_return_splits_the_lines_it_joined(tmp_path: Path) -> None:
    text = (
        "^[[1;36m(APIServer pid=7)^[[0;0m INFO 08-22 21:36:10 [api_server.py:1] Starting vLLM API server 0 "
        "on http://0.0.0.0:8000^M^[[1;36m(APIServer pid=7)^[[0;0m ERROR 08-22 21:36:14 [serving_chat.py:250] "
        "Traceback (most recent call last):^M\n"
        '^[[1;36m(APIServer pid=7)^[[0;0m ERROR 08-22 21:36:14 [serving_chat.py:250]   File "/x/vllm/'
        'entrypoints/chat_utils.py", line 1290, in apply_hf_chat_template^M\n'
    )
    report = log_report(written_log(tmp_path, text))
    assert report["log"]["framework"] == "vllm"
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [INFO10, INFO10]
    assert "render the chat template" in report["findings"][0]["message"]
    assert "begins mid-start-up" in report["findings"][1]["message"]


def test_a_ci_viewers_line_numbers_are_a_prefix() -> None:
    parsed = split_prefix("3597\t(APIServer pid=18801) ERROR 03-01 13:30:11 [serving.py:214] Traceback")
    assert (parsed.proc, parsed.src, parsed.body) == ("APIServer", "serving.py:214", "Traceback")
    # digits and blanks, not a tab: the line's own words
    assert split_prefix("3597 tokens prefilled").body == "3597 tokens prefilled"


def test_a_cut_last_line_matches_the_signature_it_starts() -> None:
    hit = match_cut("Exception: WorkerProc initializat", framework="vllm")
    assert hit is not None and hit.id == "vllm-worker-proc-init-failed"
    assert match_cut("Exception: WorkerProc", framework="vllm") is None  # too short to say which
    assert match_cut("Exception: something else entirely", framework="vllm") is None


def test_a_raise_statement_names_its_indexed_message() -> None:
    site = raised_at(
        ".../sglang/srt/mem_cache/common.py", "alloc_paged_token_slots_extend", "raise RuntimeError(x"
    )
    assert site is not None
    assert (site.framework, site.file, site.exception) == (
        "sglang",
        "sglang/srt/mem_cache/common.py",
        "RuntimeError",
    )
    assert site.message.startswith("Prefill out of memory. Try to lower your batch size.")
    # not a raise, another class, a file the index lacks: nothing
    assert raised_at(".../sglang/srt/mem_cache/common.py", "alloc_paged_token_slots_extend", "x = 1") is None
    assert (
        raised_at(".../sglang/srt/mem_cache/common.py", "alloc_paged_token_slots_extend", "raise KeyError(")
        is None
    )
    assert raised_at("/home/me/mine.py", "f", "raise RuntimeError(") is None


FRAMES = (
    '  File "/s/vllm/v1/engine/core.py", line 83, in __init__\n'
    "    self._initialize_kv_caches(vllm_config)\n"
    '  File "/s/vllm/v1/engine/core.py", line 141, in _initialize_kv_caches\n'
    "    available_gpu_memory = self.model_executor.determine_available_memory()\n"
)


def test_a_copy_cut_inside_a_traceback_is_a_note_not_a_stop(tmp_path: Path) -> None:
    head = (
        "INFO 01-02 03:04:05 [api_server.py:1] vLLM API server version 0.10.1\n"
        "Traceback (most recent call last):\n"
    )
    report = log_report(written_log(tmp_path, head + FRAMES))
    # the cut traceback first, then that the file starts past the configuration line
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [INFO10, INFO10]
    message = report["findings"][0]["message"]
    assert message.startswith(
        "Launch 1 stops inside a traceback (from line 2) (during allocating the KV cache) that the file cuts "
        "before its exception line: the launch was failing there"
    )
    assert "Its last frame: engine/core.py, in _initialize_kv_caches." in message
    # with its exception line it is the error, not a note
    whole = log_report(written_log(tmp_path, head + FRAMES + "ValueError: no memory\n"))
    assert not any("inside a traceback" in f["message"] for f in whole["findings"])


def test_a_served_launchs_cut_traceback_may_be_one_request(tmp_path: Path) -> None:
    text = (
        "(APIServer pid=1) INFO 01-02 03:04:05 [api_server.py:1] vLLM API server version 0.10.1\n"
        "(APIServer pid=1) INFO:     Application startup complete.\n"
        "(APIServer pid=1) ERROR 01-02 03:04:09 [serving_chat.py:250] Traceback (most recent call last):\n"
        '(APIServer pid=1) ERROR 01-02 03:04:09 [serving_chat.py:250]   File "/s/vllm/entrypoints/openai/'
        'serving_chat.py", line 240, in create_chat_completion\n'
        "(APIServer pid=1) ERROR 01-02 03:04:09 [serving_chat.py:250]     await self._preprocess_chat(\n"
    )
    report = log_report(written_log(tmp_path, text))
    cut = [f for f in report["findings"] if "inside a traceback" in f["message"]]
    assert cut and "something failed while it served (one request, or the server)" in cut[0]["message"]
    assert "chat template" not in cut[0]["message"]  # the frames do not reach its rendering
    assert alarms(report) == []


def test_a_wrapper_names_another_processs_traceback_above(tmp_path: Path) -> None:
    worker = (
        '(Worker pid=5) ERROR 01-02 03:04:05 [multiproc_executor.py:857]   File "/s/vllm/distributed/'
        'device_communicators/cuda_communicator.py", line 75, in __init__\n'
        "(Worker pid=5) ERROR 01-02 03:04:05 [multiproc_executor.py:857]     self.pynccl_comm = "
        "PyNcclCommunicator(\n"
    )
    engine = (
        '(EngineCore pid=4) ERROR 01-02 03:04:06 [core.py:1108]   File "/s/vllm/v1/executor/'
        'multiproc_executor.py", line 736, in wait_for_ready\n'
        "(EngineCore pid=4) ERROR 01-02 03:04:06 [core.py:1108]     raise e from None\n"
        "(EngineCore pid=4) ERROR 01-02 03:04:06 [core.py:1108] Exception: WorkerProc initialization failed "
        "due to an exception in a background process. See stack trace for root cause.\n"
    )
    report = log_report(written_log(tmp_path, worker + engine))
    assert report["findings"][0]["message"].startswith(
        "[vllm-worker-proc-init-failed] Another process's traceback above it (from line 1) stops in "
        "device_communicators/cuda_communicator.py, in __init__"
    )
    # the engine's own frames alone: nothing above to name
    alone = log_report(written_log(tmp_path, engine))
    assert "Another process" not in alone["findings"][0]["message"]


@pytest.mark.skipif(gnu_grep() is None, reason="needs GNU grep")
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("name", sorted(str(p.relative_to(LOGS)) for p in LOGS.rglob("*.log")))
def test_every_path_gives_the_same_report(
    name: str, compress: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (LOGS / name).read_bytes()
    path = tmp_path / ("log.log.gz" if compress else "log.log")
    path.write_bytes(gzip.compress(data) if compress else data)
    answers = _answers(path, monkeypatch)
    slow = answers.pop("python")
    assert answers  # a fast path ran
    for fast_path, report in answers.items():
        assert report == slow, fast_path
