"""Real server logs, session 25's batch (docs/real_cases.md, "Logs, 12th batch"): 15 failures, 5 working.

Each ``*.log`` under ``tests/data/real_cases_logs25/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy gives it, behind a ``# source:`` header line with the URL and the date. The
kinds earlier batches met least: what launchers and log services put before vLLM's and SGLang's own lines (a
Python launcher's ``2026-05-29 09:14:45,594 - INFO - [container] ``, a ``[2026-01-22 20:05:33] [/bin/sh]: ``
command tag and vLLM's process tag in brackets, ``[EngineCore_DP0][pid=1242]``, journald's ``bash[PID]:``, a
CloudWatch CSV export with rsyslog's ``#033[1;36m`` colour codes, a Grafana table's ``|`` columns around
SGLang's ``[... PP0 ATTN_CP1 TP1]``), a copy wrapped at a fixed width (119 columns) that cuts vLLM's KV cache
refusal inside its message, vLLM's wrapper lines of several releases (V0's ``Engine process failed to
start``, 0.7's ``EngineCore hit an exception``, the executor's ``Worker failed with error``), SGLang
Diffusion's ``Rank 0 scheduler is dead`` / ``Exit code: -9``. ``ok/`` holds the working launches (SGLang
0.5.x on MUSA with progress bars run together with log lines, vLLM 0.2x's ``Worker_TP0`` lines and
FlashInfer's own logging inside the engine's lines, ``VLLM_LOGGING_LEVEL=DEBUG``'s path-style logger names,
GPUStack's re-formatted vLLM lines). ``why/`` holds each failure's error text (its lines from the first line
naming an error, failure or death on).

What each copy cuts (the corpus keeps about 2,000 characters around the words searched): the engine's own
error of step3vl11, prodstack407, lmcache1662, minio3_16, vllm_pr43410, lmcache1435 (their tracebacks stop in
a frame), sagemaker111, vllm12474, vllm29636 (only the wrapper's line: the cause was above the copy),
gpustack3848 and sglang15235 (SGLang Diffusion's scheduler killed by a signal, -9, the CLI's traceback cut),
sglang25887 and sglang12567 (SGLang's scheduler crashing while serving: a pipeline/context-parallel bug, and
spec decoding with the overlap scheduler), deepseekocr110 (one line: the engine core process died, no
reason). The working copies stop inside their start-up (notes say so; no error, no warning).

Classes as in the other batches (``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without its change, ``c`` not named, ``d`` a wrong error, warning or claim).
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.log.lines import _decode
from argtrace.layers.log.prefix import split_prefix
from argtrace.layers.log.signatures import match_line
from argtrace.layers.log.sites import cut_inside, site_hint
from tests.batches import (
    LogCase,
    log_batch_tests,
)
from tests.conftest import (
    class_counts,
    log_files,
    log_report,
    written_log,
)

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs25"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
ERROR7 = ("LG007", "error")
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
SCHED = "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows (during serving)."
SCHED_FIX = "Read the traceback after this line"
DIED = "Exit code: -9 (SIGKILL, the OOM killer among its senders)"

CASES = [
    LogCase(
        # was LG011 "...KV cach." with "add a signature": the copy wraps the message at 119 columns
        "b70cookbook4_enginecore_kv_cache_wrapped_columns.log",
        "b",
        "a",
        (("LG011", "error"), INFO10),
        "vllm",
        "failed",
        "unknown",
        "vllm raises it in _check_enough_kv_cache_memory (vllm/v1/core/kv_cache_planning.py) when "
        "`needed_memory > available_memory`, which reads --max-model-len, --gpu-memory-utilization.",
        "Change --max-model-len, --gpu-memory-utilization so that `needed_memory > available_memory` no "
        "longer holds (`argtrace why` on the message shows the site in every release).",
        cause="max seq len",
        change="--max-model-len",
    ),
    LogCase(
        "deepseekocr110_engine_core_proc_died_one_line.log",
        "c",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        # was "1 of them in vLLM's log format": the line is the catalog's now, named in the note
        "among them vLLM's own message `Engine core proc EngineCore_DP0 died unexpectedly, shutting down "
        "client.` ([vllm-engine-core-proc-died]",
        "Read that engine core's own last lines above this one (a native error: CUDA, NCCL, a segfault) and "
        "check `dmesg` (or the container's exit reason) for the OOM killer, which writes nothing to this "
        "log; give argtrace the server's whole log, from its start.",
        cause="died",
        change="--",
        missing="why the engine core died is not in the copy (its own last lines are above it); the line "
        "holds no matcher anchor, so inside a launch it is not read (a 33rd pattern costs 18-30% of the "
        "matcher)",
    ),
    LogCase(
        "gpustack3848_sglang_diffusion_rank0_scheduler_dead.log",
        "c",
        "c",
        (INFO10,),
        "sglang",
        "incomplete",
        "validation",
        STOPS_IN_TB,
        CUT_TB,
        cause="-9",
        change="--",
        missing="SGLang Diffusion's 'Rank 0 scheduler is dead' and 'Exit code: -9' (SIGKILL, the OOM killer "
        "likely) hold no matcher anchor; a 33rd pattern costs 18-30% of the matcher",
    ),
    LogCase(
        "lmcache1435_enginecore3_lmcache_lines_blank_apiserver.log",
        "c",
        "c",
        (INFO10,),
        "vllm",
        "incomplete",
        "validation",
        STOPS_IN_TB,
        CUT_TB,
        cause="Qwen3-Coder",
        change="--",
        missing=CUT + ": the API server's traceback stops in asyncio's frames",
    ),
    LogCase(
        "lmcache1662_enginecore_failed_no_prefix_init_device.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE,
        ENGINE_FIX,
        cause="LMCache",
        change="--",
        missing=CUT + ": the engine's traceback stops in init_device",
    ),
    LogCase(
        # the ``[/bin/sh]: `` tag now read: its frames are a traceback the copy cuts
        "minio3_16_bin_sh_process_enginecore_traceback.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        STOPS_IN_TB,
        CUT_TB,
        cause="4090",
        change="--",
        missing=CUT + ": the engine's traceback stops in EngineCore.__init__",
    ),
    LogCase(
        # was LG010 "stops inside a traceback": vLLM 0.7's wrapper line unread
        "prodstack407_helm_enginecore_hit_exception.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-engine-core-hit-exception] vLLM's V1 engine core process raised",
        "Read the traceback this line begins: its last line is the engine's exception",
        cause="lmcache",
        change="--",
        missing=CUT + ": the copy stops in EngineCore.__init__'s frame",
    ),
    LogCase(
        # CloudWatch's CSV and rsyslog's #033 colour codes now read: the API server's tag
        "sagemaker111_cloudwatch_csv_octal_ansi_engine_args.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE
        + " (during a step this excerpt does not show). Line: RuntimeError: Engine core initialization "
        "failed.",
        ENGINE_FIX,
        cause="mxfp4",
        change="--",
        missing="the copy is cut at its top: the engine's own error is above the API server's last frames",
    ),
    LogCase(
        "sglang12567_gptoss_spec_overlap_nonetype_serving.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        SCHED + " Its traceback ends in TypeError: 'NoneType' object is not subscriptable",
        SCHED_FIX,
        cause="overlap",
        change="--disable-overlap-schedule",
        missing="a bug of speculative decoding under the overlap scheduler (the report's workaround turns "
        "either off): no release refuses the pair",
    ),
    LogCase(
        "sglang15235_generate_rank0_scheduler_dead_exit9.log",
        "c",
        "c",
        (INFO10,),
        "sglang",
        "incomplete",
        "validation",
        STOPS_IN_TB,
        CUT_TB,
        cause="-9",
        change="--",
        missing="SGLang Diffusion's 'Rank 0 scheduler is dead' and 'Exit code: -9' hold no matcher anchor",
    ),
    LogCase(
        "sglang25887_grafana_table_pp_cp_tp_scheduler.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        SCHED + " Line: |",
        SCHED_FIX,
        cause="size of tensor",
        change="--",
        missing=CUT
        + ": the scheduler's traceback (context with pipeline parallelism) stops in torch's frame",
    ),
    LogCase(
        "step3vl11_bin_sh_prefix_blank_lines_engine_failed.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE + " (during a step this excerpt does not show). Its traceback is cut after its last frame "
        "(engine/core.py, __init__)",
        ENGINE_FIX,
        cause="Step3",
        change="--",
        missing=CUT + ": the engine's traceback stops in EngineCore.__init__",
    ),
    LogCase(
        # was LG011 "died during argument validation" with "Change VLLM_USE_V1 so that ... no longer holds"
        "vllm12474_journal_bash_pid_engine_process_failed.log",
        "d",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE + " (during a step this excerpt does not show). Line: RuntimeError: Engine process failed to "
        "start.",
        ENGINE_FIX,
        cause="ProtectSystem",
        change="--",
        missing="the engine process's own error (systemd's hardening refused it) is above the copy",
    ),
    LogCase(
        # was LG011 "Worker failed with error" with "add a signature"
        "vllm29636_worker_failed_with_error_kv_profile.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-worker-failed-with-error] vLLM's multiprocess executor got an error back from a worker "
        "process",
        "Read the worker's traceback above this line (the Worker_TPn/VllmWorker process's lines) or the "
        "error quoted after 'Worker failed with error': its last line is the cause",
        cause="Worker_TP",
        change="--",
        missing="the worker's own error (in its lines above) is not in the copy",
    ),
    LogCase(
        # was LG012 **warning** "none from an SGLang or vLLM server" on vLLM's API server lines behind a
        # Python launcher's logging prefix
        "vllm_pr43410_python_logging_container_prefix.log",
        "d",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "holding 3 frame(s) of a vllm traceback (the last in __init__) without its exception line",
        "Give argtrace the whole log, from the server's start, or the full traceback with its last line (the "
        "exception).",
        cause="minimax",
        change="--",
        missing=CUT + ": the API server's frames only",
    ),
]

# Launches that started; each copy stops inside its start-up or at its first serving line: notes only.
OK_LOGS = {
    "club3090_178_worker_tp_inline_progress_graph_pool.log": ((INFO10, INFO10), "begins mid-start-up"),
    "gpustack2514_reformatted_vllm_lines_startup_complete.log": ((INFO10,), "begins mid-start-up"),
    "sglang_pr26437_musa_piecewise_graph_progress_inline.log": ((INFO10, INFO10), "begins mid-start-up"),
    "vllm49011_enginecore_flashinfer_autotuner_lines.log": ((INFO10, INFO10), "begins mid-start-up"),
    "vllm_pr29830_debug_path_style_logger_names.log": ((INFO10, INFO10), "begins mid-start-up"),
}


def test_the_batch() -> None:
    assert len(CASES) == 15
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([0, 1, 12, 2], [1, 0, 14, 0])
    assert [sum(WHY_CLASSES[0]), sum(WHY_CLASSES[1])] == [15, 15]
    assert {p.stem for p in (LOGS / "why").glob("*.txt")} == {Path(c.file).stem for c in CASES}


# --- `why` on each failure's error text -----------------------------------------------------------------

# name -> (confidence, the first site's function or None, the signatures' ids in order, its fix holds)
WHY = {
    "b70cookbook4_enginecore_kv_cache_wrapped_columns": (
        "strong",
        "_check_enough_kv_cache_memory",
        [],
        "change --max-model-len, --gpu-memory-utilization",
    ),
    "deepseekocr110_engine_core_proc_died_one_line": (
        "strong",
        "MPClient.start_engine_core_monitor.monitor_engine_cores",
        ["vllm-engine-core-proc-died"],
        "avoid the call path",
    ),
    # was "change --nnodes, --node-rank" (the conditions of the code path that reports the death)
    "gpustack3848_sglang_diffusion_rank0_scheduler_dead": (
        "strong",
        "launch_server",
        [],
        "after another failure, which its message points to",
    ),
    "lmcache1435_enginecore3_lmcache_lines_blank_apiserver": ("none", None, [], None),
    "lmcache1662_enginecore_failed_no_prefix_init_device": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-failed"],
        "the exception at the end of that traceback is the cause",
    ),
    "minio3_16_bin_sh_process_enginecore_traceback": ("none", None, [], None),
    "prodstack407_helm_enginecore_hit_exception": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-hit-exception"],
        "the text after the message is the cause",
    ),
    "sagemaker111_cloudwatch_csv_octal_ansi_engine_args": (
        "strong",
        "wait_for_engine_startup",
        ["vllm-engine-core-failed"],
        "after another failure, which its message points to",
    ),
    "sglang12567_gptoss_spec_overlap_nonetype_serving": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
        "the text after the message is the cause",
    ),
    # was "change --nnodes, --node-rank"
    "sglang15235_generate_rank0_scheduler_dead_exit9": (
        "strong",
        "launch_server",
        [],
        "after another failure, which its message points to",
    ),
    "sglang25887_grafana_table_pp_cp_tp_scheduler": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
        "the text after the message is the cause",
    ),
    "step3vl11_bin_sh_prefix_blank_lines_engine_failed": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-failed"],
        "the exception at the end of that traceback is the cause",
    ),
    # was "make the condition false (...): change VLLM_USE_V1"
    "vllm12474_journal_bash_pid_engine_process_failed": (
        "strong",
        "build_async_engine_client_from_engine_args",
        ["vllm-engine-core-failed"],
        "VLLM_USE_V1 only chose the code path that reports it",
    ),
    # was "make the condition false (...): change --enable-fault-tolerance"
    "vllm29636_worker_failed_with_error_kv_profile": (
        "strong",
        "MultiprocExecutor.collective_rpc.get_response",
        ["vllm-worker-failed-with-error"],
        "--enable-fault-tolerance only chose the code path that reports it",
    ),
    "vllm_pr43410_python_logging_container_prefix": ("none", None, [], None),
}
# before, after (docs/real_cases.md): a the KV cache refusal's site and flags; d before: four wrappers whose
# own messages point to an earlier error, told to change what their code path's conditions read
WHY_CLASSES = ([1, 0, 10, 4], [1, 0, 14, 0])


globals().update(log_batch_tests(LOGS, CASES, OK_LOGS, WHY, sources=20))


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "body", "proc"),
    [
        # a Python launcher's own logging record around its child's line, with and without its logger name
        (
            "2026-05-29 09:14:45,594 - INFO - [container] (APIServer pid=557)     return cls(",
            "    return cls(",
            "APIServer",
        ),
        (
            "2025-06-27 12:57:45,345 - __main__ - INFO - WARNING 06-27 12:57:45 [utils.py:2737] Methods x",
            "Methods x",
            None,
        ),
        (
            "2025-03-07 23:50:27,531 - __main__ - INFO - [2025-03-07 23:50:27 TP0] Load weight begin.",
            "Load weight begin.",
            None,
        ),
        (
            "2026-05-29 09:14:45,594 - ERROR - (EngineCore_DP0 pid=7) ValueError: x",
            "ValueError: x",
            "EngineCore_DP0",
        ),
        # a command's tag after a launcher's time, and vLLM's process tag in brackets
        (
            "[2026-01-22 20:05:33] [/bin/sh]: [EngineCore_DP0][pid=1242] ERROR 01-22 12:05:33.129 "
            "[core.py:1302] EngineCore failed to start.",
            "EngineCore failed to start.",
            "EngineCore_DP0",
        ),
        (
            '[2025-09-25 20:03:20] [/bin/sh]:   File "/x/core.py", line 3, in run',
            '  File "/x/core.py", line 3, in run',
            None,
        ),
        # a CSV export's milliseconds since the epoch, the message quoted or not
        ("1756144014882,(APIServer pid=1) RuntimeError: x", "RuntimeError: x", "APIServer"),
        ('1756144013378,"(APIServer pid=1)     raise RuntimeError(', "    raise RuntimeError(", "APIServer"),
        # SGLang's own time and rank stay SGLang's (no command tag after them)
        ("[2025-11-03 18:48:34 TP7] Scheduler hit an exception: x", "Scheduler hit an exception: x", None),
    ],
)
def test_a_launchers_prefix_comes_off(line: str, body: str, proc: str | None) -> None:
    parsed = split_prefix(line)
    assert (parsed.body, parsed.proc) == (body, proc)


def test_a_csv_exports_epoch_time_is_utc() -> None:
    parsed = split_prefix("1756144014882,(APIServer pid=1) RuntimeError: x")
    assert parsed.time is not None and parsed.time.isoformat() == "2025-08-25T17:46:54.882000"


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (b"1,#033[1;36m(APIServer pid=1)#033[0;0m RuntimeError: x", "1,(APIServer pid=1) RuntimeError: x"),
        (b"ESC[0;0m ERROR x", " ERROR x"),
        (b"a # 033 [ not a code", "a # 033 [ not a code"),
    ],
)
def test_rsyslogs_escaped_colour_codes_come_off(raw: bytes, text: str) -> None:
    assert _decode(raw) == text


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "RuntimeError: Engine process failed to start. See stack trace for the root cause.",
            "vllm-engine-core-failed",
        ),
        ("EngineCore hit an exception: Traceback (most recent call last):", "vllm-engine-core-hit-exception"),
        ("RuntimeError: Worker failed with error", "vllm-worker-failed-with-error"),
        (
            "Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.",
            "vllm-engine-core-proc-died",
        ),
        ("RuntimeError: Engine core process EngineCore_DP1 died unexpectedly.", "vllm-engine-core-proc-died"),
        (
            "RuntimeError: Worker failed with error 'CUDA out of memory', please check the stack trace above "
            "for the root cause",
            "cuda-oom",  # the worker's error it quotes is the cause, and its own entry comes first
        ),
    ],
)
def test_a_line_is_read_by_its_entry(line: str, expected: str) -> None:
    hit = match_line(line, framework=None, stage=None)
    assert hit is not None and hit[0].id == expected


KV = (
    "To serve at least one request with the model's max seq len ({max_model_len}), "
    "({format_gib(needed_memory)} GiB KV cache is needed, which is larger than the available KV cache "
    "memory ({format_gib(available_memory)} GiB). Based on the available memory, the estimated maximum "
    "model length is {estimated_max_len}."
)


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        # cut inside a literal piece, inside a value, inside the first piece
        (
            "ValueError: To serve at least one request with the model's max seq len (100000), (4.26 GiB KV "
            "cach",
            True,
        ),
        ("ValueError: To serve at least one request with the model's max seq len (100000), (4.2", True),
        ("ValueError: To serve at least one request with the model's max seq len (10", True),
        (
            "To serve at least one request with the model's max seq len (100000), (4.26 GiB KV cache is "
            "needed, which is larger than the available KV cache memory (4.25 GiB). Based on the avai",
            True,
        ),
        # not this message: another text after its first words, or too few of its words
        (
            "ValueError: To serve at least one request with the model's max seq len (100000), (4.26 GiB RAM",
            False,
        ),
        ("ValueError: To serve at least", False),
        ("ValueError: Something else entirely, nothing like the message at all", False),
    ],
)
def test_a_message_the_copy_cuts_is_its_sites(text: str, cut: bool) -> None:
    assert cut_inside(KV, text) is cut


def test_a_cut_message_gets_its_raise_site_from_the_message_index() -> None:
    hint = site_hint(
        "ValueError: To serve at least one request with the model's max seq len (100000), (4.26 GiB KV cach",
        "vllm",
    )
    assert hint is not None
    assert (hint.function, hint.flags) == (
        "_check_enough_kv_cache_memory",
        ("--max-model-len", "--gpu-memory-utilization"),
    )


def test_a_wrapped_copy_of_the_kv_cache_refusal_names_its_flags(tmp_path: Path) -> None:
    report = log_report(
        written_log(
            tmp_path,
            "(EngineCore_DP0 pid=9) ERROR 07-01 10:00:00 [core.py:1] ValueError: To serve at least one "
            "request with the model's max seq len (131072), (8.0\n"
            "0 GiB KV cache is needed, which is larger than the available KV cache memory (2.00 GiB).\n",
        )
    )
    first = report["findings"][0]
    assert (first["code"], first["severity"]) == ("LG011", "error")
    assert first["fix"].startswith("Change --max-model-len, --gpu-memory-utilization so that")


def test_a_python_launchers_lines_are_a_servers(tmp_path: Path) -> None:
    # was LG012 **warning** "none from an SGLang or vLLM server"
    report = log_report(
        written_log(
            tmp_path,
            "2026-05-29 09:14:40,100 - INFO - [container] (APIServer pid=5) INFO 05-29 09:14:40 "
            "[api_server.py:1] vLLM API server version 0.21.0\n"
            "2026-05-29 09:14:45,594 - INFO - [container] (APIServer pid=5) RuntimeError: Engine core "
            "initialization failed. See root cause above. Failed core proc(s): {}\n",
        )
    )
    assert report["log"]["framework"] == "vllm"
    first = report["findings"][0]
    assert (first["code"], first["severity"]) == ERROR7
    assert first["message"].startswith(ENGINE)
