"""Real server logs, session 27's batch (docs/real_cases.md, "Logs, 14th batch"): 15 failures, 5 working.

Each ``*.log`` under ``tests/data/real_cases_logs27/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy gives it (prefixes kept as posted), behind a ``# source:`` header line with
the URL and the date (a month or a year alone where the copy shows no post date: then the log's own stamps
and the release it names date it). The kinds the batch went for: vLLM-Omni's ``(Worker pid=N) [Stage-0]``
lines beside its diffusion stage's untagged ``[Stage-1]`` ones, Ray actors' tags around SGLang's scheduler
(``(GenerationServer pid=N)``) and vLLM's NCCL lines (``(RayWorkerWrapper pid=N, ip=...)``), a Buildkite
job's APIServer traceback on Python 3.13, a Chinese line before an ``(EngineCore_DP0 pid=N)`` traceback, a
TPU notebook's ``(APIServer)`` tag without a pid, ``docker exec ... tail`` before an NGC build's banner
(vLLM ``0.17.1+...nv26.03``), an SGLang fork's lines padded by a terminal's wrap, vLLM's sampler warm-up OOM
pasted without any prefix, torch's OutOfMemoryError below it, a lone "Engine core proc ... died" at an
offline script's end. ``ok/`` holds the working launches (SGLang on MUSA with ``DP0 TP0`` import notes,
kvcached's own lines before SGLang's, vLLM 0.19.1's CPU image serving ``/health``, vLLM 0.10's ``VllmWorker
rank=0`` lines beside untagged engine lines, vLLM on s390x up to its routes). ``why/`` holds each failure's
error text (its lines from the first line naming an error, a failure or a death on; the whole copy where
none does).

What each copy cuts (the corpus keeps about 2,000 characters around the words searched): the engine's own
exception of club3090_32, club3090_58, lmcache_pr2552, mineruhtml25, strixhalo_pr66 and vllm29639 (their
tracebacks stop in a frame or before it), areal145 (the scheduler's exception), kaggletpulab7 and vllm32468
(all but their last line or two), vllmdgxspark3 (everything after the model's max length), lsglang7 (the
next rank's line), ray59778 and sparkvllmdocker267 (everything but NCCL's lines, or the engine config's
tail). The working copies stop inside their start-up or serving (no error, no warning).

Classes as in the other batches (``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without its change, ``c`` not named, ``d`` a wrong error, warning or claim).
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from argtrace.layers.log.signatures import match_line
from argtrace.layers.log.unknown_env import unknown_env
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

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs27"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
INFO12 = ("LG012", "info")
ERROR7 = ("LG007", "error")
ERROR3 = ("LG003", "error")
CUT = "the exception is not in the copy (cut before it)"
CUT_TB = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
ENGINE_FAILED = (
    "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
    "above it (during a step this excerpt does not show). Line: "
)
ENGINE_FIX = "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line"
FRAMES_FIX = (
    "Give argtrace the whole log, from the server's start, or the full traceback with its last line (the "
    "exception)."
)
WHOLE_LOG = (
    "Give argtrace the server's whole log, from its start (the terminal, `docker logs`, `kubectl logs`, the "
    "journal)."
)
FROM_START = "Give argtrace the log from the server's start (an older rotated file, the journal)."
MID_START = "begins mid-start-up"
SAMPLER = (
    "[vllm-sampler-warmup-oom] vLLM ran out of memory warming up the sampler at the configured batch size "
    "(during allocating the KV cache). Logged max_num_seqs=256. Line (x2): RuntimeError: CUDA out of memory "
    "occurred when warming up sampler with 256 dummy requests."
)
SAMPLER_FIX = "Lower --max-num-seqs or --gpu-memory-utilization"
OTHER_PROGRAMS = (
    "another program's variable with vLLM's prefix (a container image's or a launcher's own), which vLLM "
    "ignores; nothing shows it was set for vLLM."
)

CASES = [
    LogCase(
        "areal145_ray_generationserver_sglang_scheduler_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows (during serving). "
        "Its traceback is cut after its last frame (managers/scheduler.py, run_scheduler_process), before "
        "its exception line",
        "Read the traceback after this line",
        cause="timeout",
        change="--",
        missing=CUT
        + ": the scheduler's traceback stops in run_scheduler_process (the report's title: a timeout)",
    ),
    LogCase(
        "club3090_32_apiserver_pid1_traceback_otel_cut.log",
        "c",
        "c",
        (INFO12,),
        None,
        None,
        None,
        "has 19 line(s) holding 6 frame(s) of a vllm traceback (the last in make_async_mp_client)",
        FRAMES_FIX,
        cause="out of memory",
        change="--gpu-memory-utilization",
        missing=CUT + ": the API server's traceback stops in make_async_mp_client (the title: OOM on boot)",
    ),
    LogCase(
        "club3090_58_engine_dead_serving_enginecore_traceback_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "serving",
        "[vllm-engine-dead] vLLM's API server found its engine core process dead",
        "Read the first error the EngineCore or a Worker process printed above this line (its traceback's "
        "last line, after 'EngineCore encountered a fatal error.'): that is the cause; when there is none, "
        "the engine was killed without a trace (check `dmesg` for the OOM killer)",
        cause="Tried to allocate",
        change="--",
        missing=CUT + ": the engine's traceback stops in _process_engine_step (the title: torch's OOM)",
    ),
    LogCase(
        "kaggletpulab7_apiserver_tag_without_pid_phase_failed.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE_FAILED
        + "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
        ENGINE_FIX,
        cause="TPU",
        change="--",
        missing="the engine's own lines scrolled out of the console tail the report quotes",
    ),
    LogCase(
        "lmcache_pr2552_buildkite_apiserver_py313_traceback_cut.log",
        "c",
        "c",
        (INFO12,),
        None,
        None,
        None,
        "has 22 line(s) holding 5 frame(s) of a vllm traceback (the last in uvloop)",
        FRAMES_FIX,
        cause="exception",
        change="--",
        missing=CUT + ": the API server's traceback stops in uvloop's run_until_complete",
    ),
    LogCase(
        # an SGLang fork (Lsglang): the OOM line wrapped by a terminal and padded with blanks; the loader's
        # progress bar above it (100 %) is no step argtrace reads, so the step and its fix stay generic
        "lsglang7_tp_lk_moe_cuda_oom_padded_wrap.log",
        "b",
        "b",
        (ERROR3, INFO10),
        "sglang",
        "failed",
        "unknown",
        "[cuda-oom] The GPU ran out of memory (during a step this excerpt does not show). Line: Failed to "
        "initialize lk_moe: CUDA out of memory.",
        "Lower the memory fraction, the batch size (--max-running-requests / --max-num-seqs) or "
        "--chunked-prefill-size",
        cause="out of memory",
        change="--tp",
        missing="the step (the experts' set-up after 'Multi-thread loading shards: 100%') is not read: the "
        "fix is the generic one, not the weights step's (--tp, a quantized checkpoint)",
    ),
    LogCase(
        "mineruhtml25_chinese_prefix_enginecore_dp0_executor_cut.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "stops inside a traceback (from line 4)",
        CUT_TB,
        cause="GPU",
        change="CUDA_VISIBLE_DEVICES",
        missing=CUT
        + ": the engine's traceback stops in EngineCore.__init__ (the title: the GPU id not taken)",
    ),
    LogCase(
        "ray59778_rayworkerwrapper_nccl_info_interleaved.log",
        "c",
        "c",
        (INFO12,),
        None,
        None,
        None,
        "has 15 line(s), 11 of them logged by vLLM's own processes (`RayWorkerWrapper`)",
        WHOLE_LOG,
        cause="NCCL",
        change="--",
        missing="the copy holds NCCL's set-up lines of the Ray workers only, nothing of the failure",
    ),
    LogCase(
        "sparkvllmdocker267_engine_config_dump_wrapped_cut.log",
        "c",
        "c",
        (INFO12,),
        None,
        None,
        None,
        "has 3 line(s) holding part of a vllm argument dump (15 of its settings as name=value)",
        "Give argtrace the whole log, from the server's start.",
        cause="engine core",
        change="--",
        missing="the copy holds the engine config line's tail only",
    ),
    LogCase(
        "strixhalo_pr66_enginecore_pid_aiter_failed_to_start_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE_FAILED + "EngineCore failed to start.",
        ENGINE_FIX,
        cause="UMA",
        change="--",
        missing=CUT + ": the copy stops at 'Trac' (the PR: ROCm's unified memory read as too little VRAM)",
    ),
    LogCase(
        # was "[cuda-oom] The GPU ran out of memory (during argument validation)": nothing before the lines
        # showed a step, and the catch-all entry won over vLLM's own message naming the sampler warm-up
        "vllm19445_sampler_warmup_oom_wrapped_no_prefix.log",
        "a",
        "a",
        (ERROR3, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        SAMPLER,
        SAMPLER_FIX,
        cause="sampler",
        change="--max-num-seqs",
    ),
    LogCase(
        "vllm29639_apiserver_wait_for_engine_startup_tail.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE_FAILED
        + "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
        ENGINE_FIX,
        cause="the root cause",
        change="--",
        missing=CUT + ": only the API server's last frames and its RuntimeError",
    ),
    LogCase(
        "vllm32468_offline_engine_core_died_at_script_end.log",
        "c",
        "c",
        (INFO12,),
        None,
        None,
        None,
        "among them vLLM's own message `Engine core proc EngineCore_DP0 died unexpectedly, shutting down "
        "client.`",
        "Read that engine core's own last lines above this one (a native error: CUDA, NCCL, a segfault) and "
        "check `dmesg` (or the container's exit reason) for the OOM killer, which writes nothing to this "
        "log; give argtrace the server's whole log, from its start.",
        cause="script",
        change="--",
        missing="one line: that it comes at an offline script's end (the LLM object not shut down) is in the "
        "report's words only",
    ),
    LogCase(
        # was d: LG006 **warning** "Remove the variable" on VLLM_VERSION, which no vLLM release reads and no
        # name it reads is spelled like (the image's own; VLLM_FLASH_ATTN_SRC_DIR is vLLM's build's)
        "vllmdgxspark3_docker_exec_tail_banner_ray_cut.log",
        "d",
        "c",
        (("LG006", "info"), ("LG006", "info"), ("LG010", "warning")),
        "vllm",
        "incomplete",
        "weights",
        "Logged name=VLLM_VERSION. No vLLM release argtrace knows (0.6.6.post1-0.33.0) reads VLLM_VERSION, "
        "nor a name spelled like it: " + OTHER_PROGRAMS,
        "Nothing for vLLM; unset VLLM_VERSION in the server's environment only to silence the line.",
        cause="error",
        change="--",
        missing="the copy stops at 'Using max model len 8192', before the errors the report's title names",
        version="0.17.1+a03ca76a.nv26.03.46967107",
    ),
    LogCase(
        "vllmomni_pr1842_worker_stage_prefix_free_memory.log",
        "a",
        "a",
        (ERROR3, INFO10),
        "vllm",
        "failed",
        "weights",
        "[vllm-free-memory-below-utilization] Another process holds GPU memory: the free memory at start is "
        "below gpu_memory_utilization x total (during loading the weights). Logged free=111.99. Logged "
        "total=139.8. Logged gpu_memory_utilization=0.95.",
        "Stop the other process on that GPU (nvidia-smi), choose another GPU, or lower "
        "--gpu-memory-utilization",
        cause="free memory",
        change="--gpu-memory-utilization",
    ),
]

# Launches that started; each copy stops inside its start-up or its serving: notes only.
OK_LOGS = {
    "aiservices_pr939_cpu_apiserver_stats_health.log": ((INFO12,), "end in a running server's serving lines"),
    # was LG012 **warning** "none from an SGLang or vLLM server ... Point argtrace at the file the server
    # writes": kvcached logs from inside SGLang's processes, in its own format
    "kvcached_pr459_kvcached_lines_before_sglang.log": (
        (INFO12,),
        "has 7 line(s), 4 of them kvcached's (`[kvcached][INFO][2026-09-17 17:34:46][patches.py:131] Using "
        "kvcached process-local KV capacity for SGLang",
    ),
    "sglang_pr17499_musa_dp_tp_ignore_import_error.log": ((INFO10,), MID_START),
    "vllm_pr21443_vllmworker_rank0_untagged_engine_lines.log": ((INFO10, INFO10), MID_START),
    "vllm_pr34116_s390x_fp16_routes.log": ((INFO12,), "15 of them a running server's serving lines"),
}
# before: kvcached PR#459's one warning
OK_ALARMS_BEFORE = {"kvcached_pr459_kvcached_lines_before_sglang.log": 1}


def test_the_batch() -> None:
    assert len(CASES) == 15
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([2, 1, 11, 1], [2, 1, 12, 0])
    assert [sum(WHY_CLASSES[0]), sum(WHY_CLASSES[1])] == [15, 15]
    assert {p.stem for p in (LOGS / "why").glob("*.txt")} == {Path(c.file).stem for c in CASES}


# --- `why` on each failure's error text -----------------------------------------------------------------

# name -> (confidence, the first site's function or None, the signatures' ids in order, its fix holds)
WRAPPED = "the exception at the end of that traceback is the cause"
AFTER = "the text after the message is the cause"
LOGGED_BEFORE = "the cause is logged before it"
WHY = {
    "areal145_ray_generationserver_sglang_scheduler_cut": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
        AFTER,
    ),
    "club3090_32_apiserver_pid1_traceback_otel_cut": ("none", None, [], None),
    "club3090_58_engine_dead_serving_enginecore_traceback_cut": (
        "weak",
        "_log_task_completion",
        ["vllm-engine-dead"],
        AFTER,
    ),
    "kaggletpulab7_apiserver_tag_without_pid_phase_failed": (
        "strong",
        "wait_for_engine_startup",
        ["vllm-engine-core-failed"],
        LOGGED_BEFORE,
    ),
    "lmcache_pr2552_buildkite_apiserver_py313_traceback_cut": ("none", None, [], None),
    # b: the OOM named, each step's fix listed (the text shows no step); the site a candidate only (weak)
    "lsglang7_tp_lk_moe_cuda_oom_padded_wrap": (
        "weak",
        "_start_scheduler_processes",
        ["cuda-oom"],
        "make the condition false",
    ),
    "mineruhtml25_chinese_prefix_enginecore_dp0_executor_cut": ("none", None, [], None),
    "ray59778_rayworkerwrapper_nccl_info_interleaved": ("none", None, [], None),
    "sparkvllmdocker267_engine_config_dump_wrapped_cut": ("none", None, [], None),
    "strixhalo_pr66_enginecore_pid_aiter_failed_to_start_cut": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-failed"],
        WRAPPED,
    ),
    "vllm19445_sampler_warmup_oom_wrapped_no_prefix": (
        "strong",
        "GPUModelRunner._dummy_sampler_run",
        ["cuda-oom", "vllm-sampler-warmup-oom"],
        "change --max-num-seqs, --gpu-memory-utilization",
    ),
    "vllm29639_apiserver_wait_for_engine_startup_tail": (
        "strong",
        "wait_for_engine_startup",
        ["vllm-engine-core-failed"],
        LOGGED_BEFORE,
    ),
    "vllm32468_offline_engine_core_died_at_script_end": (
        "strong",
        "MPClient.start_engine_core_monitor.monitor_engine_cores",
        ["vllm-engine-core-proc-died"],
        "avoid the call path that reaches it",
    ),
    # the copy's one message of note: the unknown variable, read against the release index
    "vllmdgxspark3_docker_exec_tail_banner_ray_cut": (
        "strong",
        "validate_environ",
        ["vllm-unknown-env"],
        "no vllm release argtrace knows reads VLLM_VERSION",
    ),
    "vllmomni_pr1842_worker_stage_prefix_free_memory": (
        "strong",
        "request_memory",
        ["vllm-free-memory-below-utilization"],
        "lower --gpu-memory-utilization to at most 0.80",
    ),
}
# before, after (docs/real_cases.md): a the sampler warm-up and the free-memory check; b lsglang#7's OOM
WHY_CLASSES = ([2, 1, 12, 0], [2, 1, 12, 0])


globals().update(log_batch_tests(LOGS, CASES, OK_LOGS, WHY, sources=20))


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------

SAMPLER_LINE = "RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy requests."
WATCHDOG_LINE = (
    "what(): [PG ID 0 PG GUID 0(default_pg) Rank 5] Process group watchdog thread terminated with exception: "
    "[Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1495581, OpType=_ALLGATHER_BASE, "
    "NumelIn=1, NumelOut=8, Timeout(ms)=1800000) ran for 1800036 milliseconds before timing out."
)


@pytest.mark.parametrize(
    ("text", "stage", "expected"),
    [
        # where nothing before the line shows a step ("unknown"; "validation": no args line yet), vLLM's own
        # message naming the sampler warm-up wins over the catch-all cuda-oom
        (SAMPLER_LINE, "unknown", "vllm-sampler-warmup-oom"),
        (SAMPLER_LINE, "validation", "vllm-sampler-warmup-oom"),
        ("torch.OutOfMemoryError: CUDA out of memory.", "validation", "cuda-oom"),
        # at "validation" a catch-all gives way to a framework's own entry only, not to another catch-all's
        # kind (torch's NCCL watchdog is not the generic NCCL set-up error: simplerl#25, logs20)
        (WATCHDOG_LINE, "validation", "nccl-watchdog-collective-timeout"),
    ],
)
def test_a_frameworks_own_message_names_the_step_a_catch_all_does_not(
    text: str, stage: str, expected: str
) -> None:
    hit = match_line(text, framework=None, stage=stage)
    assert hit is not None and hit[0].id == expected


@pytest.mark.parametrize(
    "lines",
    [
        # vllm#19445's order: vLLM's message, torch's OutOfMemoryError below it
        [SAMPLER_LINE, "", "torch.OutOfMemoryError: CUDA out of memory."],
        # the other way round: the closer entry takes the catch-all's place
        ["torch.OutOfMemoryError: CUDA out of memory.", SAMPLER_LINE],
    ],
    ids=["vllm_first", "torch_first"],
)
def test_one_oom_is_one_finding_under_the_closer_entry(tmp_path: Path, lines: list[str]) -> None:
    report = log_report(written_log(tmp_path, "\n".join(lines) + "\n"))
    first = report["findings"][0]
    assert [f["code"] for f in report["findings"]] == ["LG003", "LG010"]
    assert first["message"].startswith("[vllm-sampler-warmup-oom]")
    assert "Line (x2): " in first["message"]
    assert first["fix"] == SAMPLER_FIX


@pytest.mark.parametrize(
    ("name", "severity", "said"),
    [
        # read by releases before 0.12: a setting made for vLLM that a later release drops
        ("VLLM_USE_V1", "warning", " vLLM 0.6.6.post1-0.11.0 read VLLM_USE_V1: a setting made for vLLM"),
        # a near-miss of a name vLLM reads: a misspelling
        ("VLLM_LOGGING_LEVL", "warning", "one reads VLLM_LOGGING_LEVEL: a misspelling."),
        # spelled as one of vLLM's flags: meant for vLLM
        ("VLLM_MAX_MODEL_LEN", "warning", "vLLM takes --max-model-len as a flag"),
        # none of these: another program's (vllm-dgx-spark#3's image; check's PR001 says info too)
        ("VLLM_VERSION", "info", OTHER_PROGRAMS),
        ("VLLM_FLASH_ATTN_SRC_DIR", "info", OTHER_PROGRAMS),
        ("VLLM_MY_TEAM_FLAG", "info", OTHER_PROGRAMS),
    ],
)
def test_an_unknown_vllm_variable_is_read_against_the_release_index(
    name: str, severity: str, said: str
) -> None:
    kind = unknown_env(name)
    assert kind is not None
    assert (kind.severity, said in kind.sentence) == (severity, True)


def test_each_unknown_variable_is_its_own_finding(tmp_path: Path) -> None:
    text = "".join(
        f"(APIServer pid=1868) WARNING 04-27 14:16:41 [envs.py:1710] Unknown vLLM environment variable "
        f"detected: {name}\n"
        for name in ("VLLM_VERSION", "VLLM_USE_V1", "VLLM_VERSION")
    )
    report = log_report(written_log(tmp_path, text))
    found = [
        (f["code"], f["severity"], f["message"].split("Logged ")[1].split(".")[0]) for f in report["findings"]
    ]
    assert found[:2] == [("LG006", "info", "name=VLLM_VERSION"), ("LG006", "warning", "name=VLLM_USE_V1")]
    assert "Line (x2): " in report["findings"][0]["message"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # kvcached/utils.py get_kvcached_logger's format
        (
            "[kvcached][INFO][2026-09-17 17:34:46][patches.py:131] Using kvcached process-local KV capacity\n"
            "Init C++ PageAllocator: num_layers=24\n",
            "1 of them kvcached's",
        ),
        # lmcache/logging.py build_format's, coloured as LMCache logs it on every stream
        (
            "\x1b[32;20m[2025-08-14 10:00:00,123] LMCache INFO:\x1b[0m Creating LMCacheEngine "
            "\x1b[3m(cache_engine.py:123:lmcache.v1.cache_engine)\x1b[0m\n"
            "[2025-08-14 10:00:01,456] LMCache WARNING: No local cache (x.py:1:y)\n",
            "2 of them LMCache's",
        ),
    ],
    ids=["kvcached", "lmcache"],
)
def test_a_kv_cache_librarys_lines_are_the_servers_file(tmp_path: Path, text: str, said: str) -> None:
    report = log_report(written_log(tmp_path, text))
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [INFO12]
    assert said in report["findings"][0]["message"]


def test_other_text_is_still_not_the_servers_file(tmp_path: Path) -> None:
    report = log_report(written_log(tmp_path, "[kvcached] a note without the logger's head\nhello\n"))
    first = report["findings"][0]
    assert (first["code"], first["severity"]) == ("LG012", "warning")
    assert "none from an SGLang or vLLM server" in first["message"]


# --- the fast paths read the batch as the slow one ----------------------------------------------------------


def test_a_gzipped_copy_reads_alike(tmp_path: Path) -> None:
    path = tmp_path / "server.log.gz"
    path.write_bytes(gzip.compress((LOGS / CASES[10].file).read_bytes()))
    first = log_report(path)["findings"][0]
    assert (first["code"], first["severity"], first["fix"]) == (*ERROR3, SAMPLER_FIX)
