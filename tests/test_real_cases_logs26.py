"""Real server logs, session 26's batch (docs/real_cases.md, "Logs, 13th batch"): 15 failures, 5 working.

Each ``*.log`` under ``tests/data/real_cases_logs26/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy gives it, behind a ``# source:`` header line with the URL and the date
(a month or a year alone where the copy shows no post date: then the log's own stamps and the release it
names date it). The kinds the batch went for: vLLM 0.2x's ``(EngineCore pid=N)`` tag without ``_DP0``
(intel/llm-scaler's XPU images, vLLM on s390x), ``(EngineCore_0 pid=N)``, ``(Worker_TP1 pid=N)`` lines run
together with the engine's, torch's glog lines before vLLM's, a Buildkite job log copied from its web view
with the viewer's ``  | `` gutter, a PowerShell copy, a copy that opens with a stray backtick, a shell prompt
and a command wrapped inside a flag's name (``--enable-pre`` / ``fix-caching``) before vLLM 0.23's banner,
lines padded with blanks to a terminal's width, a Python launcher's logging around vLLM's lines after the
tail of vLLM's engine config line, a Chinese word run together with the exception line, SGLang 0.5.15's
scheduler crashing while serving a hybrid (mamba) model, SGLang's warmup request lines. ``ok/`` holds the
working launches (SGLang 0.5.x's ``server_args=ServerArgs(...)`` of 2026 wrapped by the copy and cut inside
it, the tail of another's dump wrapped twice, vLLM 0.2x's ``Worker_TP0`` AOT-compile lines and their
"padding layers" warning, vLLM on s390x up to its routes). ``why/`` holds each failure's error text (its
lines from the first line naming an error, a failure or a death on; the whole copy where none does).

What each copy cuts (the corpus keeps about 2,000 characters around the words searched): the engine's own
exception of domyn97, paroquant12, qwen3vl1520, qwen3vl1988, vllmomni363 (their tracebacks stop in a frame),
sglang31103 and vllm17276 (the crash while serving: its exception line), strixhalo69 (everything after vLLM's
banner), longcat7 (the warmup's assertion, named only in the report's title), olmocr260 (everything after the
launcher's "Attempt 18"). The working copies stop inside their start-up (notes say so; no error, no warning).

Classes as in the other batches (``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without its change, ``c`` not named, ``d`` a wrong error, warning or claim).
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.commands.why import explain
from argtrace.layers.log.prefix import split_prefix
from argtrace.layers.log.signatures import match_line
from tests.batches import (
    LogCase,
    log_batch_tests,
)
from tests.conftest import (
    alarms,
    class_counts,
    log_files,
    log_report,
    written_log,
)

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs26"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
ERROR7 = ("LG007", "error")
NO_KV = ("LG003", "error")
NO_KV_SAYS = (
    "[vllm-no-kv-cache-memory] After weights and activations, nothing was left for the KV cache within "
    "gpu_memory_utilization (during allocating the KV cache). Line: "
)
NO_KV_FIX = (
    "Raise --gpu-memory-utilization, shard the model (--tensor-parallel-size) or use a smaller/quantized "
    "model"
)
CUT = "the exception is not in the copy (cut before it)"
CUT_TB = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
STOPS_IN_TB = "stops inside a traceback (from line"
ENGINE = (
    "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
    "above it"
)
ENGINE_FIX = "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line"

CASES = [
    LogCase(
        "domyn97_enginecore_0_kv_caches_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        ENGINE + " (during allocating the KV cache). Its traceback is cut after its last frame",
        ENGINE_FIX,
        cause="KV cache",
        change="--gpu-memory-utilization",
        missing=CUT + ": the engine's traceback stops in _initialize_kv_caches",
    ),
    LogCase(
        "llmrelated29_chinese_prefix_no_available_memory_one_line.log",
        "a",
        "a",
        (NO_KV, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        NO_KV_SAYS + "报错ValueError: No available memory for the cache blocks.",
        NO_KV_FIX,
        cause="KV cache",
        change="--gpu-memory-utilization",
    ),
    LogCase(
        # was LG007 "the cause is the first error above it (during a step this excerpt does not show)": the
        # engine's negative "Available KV cache memory: -0.83 GiB" was not read as the error it raises next
        "llmscaler616_enginecore_pid_negative_kv_memory.log",
        "c",
        "a",
        (NO_KV, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        NO_KV_SAYS + "Available KV cache memory: -0.83 GiB",
        NO_KV_FIX,
        cause="KV cache",
        change="--gpu-memory-utilization",
    ),
    LogCase(
        "longcat7_sglang_warmup_request_lines_assert_cut.log",
        "c",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "has 5 line(s) with SGLang's scheduler lines",
        "Give argtrace the log from the server's start (an older rotated file, the journal, `docker logs`/"
        "`kubectl logs` of the whole container).",
        cause="assert",
        change="--",
        missing=CUT + ": the warmup's assertion is in the report's title only",
    ),
    LogCase(
        "olmocr260_python_logging_args_line_cut_at_top.log",
        "c",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "2 of them in vLLM's log format",
        "Give argtrace the server's whole log, from its start (the terminal, `docker logs`, `kubectl logs`, "
        "the journal).",
        cause="EngineCore",
        change="--",
        missing=CUT + ": the copy stops at the launcher's 'Attempt 18: Please wait'",
    ),
    LogCase(
        "paroquant12_powershell_enginecore_otel_frames.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        STOPS_IN_TB,
        CUT_TB,
        cause="KV cache",
        change="--",
        missing=CUT + ": the engine's traceback stops in _initialize_kv_caches",
    ),
    LogCase(
        "qwen3vl1520_enginecore_multiproc_wait_for_ready.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        STOPS_IN_TB,
        CUT_TB,
        cause="worker",
        change="--",
        missing=CUT + ": the engine's traceback stops in WorkerProc.wait_for_ready",
    ),
    LogCase(
        # the copy opens with a stray backtick before vLLM's process tag: read alike
        "qwen3vl1988_backtick_enginecore_cpu_kv_caches.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        STOPS_IN_TB,
        CUT_TB,
        cause="KV cache",
        change="--",
        missing=CUT + ": the engine's traceback stops in _initialize_kv_caches",
    ),
    LogCase(
        "sglang31103_qwen36_decode_mamba_scheduler_serving.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows (during serving). "
        "Its traceback is cut after its last frame (managers/scheduler.py, run_batch)",
        "Read the traceback after this line",
        cause="mamba",
        change="--",
        missing=CUT + ": the scheduler's traceback stops in run_batch",
    ),
    LogCase(
        "strixhalo69_prompt_command_wrapped_banner_0231.log",
        "c",
        "c",
        (),
        "vllm",
        "incomplete",
        "validation",
        "",
        None,
        cause="qwen3",
        change="--",
        missing="the copy stops after vLLM 0.23.1's banner: nothing of the failure is in it",
    ),
    LogCase(
        "vllm17276_fatal_error_serving_padded_lines.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "serving",
        "[vllm-engine-core-fatal] vLLM's engine core process raised after it started",
        "Read the traceback after this line: its last line is the engine's exception; a 'Worker proc ... "
        "died unexpectedly' line just before it means a worker process was killed (check `dmesg` for the OOM "
        "killer) or crashed in native code",
        cause="Qwen2.5-VL",
        change="--",
        missing=CUT + ": the copy stops at the engine's 'Traceback (most recent call last):'",
    ),
    LogCase(
        # was LG007 "(during loading the weights)": one rank's negative KV cache memory among the others'
        "vllmomni262_worker_tp1_negative_kv_interleaved.log",
        "c",
        "a",
        (NO_KV, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        NO_KV_SAYS + "Available KV cache memory: -3.86 GiB",
        NO_KV_FIX,
        cause="KV cache",
        change="--gpu-memory-utilization",
    ),
    LogCase(
        "vllmomni363_enginecore_uniproc_init_device_cut.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        STOPS_IN_TB,
        CUT_TB,
        cause="device",
        change="--",
        missing=CUT + ": the engine's traceback stops in init_device's collective_rpc",
    ),
    LogCase(
        # was LG007 "(during a step this excerpt does not show)": the negative figure above it unread
        "vllmomni469_torch_glog_negative_kv_memory.log",
        "c",
        "a",
        (NO_KV, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        NO_KV_SAYS + "Available KV cache memory: -2.77 GiB",
        NO_KV_FIX,
        cause="KV cache",
        change="--gpu-memory-utilization",
    ),
    LogCase(
        # was LG012 info naming vllm-no-kv-cache-memory in a file of no launch: the Buildkite gutter ``  | ``
        # hid every line's process tag
        "vllmomni946_ci_pipe_column_no_available_memory.log",
        "b",
        "a",
        (NO_KV, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        NO_KV_SAYS + "ValueError: No available memory for the cache blocks.",
        NO_KV_FIX,
        cause="KV cache",
        change="--gpu-memory-utilization",
    ),
]

# Launches that started; each copy stops inside its start-up: notes only.
OK_LOGS = {
    "club3090_pr594_worker_tp_padding_layers_warning.log": ((INFO10,), "begins mid-start-up"),
    "sglang_pr13023_server_args_tail_kt_method_wrapped.log": (
        (("LG012", "info"),),
        "holding part of a sglang argument dump (32 of its settings as name=value)",
    ),
    # was two LG010 **warnings** ("dump ... cut short", "stops after args_logged ... without an error"): the
    # file ends inside the dump, where the copy cut it
    "sglang_pr26473_server_args_repr_wrapped_2026.log": (
        (INFO10, INFO10),
        "The server_args dump at line 2 is cut short: 37 setting(s) read",
    ),
    "vllm_pr46389_worker_tp_aot_compile_profiling.log": ((INFO10,), "begins mid-start-up"),
    "vllm_pr50841_s390x_enginecore_pid_routes.log": ((INFO10,), "begins mid-start-up"),
}
# before: sglang PR#26473's two warnings
OK_ALARMS_BEFORE = {"sglang_pr26473_server_args_repr_wrapped_2026.log": 2}


def test_the_batch() -> None:
    assert len(CASES) == 15
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([1, 1, 13, 0], [5, 0, 10, 0])
    assert [sum(WHY_CLASSES[0]), sum(WHY_CLASSES[1])] == [15, 15]
    assert {p.stem for p in (LOGS / "why").glob("*.txt")} == {Path(c.file).stem for c in CASES}


# --- `why` on each failure's error text -----------------------------------------------------------------

# name -> (confidence, the first site's function or None, the signatures' ids in order, its fix holds)
WRAPPED = "the exception at the end of that traceback is the cause"
WHY = {
    "domyn97_enginecore_0_kv_caches_cut": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-failed"],
        WRAPPED,
    ),
    "llmrelated29_chinese_prefix_no_available_memory_one_line": (
        "strong",
        "check_enough_kv_cache_memory",
        ["vllm-no-kv-cache-memory"],
        "change --gpu-memory-utilization",
    ),
    "llmscaler616_enginecore_pid_negative_kv_memory": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-failed"],
        WRAPPED,
    ),
    "longcat7_sglang_warmup_request_lines_assert_cut": ("none", None, [], None),
    # the copy's one message is vLLM 0.7-0.8's warning that the worker lacks some methods: named as a
    # warning at its site (no error in the text)
    "olmocr260_python_logging_args_line_cut_at_top": (
        "strong",
        "warn_for_unimplemented_methods.find_unimplemented_methods",
        [],
        "unimplemented_methods",
    ),
    "paroquant12_powershell_enginecore_otel_frames": ("none", None, [], None),
    "qwen3vl1520_enginecore_multiproc_wait_for_ready": ("none", None, [], None),
    "qwen3vl1988_backtick_enginecore_cpu_kv_caches": ("none", None, [], None),
    "sglang31103_qwen36_decode_mamba_scheduler_serving": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
        "the text after the message is the cause",
    ),
    "strixhalo69_prompt_command_wrapped_banner_0231": ("none", None, [], None),
    "vllm17276_fatal_error_serving_padded_lines": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-fatal"],
        WRAPPED,
    ),
    "vllmomni262_worker_tp1_negative_kv_interleaved": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-failed"],
        WRAPPED,
    ),
    "vllmomni363_enginecore_uniproc_init_device_cut": ("none", None, [], None),
    "vllmomni469_torch_glog_negative_kv_memory": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-failed"],
        WRAPPED,
    ),
    "vllmomni946_ci_pipe_column_no_available_memory": (
        "strong",
        "_check_enough_kv_cache_memory",
        ["vllm-no-kv-cache-memory"],
        "change --gpu-memory-utilization",
    ),
}
# before, after (docs/real_cases.md): a the two texts that quote vLLM's "No available memory for the cache
# blocks"; the texts of the three negative figures start at the engine's wrapper line (below the figure)
WHY_CLASSES = ([2, 0, 13, 0], [2, 0, 13, 0])


globals().update(log_batch_tests(LOGS, CASES, OK_LOGS, WHY, sources=20))


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "body", "proc"),
    [
        # a CI web view's gutter before the line's own text
        (
            "  | (EngineCore_DP0 pid=6804) ValueError: No available memory for the cache blocks.",
            "ValueError: No available memory for the cache blocks.",
            "EngineCore_DP0",
        ),
        ("  | Process SpawnProcess-1:", "Process SpawnProcess-1:", None),
        ("  | [2025-03-10T15:07:20Z] ERROR 03-10 08:07:20 [core.py:302] x", "x", None),
        # not that gutter: a table's empty cell after it, a bar at the line's very start, one blank before it
        ("  |   | 2026-06-12 12:13:18.902 | x", "  |   | 2026-06-12 12:13:18.902 | x", None),
        ("| (APIServer pid=1) x", "| (APIServer pid=1) x", None),
        (" | (APIServer pid=1) x", " | (APIServer pid=1) x", None),
    ],
)
def test_a_ci_viewers_gutter_comes_off(line: str, body: str, proc: str | None) -> None:
    parsed = split_prefix(line)
    assert (parsed.body, parsed.proc) == (body, proc)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # vLLM's gpu_worker logs the figure its KV cache check then refuses (kv_cache_planning.py:56 in
        # 0.33.0: ``if available_memory <= 0: raise ValueError("No available memory for the cache blocks...``)
        ("Available KV cache memory: -0.83 GiB", "vllm-no-kv-cache-memory"),
        ("Available KV cache memory: -0.00 GiB", "vllm-no-kv-cache-memory"),
        ("Available KV cache memory: 0.83 GiB", None),
        ("Available KV cache memory: 112.61 GiB", None),
    ],
)
def test_a_negative_kv_cache_figure_is_the_no_memory_error(line: str, expected: str | None) -> None:
    hit = match_line(line, framework="vllm", stage=None)
    assert (hit[0].id if hit else None) == expected


NEGATIVE = (
    "(EngineCore pid=548) INFO 08-17 06:40:57 [gpu_worker.py:462] Available KV cache memory: {gib} GiB\n"
    "(EngineCore pid=548) ERROR 08-17 06:40:57 [core.py:1141] EngineCore failed to start.\n"
    "(EngineCore pid=548) ERROR 08-17 06:40:57 [core.py:1141] Traceback (most recent call last):\n"
)


def test_one_negative_figure_is_one_cause_with_its_raise(tmp_path: Path) -> None:
    text = NEGATIVE.format(gib="-0.83") + (
        "(EngineCore pid=548) ERROR 08-17 06:40:57 [core.py:1141] ValueError: No available memory for the "
        "cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.\n"
    )
    report = log_report(written_log(tmp_path, text))
    codes = [(f["code"], f["severity"]) for f in report["findings"]]
    assert codes == [NO_KV, INFO10]
    # the figure and the ValueError it leads to: one finding, counted twice
    assert report["findings"][0]["message"] == NO_KV_SAYS.replace("Line:", "Line (x2):") + (
        "Available KV cache memory: -0.83 GiB"
    )


def test_a_positive_figure_leaves_the_wrapper_as_it_was(tmp_path: Path) -> None:
    report = log_report(written_log(tmp_path, NEGATIVE.format(gib="9.90")))
    first = report["findings"][0]
    assert (first["code"], first["severity"]) == ERROR7
    assert first["message"].startswith(ENGINE)


def test_why_names_the_check_a_negative_figure_fails() -> None:
    section = explain(
        "(EngineCore pid=548) INFO 08-17 06:40:57 [gpu_worker.py:462] Available KV cache memory: -0.83 GiB"
    )
    assert [s["id"] for s in section["signatures"]] == ["vllm-no-kv-cache-memory"]


DUMP = (
    "[2026-06-02 03:35:49] server_args=ServerArgs(model_path='/m/Qwen3-30B-A3B', "
    "tokenizer_path='/m/Qwen3-30B-A3B', tokenizer_mode='auto', host='0.0.0.0', port=31000, dtype='auto', "
    "mem_fraction_static=0.5, chunked_prefill_"
)


def test_a_dump_the_files_end_cuts_is_a_note(tmp_path: Path) -> None:
    report = log_report(written_log(tmp_path, DUMP + "\n"))
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [INFO10, INFO10]
    assert alarms(report) == []


def test_a_dump_cut_before_more_of_its_launch_still_warns(tmp_path: Path) -> None:
    # the launch goes on after the cut line: the server's line itself was cut where it was written
    report = log_report(
        written_log(tmp_path, DUMP + "\n[2026-06-02 03:35:52 TP0] Load weight begin. avail mem=77.00 GB\n")
    )
    cut = next(f for f in report["findings"] if "is cut short" in f["message"])
    assert cut["severity"] == "warning"


# --- what runs and stores a server puts around its lines, on one of the batch's real logs ---------------

# llm-scaler#616's three lines (vLLM 0.21's tags), as each tool's documented format writes them; the base
# commit of this batch already read every one alike (docs/real_cases.md, "Logs, 13th batch")
REAL = (
    (LOGS / "llmscaler616_enginecore_pid_negative_kv_memory.log")
    .read_text(encoding="utf-8")
    .splitlines()[1:4]
)
WRAPPED_BY = {
    "kubectl logs --prefix": lambda i, line: f"[pod/vllm-7d9f5-x2k/vllm] {line}",
    "kubectl logs --timestamps": lambda i, line: f"2026-08-17T06:40:57.{i:09d}Z {line}",
    "kubectl logs --prefix --timestamps": lambda i, line: (
        f"[pod/vllm-7d9f5-x2k/vllm] 2026-08-17T06:40:57.{i:09d}Z {line}"
    ),
    "srun --label": lambda i, line: f"0: {line}",
    "srun --label, 10+ tasks": lambda i, line: f"00: {line}",
    "journalctl -o short-iso": lambda i, line: f"2026-08-17T06:40:57+0000 node1 vllm[548]: {line}",
    "CRLF": lambda i, line: f"{line}\r",
    "a tmux pane's padding and clock": lambda i, line: f"{line:<200} 06:40:57 [62/152]",
}


@pytest.mark.parametrize("tool", sorted(WRAPPED_BY))
def test_a_tools_prefix_keeps_the_cause(tmp_path: Path, tool: str) -> None:
    text = "".join(WRAPPED_BY[tool](i, line) + "\n" for i, line in enumerate(REAL))
    first = log_report(written_log(tmp_path, text))["findings"][0]
    assert (first["code"], first["severity"], first["fix"]) == (*NO_KV, NO_KV_FIX)


def test_a_gzipped_log_keeps_the_cause(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "server.log.gz"
    path.write_bytes(gzip.compress(("\n".join(REAL) + "\n").encode()))
    first = log_report(path)["findings"][0]
    assert (first["code"], first["severity"], first["fix"]) == (*NO_KV, NO_KV_FIX)
