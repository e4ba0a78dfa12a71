"""Real server logs, session 22's batch (docs/real_cases.md, "Logs, 11th batch"): 15 failures, 5 working.

Each ``*.log`` under ``tests/data/real_cases_logs22/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy gives it: its first line is a ``# source:`` comment with the URL and the
date, worded so that no log pattern reads it. The kinds earlier batches met least: vLLM's V1 engine core
process death in its 2026 words (``EngineCore encountered a fatal error.`` while serving, the API server's
``EngineDeadError: EngineCore encountered an issue``, ``Engine core initialization failed`` with the top of
the log cut), ``docker compose`` logs behind their service column (intel/llm-scaler's Arc and B70 servers, a
compose restart loop's ``Free memory on device cuda:0`` split over two lines), ``docker logs -t`` timestamps,
a worker's OOM behind a benchmark launcher's ``[vllm]`` prefix (one GPU of a DP/EP deployment), vllm-ascend's
``[UC][E]`` format naming ``Worker proc VllmWorker-14 died unexpectedly``, loguru's boxed traceback
(MinerU), SGLang's scheduler dying while it loads the weights behind the sigquit line, a CI job's
``command=sglang serve`` line before the server's serving lines. ``ok/`` holds the working launches:
``docker compose logs`` of a vLLM service answering its health checks, vLLM lines wrapped at 80 columns by a
terminal (LMCache), SGLang's ``server_args`` wrapped and cut by the copy, vllm-omni's start-ups (its version
warning, its logo, its ``non-default args``). ``why/`` holds each failure's error text (its lines from the
first error line on, or the whole copy when it has none).

What each copy cuts (the corpus keeps about 2,000 characters of a report around the words searched):
ainode34 and vllm52029 everything after the engine's configuration line (the engine's failure);
ktransformers1969, llmscaler154, llmscaler348, llmscaler488 and mineru4604 their exception lines;
llmscaler636, vllm42362 and vllmascend7384 the engine core's own traceback (only the API server's
EngineDeadError is in the copy); llmscaler396 everything before the API server's last frames;
sglang_pr26082 the OOM after the serving lines; vllmascend_pr7742 the worker's own last lines. Of the working
launches, lmcache2400 stops inside its ``server_args`` line (a warning until session 26; now notes: a dump
the file's end cuts, with no line of the launch after it, was cut by the copy) and vllmomni3290 after its
``non-default args`` line (a warning: the copy ends in the start-up).

Classes as in the other batches (``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without its change, ``c`` not named, ``d`` a wrong error, warning or claim).
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.log.messages import candidates
from argtrace.layers.log.signatures import match_line
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
    class_counts,
    log_files,
    log_report,
    names_the_cause_and_the_change,
    written_log,
)

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs22"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
ERROR7 = ("LG007", "error")
ERROR3 = ("LG003", "error")
CUT = "the exception is not in the copy (cut before it)"
MID = (
    "Launch 1 begins mid-start-up (its first line here, 2, is already past the configuration line): the "
    "beginning of this launch is not in the file"
)
MID_FIX = (
    "Read the launch from its start: an older rotated file (server.log.1), the terminal or the service "
    "journal; or relaunch with the log kept whole."
)
CUT_TB = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
STOPS_FIX = (
    "Wait and read again, check `dmesg` for the OOM killer, or keep the whole log (no `> log` truncation)."
)
DEAD = (
    "[vllm-engine-dead] vLLM's API server found its engine core process dead and fails every request with "
    "EngineDeadError; this error only follows the engine's own failure, printed above by the engine "
    "core or a "
    "worker"
)
DEAD_FIX = (
    "Read the first error the EngineCore or a Worker process printed above this line (its traceback's last "
    "line, after 'EngineCore encountered a fatal error.'): that is the cause; when there is none, the engine "
    "was killed without a trace (check `dmesg` for the OOM killer)"
)
FATAL = (
    "[vllm-engine-core-fatal] vLLM's engine core process raised after it started (its busy loop: a "
    "scheduling "
    "step, a worker's step, a worker that died) and is going down"
)
FATAL_FIX = (
    "Read the traceback after this line: its last line is the engine's exception; a 'Worker proc ... died "
    "unexpectedly' line just before it means a worker process was killed (check `dmesg` for the OOM killer) "
    "or crashed in native code"
)
ENGINE_FIX = "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line"

CASES = [
    LogCase(
        "ainode34_enginecore_config_line_only.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "weights",
        MID,
        MID_FIX,
        cause="Qwen2.5-1.5B-Instruct-AWQ",
        change="--",
        missing="the engine's configuration line only (cut inside it): the engine's failure is past the copy",
        version="0.19.1rc1.dev241+g4d042ed85.d20260413",
    ),
    LogCase(
        "ktransformers1969_sglang_sigquit_scheduler_load_model.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "weights",
        "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows (during loading the "
        "weights). Its traceback is cut after its last frame (model_executor/model_runner.py, initialize), "
        "before its exception line: the error that names the cause is not in the copy.",
        "Read the traceback after this line",
        cause="out of memory",
        change="--",
        missing=CUT + ": the CUDA OOM of the report's title is past it (the finding now says the copy "
        "cuts it)",
    ),
    LogCase(
        # was LG010 "stops inside a traceback ... during serving": the engine's own wrapper line unread
        "llmscaler154_compose_worker3_died_after_health.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "serving",
        FATAL + "; the traceback after this line ends in its exception, and the API server's EngineDeadError "
        "only follows it (during serving). Its traceback is cut after its last frame (engine/core.py, "
        "_process_input_queue), before its exception line",
        FATAL_FIX,
        cause="VllmWorker-3",
        change="dmesg",
        missing="the 'Worker proc VllmWorker-3 died unexpectedly' line above it holds no matcher anchor "
        "(a 33rd "
        "pattern costs 18-30% of the matcher), so only the fix names the worker's death; why it died is not "
        "in the copy",
    ),
    LogCase(
        "llmscaler348_docker_timestamps_enginecore_frames.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 4) that the file cuts before its exception line",
        CUT_TB,
        cause="AutoRound",
        change="--",
        missing=CUT + ": the engine core's frames through the model's forward",
    ),
    LogCase(
        "llmscaler396_engine_init_failed_cut_top.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
        "above it (during a step this excerpt does not show). Line: RuntimeError: Engine core initialization "
        "failed.",
        ENGINE_FIX,
        cause="Qwen3.5-27B",
        change="--",
        missing="the copy is cut at its top: the engine's error above the API server's frames is not in it",
    ),
    LogCase(
        # was LG010 "begins mid-start-up" alone: the engine's fatal error unread
        "llmscaler488_enginecore_fatal_tee_to_pid1.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "serving",
        FATAL + "; the traceback after this line ends in its exception, and the API server's EngineDeadError "
        "only follows it (during serving). Line: EngineCore encountered a fatal error.",
        FATAL_FIX,
        cause="sym_int4",
        change="--",
        missing=CUT + ": the copy stops in the traceback's first frame line",
    ),
    LogCase(
        # was LG011 "died during serving with: ...EngineDeadError" and "add a signature to ..."
        "llmscaler636_compose_enginedead_process_enginecore.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "serving",
        DEAD,
        DEAD_FIX,
        cause="AutoRound",
        change="--",
        missing="the engine core's traceback after 'Process EngineCore:' is past the copy",
    ),
    LogCase(
        "mineru4604_loguru_boxed_engine_init.log",
        "c",
        "c",
        (INFO10,),
        "vllm",
        "incomplete",
        "validation",
        "Launch 1 stops inside a traceback (from line 3) that the file cuts before its exception line",
        CUT_TB,
        cause="MinerU2",
        change="--",
        missing=CUT + ": loguru's frames up to make_async_mp_client (the engine's failure is above the copy)",
    ),
    LogCase(
        "perfeval6_launcher_prefixed_dp6_ep6_oom.log",
        "a",
        "a",
        (ERROR3, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[cuda-oom] The GPU ran out of memory (during a step this excerpt does not show). Line: "
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB. GPU 6",
        "Lower the memory fraction, the batch size (--max-running-requests / --max-num-seqs) or "
        "--chunked-prefill-size",
        cause="out of memory",
        change="--max-num-seqs",
    ),
    LogCase(
        "sglang_pr26082_ci_kimivl_serving_before_oom.log",
        "c",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "2 of them a running server's serving lines",
        "Give argtrace the log from the server's start (an older rotated file, the journal).",
        cause="out of memory",
        change="--",
        missing="the OOM the comment asks about is past the copy (the CI's `command=sglang serve` line "
        "is the "
        "harness's, not read as the launch)",
    ),
    LogCase(
        # was LG011 "...on startup is less than." and "add a signature": vLLM 0.2x names the device
        "spark257_compose_restart_loop_free_memory.log",
        "b",
        "a",
        (ERROR3, INFO10),
        "vllm",
        "failed",
        "weights",
        "[vllm-free-memory-below-utilization] Another process holds GPU memory: the free memory at start is "
        "below gpu_memory_utilization x total (during loading the weights). Logged free=36.75. Logged "
        "total=121.63.",
        "Stop the other process on that GPU (nvidia-smi), choose another GPU, or lower "
        "--gpu-memory-utilization",
        cause="Another process holds GPU memory",
        change="--gpu-memory-utilization",
    ),
    LogCase(
        # was LG011 "died during serving with: ...EngineDeadError" and "add a signature to ..."
        "vllm42362_kimi_k26_dead_error_on_request.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "serving",
        DEAD,
        DEAD_FIX,
        cause="Kimi",
        change="--",
        missing="only the API server's EngineDeadError is in the copy: the engine's failure is above it",
    ),
    LogCase(
        "vllm52029_v0271_args_then_engine_config_cut.log",
        "c",
        "c",
        (("LG010", "warning"),),
        "vllm",
        "incomplete",
        "weights",
        "Launch 1 stops after model_config (line 7) without an error and before weights_loaded",
        STOPS_FIX,
        cause="opt-125m",
        change="--",
        missing="the copy stops in the engine's configuration line: the engine's failure is past it",
        version="0.27.1",
    ),
    LogCase(
        # was LG011 "died during serving with: ...EngineDeadError" and "add a signature to ..."
        "vllmascend7384_apiserver1_enginedead_while_serving.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "serving",
        DEAD,
        DEAD_FIX,
        cause="qwen3-coder",
        change="--",
        missing="only the API server's EngineDeadError is in the copy: the engine's failure is above it",
    ),
    LogCase(
        # was LG012 **warning** "none from an SGLang or vLLM server" on vLLM's own worker-death line
        "vllmascend_pr7742_uc_format_worker14_died.log",
        "d",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "among them vLLM's own message `[2026-08-22 13:05:18.630086][UC][E] Worker proc VllmWorker-14 died "
        "unexpectedly (exit code: None)",
        "Read that worker's own last lines above this one (a native error: CUDA, NCCL, a segfault) and check "
        "`dmesg` (or the container's exit reason) for the OOM killer, which writes nothing to this log; "
        "the exit "
        "code, when logged, is the signal's negative (-9: SIGKILL); give argtrace the server's whole "
        "log, from "
        "its start.",
        cause="Qwen3.5-27B",
        change="--",
        missing="why worker 14 died is not in the copy (its own last lines are above it)",
    ),
]

# Launches that started (and served, where the copy goes that far): no error; one note each, except two copies
# cut inside the start-up, whose warnings say so (the copy's cut, not the launch's).
OK_LOGS = {
    "genaiexamples2068_compose_vllm_service_health.log": ((INFO10,), "begins mid-start-up"),
    "lmcache2061_vllm_lines_wrapped_at_80.log": ((INFO10,), "begins mid-start-up"),
    "vllmomni4353_omni_cli_mismatch_warning_logo.log": (
        (("LG012", "info"),),
        "5 of them in vLLM's log format",
    ),
    # was two warnings (logs26: a dump the file's end cuts is the copy's cut, notes)
    "lmcache2400_sglang_wrapped_server_args.log": (
        (("LG010", "info"), ("LG010", "info")),
        "The server_args dump at line 3 is cut short: 39 setting(s) read",
    ),
    "vllmomni3290_omni_tts_startup_args.log": (
        (("LG010", "warning"),),
        "Launch 1 stops after args_logged (line 6) without an error",
    ),
}
# the working copies whose warnings are true of the copy (it stops inside the start-up), not of the launch
CUT_IN_START_UP = {"vllmomni3290_omni_tts_startup_args.log"}


def test_the_batch() -> None:
    assert len(CASES) == 15
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([1, 1, 12, 1], [2, 0, 13, 0])
    assert [sum(WHY_CLASSES[0]), sum(WHY_CLASSES[1])] == [15, 15]
    assert {p.stem for p in (LOGS / "why").glob("*.txt")} == {Path(c.file).stem for c in CASES}


def test_every_log_has_its_source_in_a_header_no_pattern_reads() -> None:
    urls = log_sources(LOGS)
    assert len(set(urls)) == len(urls) == 20


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_what_each_log_gives(case: LogCase) -> None:
    report = recorded_log_report(LOGS / case.file)
    assert_what_the_log_gives(report, case, version=case.version is not None)


def test_class_a_names_the_cause_and_the_change() -> None:
    for case in (c for c in CASES if c.after == "a"):
        assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


@pytest.mark.parametrize("case", not_class_a(CASES))
def test_the_first_screen_names_the_cause_and_the_change(case: LogCase) -> None:
    assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


@pytest.mark.parametrize("name", sorted(OK_LOGS))
def test_working_launches_give_no_alarm(name: str) -> None:
    report = recorded_log_report(LOGS / "ok" / name)
    found, said = OK_LOGS[name]
    assert tuple((f["code"], f["severity"]) for f in report["findings"]) == found
    assert said in report["findings"][0]["message"]
    assert not any(f["severity"] == "error" for f in report["findings"])
    if name not in CUT_IN_START_UP:
        assert alarms(report) == []


# --- `why` on each failure's error text -----------------------------------------------------------------

# name -> (confidence, the first site's function or None, the signatures' ids in order)
WHY = {
    # was a strong "_dump_engine_exception" site ("Dumping input data for V1 LLM engine ... with config") and
    # "change VLLM_VERSION": the engine's own configuration line is no error
    "ainode34_enginecore_config_line_only": ("none", None, []),
    "ktransformers1969_sglang_sigquit_scheduler_load_model": (
        "strong",
        "SignalHandler.running_phase_sigquit_handler",
        ["sglang-child-failed", "sglang-scheduler-exception"],
    ),
    "llmscaler154_compose_worker3_died_after_health": (
        "strong",
        "MultiprocExecutor.start_worker_monitor.monitor_workers",
        ["vllm-engine-core-fatal", "vllm-worker-died"],
    ),
    "llmscaler348_docker_timestamps_enginecore_frames": ("none", None, []),
    "llmscaler396_engine_init_failed_cut_top": (
        "strong",
        "wait_for_engine_startup",
        ["vllm-engine-core-failed"],
    ),
    "llmscaler488_enginecore_fatal_tee_to_pid1": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-fatal"],
    ),
    "llmscaler636_compose_enginedead_process_enginecore": (
        "weak",
        "_log_task_completion",
        ["vllm-engine-dead"],
    ),
    "mineru4604_loguru_boxed_engine_init": ("none", None, []),
    "perfeval6_launcher_prefixed_dp6_ep6_oom": ("none", None, ["cuda-oom"]),
    "sglang_pr26082_ci_kimivl_serving_before_oom": (
        "strong",
        "_patch_image_processor_kwargs.safe_call",
        [],
    ),
    "spark257_compose_restart_loop_free_memory": (
        "strong",
        "request_memory",
        ["vllm-free-memory-below-utilization"],
    ),
    "vllm42362_kimi_k26_dead_error_on_request": ("weak", "_log_task_completion", ["vllm-engine-dead"]),
    # was a strong "mm_tensor_ipc='torch_shm' is not supported with data_parallel_size > 1 ..." site, read in
    # the engine's configuration line's setting names
    "vllm52029_v0271_args_then_engine_config_cut": ("weak", "EngineArgs.create_engine_config", []),
    "vllmascend7384_apiserver1_enginedead_while_serving": (
        "weak",
        "_log_task_completion",
        ["vllm-engine-dead"],
    ),
    "vllmascend_pr7742_uc_format_worker14_died": (
        "strong",
        "MultiprocExecutor.start_worker_monitor.monitor_workers",
        ["vllm-worker-died"],
    ),
}
# before, after (docs/real_cases.md): a the free memory at start-up with the utilization that fits; b the
# OOM whose step the text does not show; d before: the two configuration lines read as errors
WHY_CLASSES = ([1, 1, 11, 2], [1, 1, 13, 0])


@pytest.mark.parametrize("name", sorted(WHY))
def test_why_on_the_error_text(name: str) -> None:
    confidence, function, signatures = WHY[name]
    section = recorded_why(LOGS / "why" / f"{name}.txt")
    assert section["confidence"] == confidence
    assert (section["matches"] or [{}])[0].get("function") == function
    assert [s["id"] for s in section["signatures"]] == signatures


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # vLLM 0.2x names the device; the message split over two lines by a copy keeps its first half
        (
            "ValueError: Free memory on device cuda:0 (36.75/121.63 GiB) on startup is less than",
            "vllm-free-memory-below-utilization",
        ),
        (
            "ValueError: Free memory on device cuda:1 (10.2/79.1 GiB) on startup is less than desired "
            "GPU memory "
            "utilization (0.9, 71.19 GiB). Decrease GPU memory utilization or reduce GPU memory used by "
            "other "
            "processes.",
            "vllm-free-memory-below-utilization",
        ),
        # the releases before that name no device
        (
            "ValueError: Free memory on device (3.22/4.0 GiB) on startup is less than desired GPU memory "
            "utilization (0.9, 3.6 GiB).",
            "vllm-free-memory-below-utilization",
        ),
        # vLLM 0.33.0 with weights held outside the process
        (
            "ValueError: Free memory on device cuda:0 (5.0/80.0 GiB) on startup is less than the "
            "engine's budget "
            "after excluding external process's weights (0.9, 60.0 GiB).",
            "vllm-free-memory-below-utilization",
        ),
        ("EngineCore encountered a fatal error.", "vllm-engine-core-fatal"),
        (
            "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace "
            "(above) for the root cause.",
            "vllm-engine-dead",
        ),
        # the message alone, as `why` reads a line past its exception class
        ("EngineCore encountered an issue. See stack trace (above) for the root cause.", "vllm-engine-dead"),
        ("Worker proc VllmWorker-3 died unexpectedly, shutting down executor.", "vllm-worker-died"),
        (
            "Worker proc VllmWorker-0 died unexpectedly (exit code: -9), shutting down executor.",
            "vllm-worker-died",
        ),
    ],
)
def test_a_line_is_read_by_its_entry(line: str, expected: str) -> None:
    hit = match_line(line, framework=None, stage=None)
    assert hit is not None and hit[0].id == expected


def test_free_memory_logged_figures_with_and_without_the_utilization() -> None:
    whole = match_line(
        "ValueError: Free memory on device cuda:0 (36.75/121.63 GiB) on startup is less than desired "
        "GPU memory "
        "utilization (0.85, 103.38 GiB).",
        framework="vllm",
        stage=None,
    )
    cut = match_line(
        "ValueError: Free memory on device cuda:0 (36.75/121.63 GiB) on startup is less than",
        framework="vllm",
        stage=None,
    )
    assert whole is not None and cut is not None
    assert whole[1] == {"free": "36.75", "total": "121.63", "gpu_memory_utilization": "0.85"}
    assert cut[1] == {"free": "36.75", "total": "121.63"}


ENGINE_LINES = (
    "vllm-1  | (EngineCore_DP0 pid=211) ERROR 03-02 10:00:01 [core.py:944] EngineCore encountered a fatal "
    "error.\n"
    "vllm-1  | (EngineCore_DP0 pid=211) ERROR 03-02 10:00:01 [core.py:944] Traceback (most recent call "
    "last):\n"
    'vllm-1  | (EngineCore_DP0 pid=211) ERROR 03-02 10:00:01 [core.py:944]   File "/usr/local/lib/python3.12/'
    'dist-packages/vllm/v1/engine/core.py", line 935, in run_engine_core\n'
    "vllm-1  | (EngineCore_DP0 pid=211) ERROR 03-02 10:00:01 [core.py:944]     engine_core.run_busy_loop()\n"
    'vllm-1  | (EngineCore_DP0 pid=211) ERROR 03-02 10:00:01 [core.py:944]   File "/usr/local/lib/python3.12/'
    'dist-packages/vllm/v1/engine/core.py", line 962, in run_busy_loop\n'
    "vllm-1  | (EngineCore_DP0 pid=211) ERROR 03-02 10:00:01 [core.py:944]     self._process_engine_step()\n"
)


def test_an_engine_fatal_error_whose_traceback_the_copy_cuts(tmp_path: Path) -> None:
    # compose's service column, the engine's wrapper line, its traceback cut after a frame
    report = log_report(written_log(tmp_path, ENGINE_LINES))
    first = report["findings"][0]
    assert (first["code"], first["severity"]) == ("LG007", "error")
    assert first["message"].startswith("[vllm-engine-core-fatal] ")
    assert (
        "Its traceback is cut after its last frame (engine/core.py, run_busy_loop), before its "
        "exception line: "
        "the error that names the cause is not in the copy." in first["message"]
    )


def test_an_engine_fatal_error_with_its_exception_names_it(tmp_path: Path) -> None:
    # the same traceback whole: its exception leads, not a note that the copy cuts it
    whole = ENGINE_LINES + (
        "vllm-1  | (EngineCore_DP0 pid=211) ERROR 03-02 10:00:01 [core.py:944] torch.OutOfMemoryError: "
        "CUDA out "
        "of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.54 GiB of which 1.02 GiB is "
        "free.\n"
    )
    report = log_report(written_log(tmp_path, whole))
    said = " ".join(f["message"] for f in report["findings"])
    assert "cut after its last frame" not in said
    assert "CUDA out of memory" in said


def test_the_api_servers_engine_dead_error_points_above(tmp_path: Path) -> None:
    report = log_report(
        written_log(
            tmp_path,
            "(APIServer pid=1) ERROR 05-12 01:48:42 [serving.py:1005] "
            "vllm.v1.engine.exceptions.EngineDeadError: "
            "EngineCore encountered an issue. See stack trace (above) for the root cause.\n"
            '(APIServer pid=1) INFO:     10.0.0.2:40000 - "POST /v1/chat/completions HTTP/1.1" 500 Internal '
            "Server Error\n",
        )
    )
    first = report["findings"][0]
    assert (first["code"], first["severity"]) == ("LG007", "error")
    assert first["message"].startswith(DEAD)
    assert first["fix"] == DEAD_FIX
    assert not any(f["code"] == "LG011" for f in report["findings"])


@pytest.mark.parametrize(
    "line",
    [
        "(EngineCore pid=1) INFO 04-16 02:33:00 [core.py:107] Initializing a V1 LLM engine (v0.19.1) "
        "with config: "
        "model='m', tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1",
        "INFO 06-01 22:03:08 [cli_args.py:300] non-default args: {'port': 8001, 'tensor_parallel_size': 2}",
        "[2026-01-14 05:25:33] server_args=ServerArgs(model_path='Qwen/Qwen3-14B', tp_size=1, dp_size=1)",
        "INFO 05-23 09:30:29 [api_server.py:1044] args: Namespace(subparser='serve', model_tag='m', "
        "port=8000)",
    ],
)
def test_a_configuration_line_is_no_message_to_match(line: str) -> None:
    # the values a server started with name settings, and so matched raise sites naming the same settings
    assert candidates(line) == []
    section = recorded_why_text(line)
    assert section["confidence"] == "none"


def test_a_configuration_line_among_errors_leaves_the_errors() -> None:
    text = (
        "INFO 06-01 22:03:08 [cli_args.py:300] non-default args: {'port': 8001, 'tensor_parallel_size': 2}\n"
        "ValueError: Free memory on device cuda:0 (3.1/79.1 GiB) on startup is less than desired GPU memory "
        "utilization (0.9, 71.19 GiB)."
    )
    assert [c for c in candidates(text) if "non-default" in c] == []
    section = recorded_why_text(text)
    assert section["matches"][0]["function"] in ("request_memory", "Worker.init_device")


def recorded_why_text(text: str) -> dict[str, Any]:
    from argtrace.commands.why import explain

    section: dict[str, Any] = explain(text)
    return section


def test_why_leads_with_the_signature_when_the_sites_are_only_candidates() -> None:
    from argtrace.commands.why_text import render_why

    for name in (
        "vllm42362_kimi_k26_dead_error_on_request",
        "llmscaler636_compose_enginedead_process_enginecore",
        "vllmascend7384_apiserver1_enginedead_while_serving",
    ):
        section = recorded_why(LOGS / "why" / f"{name}.txt")
        assert section["confidence"] == "weak"
        text = render_why(section, 80)
        assert text.splitlines()[0].startswith("log signature vllm-engine-dead (LG007): "), (name, text[:300])
        assert text.count("log signature vllm-engine-dead") == 1
