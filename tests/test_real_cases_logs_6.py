"""Real server logs, 6th batch (docs/real_cases.md, "Logs, 6th batch"): 11 failed launches, 9 working ones.

Each ``*.log`` under ``tests/data/logs6/`` is a log posted in a public report of 2025-2026 (SGLang 0.4-0.5 and
its 2026 main, SGLang under ktransformers and LMCache, vLLM 0.9-0.26 and its 2026 main, vllm-ascend, vLLM on
ROCm and ppc64le), recorded as the stored copy of the report gives it, without a line added: its ``.source``
beside it names the URL, what the log is and what the copy cut (a header line inside the log was read as a
log line: a title's "EngineCore failed to start" became a finding). ``ok/`` holds launches that started and
served (or were starting when the copy ends). The command is ``argtrace log FILE --format json`` on a new
user's machine, measured on this batch's base before any change (``before``), then after.

Forms not in the earlier batches: a reply quoting a log in markdown (``> `` before each line, a quoted blank
line between them), a log collector's bracketed ISO time before vLLM's or SGLang's prefix, a GitHub Actions
job log, traceback frames behind docker compose's service column, four API server processes
(``ApiServer_N``), SGLang's ``DP TP EP`` tags with a loading bar glued to a line, batch lines cut at a
terminal's width, two nodes' outputs pasted one after the other.

Classes as in the other batches: ``a`` the root cause and the right setting or change among the errors and
warnings, ``b`` named but only as a note or without a change, ``c`` not named, ``d`` a wrong error or warning
or a wrong claim. ``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail``
naming what it lacks. The mechanisms this batch added have variants on minimal inputs below.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from argtrace.layers.log.prefilter import gnu_grep
from argtrace.layers.log.prefix import split_prefix
from argtrace.layers.log.signatures import match_line
from argtrace.redact import redact_text
from tests.batches import LogCase, assert_what_the_log_gives, not_class_a, recorded_log_report
from tests.conftest import (
    alarms,
    assert_working_launch,
    class_counts,
    last_launch,
    log_files,
    log_report,
    names_the_cause_and_the_change,
    written_log,
)
from tests.log.test_fast_equals_slow import _answers

LOGS = Path(__file__).resolve().parent / "data" / "logs6"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
# logs18: a copy that stops inside a traceback (LG010 "stops inside a traceback")
CUT_TB_FIX = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
ERROR7 = ("LG007", "error")
EXCERPT = "begins mid-start-up"
READ_FROM_START = (
    "Read the launch from its start: an older rotated file (server.log.1), the terminal or the service "
    "journal; or relaunch with the log kept whole."
)
SCHEDULER = "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows"
SCHEDULER_FIX = "Read the traceback after this line"
# logs21: a scheduler's traceback cut inside the CUDA graph capture gets the capture's own switch first
SCHEDULER_CAPTURE_FIX = (
    "It failed inside the CUDA graph capture. Relaunch with --disable-cuda-graph to confirm (or a smaller "
    "--cuda-graph-max-bs), then try --disable-custom-all-reduce. " + SCHEDULER_FIX
)
ENGINE = (
    "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
    "above it (during a step this excerpt does not show)"
)
ENGINE_FIX = "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line"
WORKER_INIT = (
    "[vllm-worker-proc-init-failed] The engine's multiprocess executor saw a worker process fail while it "
    "started; this exception only repeats that: the worker's own traceback, after its 'WorkerProc failed to "
    "start.' line, is above it (during a step this excerpt does not show)"
)
WORKER_INIT_FIX = (
    "Read the worker's traceback above this line (after 'WorkerProc failed to start.', in the "
    "Worker/VllmWorker process's lines): its last line is the worker's exception"
)
CUT = "the exception is not in the copy (cut before it)"


CASES = [
    LogCase(
        # was LG011 "died during argument validation" and LG001 error "has no server_args= line": the frames
        # behind compose's column were not kept, and the message's empty reason lost its trailing blank
        "sglang11218_compose_capture_failed.log",
        "d",
        "a",
        (("LG003", "error"), INFO10),
        "sglang",
        "failed",
        "cuda_graph",
        "[sglang-capture-cuda-graph-failed] SGLang could not capture its CUDA graphs; the reason follows "
        "(often out of memory) (during capturing CUDA graphs). Line: Exception: Capture cuda graph failed:",
        "Lower --cuda-graph-max-bs or --mem-fraction-static, drop --enable-torch-compile, or "
        "--disable-cuda-graph",
        cause="capture its CUDA graphs",
        change="drop --enable-torch-compile",
    ),
    LogCase(
        # was LG011 "an error no signature knows", fix "add a signature": vLLM's executor repeating that a
        # worker died
        "vllm31683_workerproc_then_apiserver.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        WORKER_INIT,
        WORKER_INIT_FIX,
        cause="worker",
        change="--",
        missing="the worker's own error is above the copy (the issue quotes the wrapper to show it hides it)",
    ),
    LogCase(
        # the same wrapper behind a log collector's bracketed ISO time (its time now read)
        "deepseekocr5_vllm_iso_engine0.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        WORKER_INIT,
        WORKER_INIT_FIX,
        cause="DeepseekOCRForCausalLM",
        change="--",
        missing="the architecture error the title names is not in the copy (cut in the engine's traceback)",
    ),
    LogCase(
        "gpustack6019_vllm026_mp_multinode.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE,
        ENGINE_FIX,
        cause="port",
        change="--",
        missing="the ZMQ port collision happened on the subordinate node, whose log the report lacks (its "
        "`docker logs` was mistyped)",
    ),
    LogCase(
        "rocm6055_vllm018_strix_worker.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
        "above it (during a step this excerpt does not show). Its traceback is cut after its last frame "
        "(tracing/otel.py, sync_wrapper), before its exception line: the error that names the cause is "
        "not in "
        "the copy. Line: EngineCore failed to start.",
        ENGINE_FIX,
        cause="gfx1151",
        change="--",
        missing=CUT + ": the traceback stops in its first frames",
    ),
    LogCase(
        "ppc64le8270_gha_vllm016_cpu.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 2)",
        CUT_TB_FIX,
        cause="ppc64le",
        change="--",
        missing=CUT + ": a CI job log starting and ending inside the engine's traceback",
    ),
    LogCase(
        "spark296_vllm_kv_page_size_assert.log",
        "c",
        "c",
        (("LG011", "error"), INFO10),
        "vllm",
        "failed",
        "kv_cache",
        "Launch 1 died during allocating the KV cache with: AssertionError.",
        "Read the exception and the traceback shown; if it is a common failure, add a signature to "
        "argtrace/data/error_signatures.json.",
        cause="page_size",
        change="--",
        missing="a bare AssertionError of vLLM's KV cache grouping at that commit (a framework bug, no "
        "setting; the message index has no text for an assert without a message)",
    ),
    LogCase(
        "sglang_pr11308_ci_dp1_tp1_graphs.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "cuda_graph",
        SCHEDULER + " (during capturing CUDA graphs)",
        SCHEDULER_CAPTURE_FIX,
        cause="DeepSeek-V3.2",
        change="--",
        missing=CUT + ": frames through the CUDA graph runner's construction",
    ),
    LogCase(
        "ktransformers1751_sglang_sigquit_graphs.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "cuda_graph",
        SCHEDULER + " (during capturing CUDA graphs)",
        SCHEDULER_CAPTURE_FIX,
        cause="DeepSeek-V3.2",
        change="--",
        missing=CUT + ": frames through the CUDA graph runner's construction",
    ),
    LogCase(
        # its markdown quote and bracketed ISO times are prefixes now: the line quoted is SGLang's own
        "sglang_pr12031_quoted_docker_iso.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "weights",
        SCHEDULER + " (during loading the weights). Line: Scheduler hit an exception:",
        SCHEDULER_FIX,
        cause="deepseek-ocr",
        change="--",
        missing=CUT + " (the hard-coded repository name the PR fixes, a framework bug)",
    ),
    LogCase(
        # the scheduler's traceback ended in the exception the wrapper only announced, shown in the evidence
        # alone: now its exception and the frame that raised it are in the message
        "lmcache869_sglang_serving_prealloc.log",
        "c",
        "b",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        SCHEDULER + " (during serving). Its traceback ends in ValueError: Failed to allocate token "
        "prealloc indices (raised in mem_cache/radix_cache.py, match_prefix_lmcache). Line: Scheduler hit an "
        "exception:",
        SCHEDULER_FIX,
        cause="lmcache",
        change="--",
        missing="no setting changes it: LMCache's integration under test (the PR) fails in its prefix match",
    ),
]

# Launches that started (or were starting when the copy ends): no error, no warning; the notes expected.
OK_LOGS = {
    "glmv204_vllm_enginecore_capture.log": ((INFO10, INFO10), "incomplete", "serving"),
    "ray54979_serve_llm_v092.log": ((INFO10, INFO10), "incomplete", "weights"),
    "sglang_pr11716_tp8_load_begin.log": ((INFO10, INFO10), "incomplete", "weights"),
    "sglang_pr17392_dp_tp_ep_pool.log": ((INFO10, INFO10), "incomplete", "cuda_graph"),
    "vllm_pr21728_worker_startup.log": ((INFO10, INFO10), "incomplete", "cuda_graph"),
}
# A running server's lines without its start-up, or a few lines of vLLM's processes: no launch, a note.
NO_LAUNCH = {
    "sglang_pr25960_npu_cut_lines.log": "with SGLang's scheduler lines",
    "vllm42363_kimi_k26_serving.log": "7 of them a running server's serving lines",
    "vllm_pr37505_ascend_worker_gloo.log": "7 of them logged by vLLM's own processes (`Worker`)",
    "vllm_pr45150_four_api_servers.log": "9 of them in vLLM's log format (`(ApiServer_0 pid=3873982)",
}


def test_the_batch() -> None:
    assert len(CASES) == 11
    assert len(OK_LOGS) + len(NO_LAUNCH) == 9
    assert {c.file for c in CASES} | {f"ok/{k}" for k in [*OK_LOGS, *NO_LAUNCH]} == log_files(LOGS)
    assert class_counts(CASES) == ([0, 0, 10, 1], [1, 1, 9, 0])


def test_every_log_has_its_source_beside_it() -> None:
    urls = []
    for path in sorted(LOGS.rglob("*.log")):
        source = path.with_suffix(".source").read_text(encoding="utf-8")
        assert re.match(r"https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+ \(", source), path.name
        urls.append(source.split()[0])
        # the log is the posted text alone: no header line of ours in it
        assert not path.read_text(encoding="utf-8").startswith("# source"), path.name
    assert len(set(urls)) == len(urls) == 20


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_what_each_log_gives(case: LogCase) -> None:
    report = recorded_log_report(LOGS / case.file)
    assert_what_the_log_gives(report, case)
    # no LG012 "none from a server", no "stops ... without an error" on a failed launch
    assert not any(f["code"] == "LG012" for f in report["findings"])
    if case.state == "failed":
        assert not any("without an error" in f["message"] for f in report["findings"])


@pytest.mark.parametrize("case", not_class_a(CASES))
def test_the_first_screen_names_the_cause_and_the_change(case: LogCase) -> None:
    assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


def test_the_first_screen_of_the_a_case() -> None:
    case = CASES[0]
    assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


@pytest.mark.parametrize("name", sorted(OK_LOGS))
def test_working_launches_give_no_alarm(name: str) -> None:
    assert_working_launch(recorded_log_report(LOGS / "ok" / name), OK_LOGS[name])


@pytest.mark.parametrize("name", sorted(NO_LAUNCH))
def test_running_servers_lines_alone_are_a_note(name: str) -> None:
    report = recorded_log_report(LOGS / "ok" / name)
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG012", "info")]
    assert NO_LAUNCH[name] in report["findings"][0]["message"]
    assert report["log"]["launches"] == []


def test_sglangs_batch_counters_are_not_masked_as_secrets() -> None:
    # "#new-token: 896" was read as an HTTP header ``New-Token: 896`` and its number masked
    report = recorded_log_report(LOGS / "ok" / "sglang_pr25960_npu_cut_lines.log")
    assert "#new-token: 896, #cached-tounning-req: 47" in report["findings"][0]["message"]
    assert "<redacted" not in json.dumps(report)


# --- variants of the mechanisms, on minimal inputs -------------------------------------------------------


def _codes(report: dict) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"]]


@pytest.mark.parametrize(
    ("line", "when", "proc", "rank", "body"),
    [
        # a log collector's ISO time in brackets before vLLM's prefix (deepseek-ai/DeepSeek-OCR#5)
        (
            "[2025-10-22T02:06:19.566Z] ERROR 10-21 19:06:19 [core.py:396] Exception: boom",
            "2025-10-22 02:06:19",
            None,
            None,
            "Exception: boom",
        ),
        # ... before SGLang's own bracketed time, with an offset instead of Z
        (
            "[2025-11-06T02:08:27+00:00] [2025-11-06 02:08:27 TP0] Load weight begin. avail mem=15.12 GB",
            "2025-11-06 02:08:27",
            None,
            "TP0",
            "Load weight begin. avail mem=15.12 GB",
        ),
        # a markdown quote, then the collector's time, then SGLang's (sglang#12031)
        (
            "> [2025-11-06T02:08:28.503Z] [2025-11-06 02:08:28] Scheduler hit an exception: Traceback",
            "2025-11-06 02:08:28",
            None,
            None,
            "Scheduler hit an exception: Traceback",
        ),
        # a quoted vLLM line with its process tag
        (
            "> (EngineCore_DP0 pid=7) ERROR 01-02 03:04:05 [core.py:9] EngineCore failed to start.",
            None,
            "EngineCore_DP0",
            None,
            "EngineCore failed to start.",
        ),
        # a quoted blank line is empty
        ("> ", None, None, None, ""),
    ],
    ids=["iso-vllm", "iso-offset-sglang", "quote-iso-sglang", "quote-vllm", "quote-blank"],
)
def test_bracketed_iso_times_and_markdown_quotes_are_prefixes(
    line: str, when: str | None, proc: str | None, rank: str | None, body: str
) -> None:
    parsed = split_prefix(line)
    got = parsed.time.isoformat(sep=" ") if parsed.time else None
    assert (got, parsed.proc, parsed.rank, parsed.body) == (when, proc, rank, body)


@pytest.mark.parametrize(
    "line",
    [
        # SGLang's own bracketed time has a blank, not a T: still SGLang's, its rank kept
        "[2025-10-16 09:06:09 TP7] Init torch distributed ends. mem usage=1.77 GB",
        # a prompt or an arrow is the line's own text, not a quote
        ">>> import sglang",
        "->  Load weight begin.",
    ],
)
def test_what_is_not_such_a_prefix_stays(line: str) -> None:
    parsed = split_prefix(line)
    if line.startswith("[2025"):
        assert (parsed.rank, parsed.body) == ("TP7", "Init torch distributed ends. mem usage=1.77 GB")
    else:
        assert parsed.body == line


COMPOSE_CAPTURE = (
    'svc  |   File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 431, in '
    "initialize\n"
    "svc  |     self.init_device_graphs()\n"
    'svc  |   File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", '
    "line 393, in __init__\n"
    "svc  |     raise Exception(\n"
    "svc  | Exception: Capture cuda graph failed: \n"
    "svc  | Possible solutions:\n"
)


def test_frames_behind_composes_column_name_the_stage(tmp_path: Path) -> None:
    report = log_report(written_log(tmp_path, COMPOSE_CAPTURE))
    assert _codes(report) == [("LG003", "error"), INFO10]
    assert report["findings"][0]["message"].startswith("[sglang-capture-cuda-graph-failed]")
    assert (last_launch(report)["state"], last_launch(report)["stage"]) == ("failed", "cuda_graph")
    assert last_launch(report)["error"]["traceback"][0].startswith('File "/sgl-workspace/')


def test_a_capture_failure_with_an_empty_reason_is_known() -> None:
    # SGLang: f"Capture cuda graph failed: {e}\n{CUDA_GRAPH_CAPTURE_FAILED_MSG}" with an empty str(e), the
    # trailing blank lost by the copy; a reason still comes out when there is one
    for text, groups in (
        ("Exception: Capture cuda graph failed:", {}),
        ("Exception: Capture cuda graph failed: boom", {"reason": "boom"}),
    ):
        hit = match_line(text, framework="sglang", stage="cuda_graph")
        assert hit is not None
        assert (hit[0].id, hit[1]) == ("sglang-capture-cuda-graph-failed", groups)


def test_vllms_executor_repeating_a_workers_death_is_a_wrapper(tmp_path: Path) -> None:
    worker = (
        "(VllmWorker rank=0 pid=5) ERROR 01-02 03:04:05 [multiproc_executor.py:600] WorkerProc failed to "
        "start.\n"
        "(VllmWorker rank=0 pid=5) ERROR 01-02 03:04:05 [multiproc_executor.py:600] Traceback (most recent "
        "call last):\n"
        "(VllmWorker rank=0 pid=5) ERROR 01-02 03:04:05 [multiproc_executor.py:600] ValueError: "
        "DeepseekOCRForCausalLM is not supported\n"
    )
    wrapper = (
        "(EngineCore_DP0 pid=4) ERROR 01-02 03:04:06 [core.py:700] Exception: WorkerProc initialization "
        "failed due to an exception in a background process. See stack trace for root cause.\n"
    )
    alone = log_report(written_log(tmp_path, wrapper))
    assert _codes(alone) == [ERROR7, INFO10]
    assert alone["findings"][0]["message"].startswith(WORKER_INIT)
    # with the worker's own lines above it, the worker's line is the one named first
    both = log_report(written_log(tmp_path, worker + wrapper))
    assert both["findings"][0]["message"].startswith("[vllm-worker-proc-failed]")
    assert [f for f in alarms(both) if "vllm-worker-proc-init-failed" in f["message"]] == []


def test_a_wrappers_traceback_exception_is_named(tmp_path: Path) -> None:
    head = "[2026-01-02 03:04:05 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    frames = (
        '  File "/s/sglang/srt/managers/scheduler.py", line 9, in event_loop_normal\n'
        "    self.run_batch(batch)\n"
        '  File "/s/sglang/srt/layers/sampler.py", line 3, in forward\n'
        "    raise RuntimeError('probability tensor contains nan')\n"
    )
    report = log_report(
        written_log(tmp_path, head + frames + "RuntimeError: probability tensor contains nan\n")
    )
    assert (
        " Its traceback ends in RuntimeError: probability tensor contains nan (raised in layers/sampler.py, "
        "forward). Line: Scheduler hit an exception:" in report["findings"][0]["message"]
    )
    # a copy cut before the exception says nothing it does not have
    cut = log_report(written_log(tmp_path, head + frames))
    assert "Its traceback ends in" not in cut["findings"][0]["message"]


def test_a_header_named_token_is_still_a_secret() -> None:
    assert redact_text("Prefill batch, #new-token: 896, #cached-token: 0") == (
        "Prefill batch, #new-token: 896, #cached-token: 0"
    )
    assert "abcdef123456" not in redact_text('curl -H "Private-Token: abcdef123456" http://x')
    assert "abcdef123456" not in redact_text("New-Token: abcdef123456")


@pytest.mark.skipif(gnu_grep() is None, reason="needs GNU grep")
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize(
    "name", sorted([*(str(p.relative_to(LOGS)) for p in LOGS.rglob("*.log")), "compose-capture"])
)
def test_every_path_gives_the_same_report(
    name: str, compress: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = COMPOSE_CAPTURE.encode() if name == "compose-capture" else (LOGS / name).read_bytes()
    path = tmp_path / ("log.log.gz" if compress else "log.log")
    path.write_bytes(gzip.compress(data) if compress else data)
    answers = _answers(path, monkeypatch)
    slow = answers.pop("python")
    assert answers  # a fast path ran
    for fast_path, report in answers.items():
        assert report == slow, fast_path
