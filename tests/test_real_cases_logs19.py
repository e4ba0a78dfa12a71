"""Real server logs, session 19's batch (docs/real_cases.md, "Logs, 8th batch"): 15 failures, 5 working.

Each ``*.log`` under ``tests/data/real_cases/logs19/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy of the report gives it: its first line is a ``# source:`` comment with the
URL and the date, worded so that no log pattern reads it. The shapes the earlier batches lacked: SGLang's PD
disaggregation (a decode server's and a prefill server's KV transfer failures, Mooncake's own glog lines, the
router's Rust log beside them, a router's ``kubectl logs``), Ray (a RayWorkerWrapper's native frames and the
raylet's report that the worker died, a worker's faulthandler frames behind ``(RayWorkerWrapper pid=N,
ip=..)``, the raylet's report inside an engine's lines, an RL framework's Ray actor wrapping vLLM's engine),
vLLM's DP engines' tracebacks interleaved line by line, vllm-ascend's two nodes (the DP1 workers' lines before
DP0's failure), vLLM's launcher reporting that ``ApiServer_0`` died, NIXL's KeyError in a TP worker (2026), a
log quoted in markdown whose colour codes a viewer printed as the word ``ESC``. ``ok/`` holds the working
launches (a router whose PD workers are healthy, an API server's routes, a serving server's health checks, a
ROCm engine loading, vLLM-Omni's diffusion server). ``why/`` holds each failure's error text: its lines from
the first error line on (the router's ``kubectl logs`` holds none: 14 texts).

What each copy cuts (the corpus keeps about 2,000 characters of a report around the words searched):
sglang10560 keeps the decode server's failed transfers and the router's first line, not the prefill side's
``local protection error``; sglang9266 the router's stream error and the prefill's aborted bootstraps;
sglang7118 and sglang7338 Mooncake's first error line and the failed transfer; aibrix1351 stops before the
router's ``failed to select worker pair``; skyrl284 before the engine's EADDRINUSE; vllm25043, vllmascend12891
and trl3310 inside the engines' frames; vllm42314 before ApiServer_0's own traceback; vllm43523 is two frames;
vllm_pr41863 keeps NIXL's KeyError but not the handshake failure before it; vllm15687 is a faulthandler dump
without its "Fatal Python error" line. None holds the start-up and the failure both: the corpus's excerpts.

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

from argtrace.commands.why_text import _carries_caught
from argtrace.layers.log.lines import _decode
from argtrace.layers.log.prefilter import gnu_grep
from argtrace.layers.log.signatures import load_catalog
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

LOGS = Path(__file__).resolve().parent / "data" / "real_cases" / "logs19"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
ERROR7 = ("LG007", "error")
ENGINE = (
    "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
    "above it (during a step this excerpt does not show)."
)
ENGINE_FIX = "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line"
CUT_TB_FIX = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
PD_FAILED = (
    "[sglang-pd-kv-transfer-failed] SGLang's PD disaggregation could not move a request's KV cache between "
    "the prefill and the decode server: the request is aborted with this reason while both servers keep "
    "serving."
)
PD_FIX = (
    "Read the first transfer error of the other side and of the transfer backend (Mooncake's `E... "
    "transfer_engine`/`tcp_transport`/`rdma` lines, NIXL's) on both servers: check "
    "--disaggregation-ib-device "
    "names the RDMA devices each node has, that the nodes reach each other on the bootstrap port and the "
    "backend's ports, and that prefill and decode run compatible settings (the same model and KV dtype; "
    "tensor-parallel sizes the backend supports)"
)
RAY_DIED = (
    "[ray-worker-died] Ray's raylet saw one of its worker processes (a vLLM RayWorkerWrapper, an engine "
    "actor) "
    "end without a clean exit (exit type SYSTEM_ERROR: killed by the kernel's OOM killer, `ray stop "
    "--force`, "
    "or a crash such as SIGSEGV)"
)
RAY_FIX = (
    "Read the dead worker's own last lines (its `(RayWorkerWrapper pid=N, ip=...)` lines above, or "
    "/tmp/ray/session_latest/logs/worker-*-<Worker ID>*.err on the node with that IP) and that node's kernel "
    "log (`dmesg -T | grep -i -e oom -e killed -e segfault`): an OOM kill needs less host memory per worker, "
    "a segfault is the native library it names"
)
WHOLE_LOG = (
    "Give argtrace the server's whole log, from its start (the terminal, `docker logs`, `kubectl logs`, "
    "the journal)."
)
CUT = "the exception is not in the copy (cut before it)"


CASES = [
    LogCase(
        # was LG010 note alone: the decode server's failed KV transfers held no signature
        "sglang10560_pd_decode_router.log",
        "c",
        "b",
        (("LG014", "warning"), INFO10),
        "sglang",
        "incomplete",
        "unknown",
        PD_FAILED,
        PD_FIX,
        cause="local protection error",
        change="--",
        missing="the prefill side's Mooncake `local protection error` (the RDMA memory registration) is not "
        "in "
        "the copy: the warning points at it, no setting is named",
    ),
    LogCase(
        # was LG010 note alone; the aborts are the router's, so a note
        "sglang9266_pd_router_prefill_abort.log",
        "c",
        "c",
        (("LG014", "info"), INFO10),
        "sglang",
        "incomplete",
        "unknown",
        "[sglang-pd-kv-transfer-aborted] A request was aborted (the client went away, the router or a "
        "timeout "
        "cancelled it)",
        "Nothing to change when requests are cancelled on purpose; when they are not, read why the client or "
        "the router gave up (the router's own log: a request timeout, a stream error from the decode server)",
        cause="idle",
        change="--",
        missing="the router's pooled connection to an idle decode server (`error decoding response body`) is "
        "a router bug, no setting; argtrace does not read the router's own error lines",
    ),
    LogCase(
        # was LG012 **warning** "none from an SGLang or vLLM server": Mooncake's glog line was no server line
        "sglang7118_pd_prefill_mooncake_tcp.log",
        "d",
        "b",
        (("LG014", "warning"), INFO10),
        None,
        "incomplete",
        "unknown",
        "[mooncake-transfer-failed] Mooncake's transfer engine, which SGLang's (and vLLM's "
        "MooncakeConnector's) "
        "PD disaggregation moves KV caches with, failed to send or receive a KV chunk to the other server",
        "Check the transport between the two servers: with RDMA, that --disaggregation-ib-device names "
        "devices "
        "present on each node and their memory registration works; with TCP (MC_FORCE_TCP or no RDMA "
        "device), "
        "that each node reaches the other's address (not a public or NATed one) on Mooncake's ports",
        cause="public",
        change="--",
        missing="the report's public address and `Bad address` (EFAULT) on a TCP transfer: named as a check, "
        "not as the cause",
    ),
    LogCase(
        # was LG012 **warning** "none from an SGLang or vLLM server"
        "sglang7338_pd_prefill_log_mooncake.log",
        "d",
        "b",
        (("LG014", "warning"), INFO10),
        "sglang",
        "incomplete",
        "unknown",
        PD_FAILED,
        PD_FIX,
        cause="mooncake error on the prefill",
        change="--",
        missing="Mooncake's error on the prefill side is cut after its prefix (`tcp_transport.cpp:136]`)",
    ),
    LogCase(
        "aibrix1351_sglang_router_kubectl_pd.log",
        "c",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "has 11 line(s) of SGLang's router",
        "Give argtrace the server's log: Ray Serve LLM's replica log (Ray's session logs, "
        "`serve/replica_*.log`, "
        "or the `(ServeReplica:...)` lines from the deployment's start), or each worker's log behind the "
        "router.",
        cause="worker pair",
        change="--",
        missing="the router's `failed to select worker pair` is cut from the copy; argtrace reads no router "
        "error",
    ),
    LogCase(
        # was LG012 note claiming "none that shows ... an error": the raylet's report held no signature
        "vllm13535_ray_worker_nccl_watchdog.log",
        "d",
        "b",
        (ERROR7, INFO10),
        None,
        "failed",
        "unknown",
        # logs20: the worker's native frames before the raylet's report are torch's NCCL watchdog's
        "[ray-worker-died] torch's NCCL watchdog took the worker down: its last lines (line 3) are the "
        "watchdog's native frames (ProcessGroupNCCL::ncclCommWatchdog)",
        "Find the rank that did not join the collective: the other ranks' and nodes' lines before this time "
        "(a traceback, an OOM kill, a stuck step); with a first collective that never completes, check the "
        "network between the nodes (NCCL_SOCKET_IFNAME, NCCL_DEBUG=INFO); when a rank is only slow (a long "
        "weight sync, a rollout), raise the process group's timeout; TORCH_NCCL_TRACE_BUFFER_SIZE records "
        "the collective that hung",
        cause="ncclCommWatchdog",
        change="--",
        missing="the watchdog is named as the death's cause (logs20), but the collective that timed out and "
        "the rank that did not join it are not in the copy",
    ),
    LogCase(
        "vllm15687_ray_worker_ip_pynccl.log",
        "c",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "8 of them logged by vLLM's own processes (`RayWorkerWrapper`)",
        WHOLE_LOG,
        cause="pynccl",
        change="--",
        missing="a faulthandler dump without its `Fatal Python error` line (frames without `Traceback` nor "
        "an "
        "exception)",
    ),
    LogCase(
        # was LG007 engine-core-failed "the cause is the first error above it", the raylet's line unread
        "vllm_pr38529_raylet_in_enginecore.log",
        "c",
        "b",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        RAY_DIED,
        RAY_FIX,
        cause="vgpu",
        change="--",
        missing="a segfault of the worker on a vGPU before NCCL's init: the worker's death and the segfault "
        "check are named, not the vGPU",
    ),
    LogCase(
        "skyrl284_ray_actor_enginecore_eaddrinuse.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
        "above it (during a step this excerpt does not show). Line (x2): RuntimeError: Engine core",
        ENGINE_FIX,
        cause="EADDRINUSE",
        change="--",
        missing=CUT + ": the engine's EADDRINUSE is above the copy",
    ),
    LogCase(
        # the colour codes a viewer printed as `ESC[0;0m` are taken off (the process tag read); cut
        "vllm25043_pd_p2p_prefill_esc_quoted.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        # the frames right under "EngineCore failed to start." name its stage (was "a step this excerpt does
        # not show"): the copy's traceback reaches _initialize_kv_caches, where it is cut (said since logs22)
        "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
        "above it (during allocating the KV cache). Its traceback is cut after its last frame "
        "(engine/core.py, _initialize_kv_caches), before its exception line: the error that names the "
        "cause is not in the copy. Line: EngineCore failed to start.",
        ENGINE_FIX,
        cause="bind_connector_metadata",
        change="--",
        missing=CUT + " (the P2P NCCL connector's metadata on the prefill engine, a framework bug)",
    ),
    LogCase(
        "vllmascend12891_two_nodes_dp_workers.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE,
        ENGINE_FIX,
        cause="GLM",
        change="--",
        missing=CUT + " (DP0's frames on the first node, DP1's workers still loading on the second)",
    ),
    LogCase(
        # was LG011 **error** "died during argument validation": the launcher's report that ApiServer_0 died
        "vllm42314_apiserver0_died_dp_workers.log",
        "d",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-api-server-proc-died] vLLM's launcher, which watches the API server and engine processes it "
        "started (wait_for_completion_or_failure), saw one of them exit with an error",
        "Read the traceback the dead process printed above this line (its lines carry its name, e.g. "
        "`(ApiServer_0 pid=...)`): its last line is the cause",
        cause="ApiServer_0's",
        change="--",
        missing="ApiServer_0's own traceback is not in the copy",
    ),
    LogCase(
        "vllm43523_nixl_keyerror_decode_frames.log",
        "c",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "holding 2 frame(s) of a vllm traceback (the last in kv_connector_no_forward)",
        "Give argtrace the whole log, from the server's start, or the full traceback with its last line (the "
        "exception).",
        cause="asymmetric",
        change="--",
        missing="two frames; the KeyError and the asymmetric TP sizes are in the report's prose",
    ),
    LogCase(
        "vllm_pr41863_nixl_keyerror_worker_tp0.log",
        "c",
        "c",
        (("LG011", "error"), INFO10),
        "vllm",
        "failed",
        "unknown",
        "Launch 1 died during a step this excerpt does not show with: KeyError: "
        "'b6b76ae8-5a6c-4104-bb1d-4966a7cb9e8c'.",
        "Read the exception and the traceback shown; if it is a common failure, add a signature to "
        "argtrace/data/error_signatures.json.",
        cause="handshake",
        change="--",
        missing="a bare KeyError of NIXL's remote block sizes after a failed handshake (a framework bug, "
        "fixed "
        "by the PR); the handshake's own failure is above the copy",
    ),
    LogCase(
        # was LG010 "stops inside a traceback": vLLM 0.8's "EngineCore hit an exception" is read since logs25
        "trl3310_dp_enginecores_interleaved.log",
        "c",
        "c",
        (("LG007", "error"), INFO10),
        "vllm",
        "failed",
        "distributed",
        "[vllm-engine-core-hit-exception] vLLM's V1 engine core process raised (while it started, or later "
        "in its busy loop) and logs the traceback with this line; it ends in the engine's exception, and the "
        "API server's errors after it only follow (during initialising the distributed (NCCL) group). Its "
        "traceback is cut after its last frame (executor/uniproc_executor.py, collective_rpc)",
        "Read the traceback this line begins: its last line is the engine's exception",
        cause="NCCL",
        change="--",
        missing=CUT + " (eight DP engines' tracebacks interleaved, each cut in PyNcclCommunicator)",
    ),
]

# What the first screen (80 columns) opens with: its first finding's headline.
LEADS = {
    "sglang10560_pd_decode_router.log": "WARNING LG014 line 2 [sglang-pd-kv-transfer-failed]",
    "sglang9266_pd_router_prefill_abort.log": "INFO LG014 line 11 [sglang-pd-kv-transfer-aborted]",
    "sglang7118_pd_prefill_mooncake_tcp.log": "WARNING LG014 line 3 [mooncake-transfer-failed]",
    "sglang7338_pd_prefill_log_mooncake.log": "WARNING LG014 line 3 [sglang-pd-kv-transfer-failed]",
    "aibrix1351_sglang_router_kubectl_pd.log": "INFO LG012 tests/data/real_cases/logs19/aibrix1351",
    "vllm13535_ray_worker_nccl_watchdog.log": "ERROR LG007 line 10 [ray-worker-died]",
    "vllm15687_ray_worker_ip_pynccl.log": "INFO LG012 tests/data/real_cases/logs19/vllm15687",
    "vllm_pr38529_raylet_in_enginecore.log": "ERROR LG007 line 2 [ray-worker-died]",
    "skyrl284_ray_actor_enginecore_eaddrinuse.log": "ERROR LG007 line 2 [vllm-engine-core-failed]",
    "vllm25043_pd_p2p_prefill_esc_quoted.log": "ERROR LG007 line 2 [vllm-engine-core-failed]",
    "vllmascend12891_two_nodes_dp_workers.log": "ERROR LG007 line 8 [vllm-engine-core-failed]",
    "vllm42314_apiserver0_died_dp_workers.log": "ERROR LG007 line 9 [vllm-api-server-proc-died]",
    "vllm43523_nixl_keyerror_decode_frames.log": "INFO LG012 tests/data/real_cases/logs19/vllm43523",
    "vllm_pr41863_nixl_keyerror_worker_tp0.log": "ERROR LG011 line 6 Launch 1 died during a step",
    "trl3310_dp_enginecores_interleaved.log": "ERROR LG007 line 2 [vllm-engine-core-hit-exception]",
}
# The failure the copy shows leads the first screen (a KV transfer that failed, a Ray worker that died): the
# five class-b cases; before this batch's changes none did (a note, a wrong claim or a wrapper led).
LEADS_WITH_THE_FAILURE = {
    "sglang10560_pd_decode_router.log",
    "sglang7118_pd_prefill_mooncake_tcp.log",
    "sglang7338_pd_prefill_log_mooncake.log",
    "vllm13535_ray_worker_nccl_watchdog.log",
    "vllm_pr38529_raylet_in_enginecore.log",
}

# Launches that started (or were starting when the copy ends): no error, no warning; the notes expected.
OK_LOGS = {
    "strixhalo5_enginecore_loading_rocm.log": ((INFO10, INFO10), "incomplete", "cuda_graph"),
    "vllm25943_apiserver_routes_started.log": ((), "incomplete", "validation"),
    # was "stops after weights_loaded ... before kv_cache_allocated" with a fix to relaunch: vLLM-Omni's
    # "Starting vLLM Diffusion API server on" is its server's start
    "vllmomni366_diffusion_api_started.log": ((INFO10,), "ready", None),
}
# No launch in the file: a router's lines, a serving server's health checks (a note each, no alarm).
NO_LAUNCH = {
    "sglang8557_router_pd_workers_healthy.log": "6 line(s) of SGLang's router",
    "vllm16259_serving_health_checks.log": "16 of them a running server's serving lines",
}


def test_the_batch() -> None:
    assert len(CASES) == 15
    assert set(LEADS) == {c.file for c in CASES}
    assert {c.file for c in CASES} | {f"ok/{k}" for k in [*OK_LOGS, *NO_LAUNCH]} == log_files(LOGS)
    assert class_counts(CASES) == ([0, 0, 11, 4], [0, 5, 10, 0])
    assert {c.file for c in CASES if c.after == "b"} == LEADS_WITH_THE_FAILURE
    assert [sum(WHY_CLASSES[0]), sum(WHY_CLASSES[1])] == [14, 14]
    assert {p.stem for p in (LOGS / "why").glob("*.txt")} == {
        Path(c.file).stem for c in CASES if c.file != "aibrix1351_sglang_router_kubectl_pd.log"
    }


def test_every_log_has_its_source_in_a_header_no_pattern_reads() -> None:
    urls = log_sources(LOGS)
    assert len(set(urls)) == len(urls) == 20


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_what_each_log_gives(case: LogCase) -> None:
    report = recorded_log_report(LOGS / case.file)
    assert_what_the_log_gives(report, case)
    # no "none from a server" warning, no "argument validation" claim on a copy past the configuration line
    assert not any(f["code"] == "LG012" and f["severity"] == "warning" for f in report["findings"])
    assert not any("argument validation" in f["message"] for f in report["findings"])


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_the_first_screen_leads_with(case: LogCase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = run_cli(["log", f"tests/data/real_cases/logs19/{case.file}"], cwd=LOGS.parents[3])
    screen = result.stdout.splitlines()[:24]
    assert screen[2].startswith(LEADS[case.file]), screen[:4]


@pytest.mark.parametrize("case", not_class_a(CASES))
def test_the_first_screen_names_the_cause_and_the_change(case: LogCase) -> None:
    assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


@pytest.mark.parametrize("name", sorted(OK_LOGS))
def test_working_launches_give_no_alarm(name: str) -> None:
    assert_working_launch(recorded_log_report(LOGS / "ok" / name), OK_LOGS[name])


@pytest.mark.parametrize("name", sorted(NO_LAUNCH))
def test_a_router_or_a_serving_excerpt_is_a_note(name: str) -> None:
    report = recorded_log_report(LOGS / "ok" / name)
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG012", "info")]
    assert NO_LAUNCH[name] in report["findings"][0]["message"]
    assert alarms(report) == []


# --- `why` on each failure's error text -----------------------------------------------------------------

# (confidence, first site's function or None, what the first screen's opening says)
WHY = {
    # the site logs the KV transfer's exception it caught: the exception's signature comes first
    "sglang10560_pd_decode_router": (
        "strong",
        "DecodeTransferQueue.pop_transferred",
        "log signature sglang-pd-kv-transfer-failed (LG014)",
    ),
    "sglang7338_pd_prefill_log_mooncake": (
        "strong",
        "DecodeTransferQueue.pop_transferred",
        "log signature sglang-pd-kv-transfer-failed (LG014)",
    ),
    "sglang7118_pd_prefill_mooncake_tcp": (
        "strong",
        "SchedulerDisaggregationPrefillMixin.handle_inflight_transfer_failure",
        "log signature sglang-pd-kv-transfer-failed (LG014)",
    ),
    "sglang9266_pd_router_prefill_abort": (
        "strong",
        "PrefillBootstrapQueue.pop_bootstrapped",
        "log signature sglang-pd-kv-transfer-aborted (LG014)",
    ),
    # no raise site: Ray's message is the raylet's (C++); its signature follows
    "vllm13535_ray_worker_nccl_watchdog": (None, None, "log signature ray-worker-died (LG007)"),
    # the engine's "EngineCore failed to start." reports the failure the raylet's line caused: that first
    "vllm_pr38529_raylet_in_enginecore": (
        "strong",
        "EngineCoreProc.run_engine_core",
        "log signature ray-worker-died (LG007)",
    ),
    "vllm42314_apiserver0_died_dp_workers": (
        "strong",
        "wait_for_completion_or_failure",
        "Process {proc.name} (PID: {proc.pid}) died with exit code",
    ),
}
# before, after (docs/real_cases.md): b the PD transfers (sglang10560, sglang7338, sglang7118) and the Ray
# worker's death (vllm13535, vllm_pr38529); c the other 9 (cut, or the abort's cause is the router's)
WHY_CLASSES = ([0, 0, 14, 0], [0, 5, 9, 0])


@pytest.mark.parametrize("name", sorted(WHY))
def test_why_on_the_error_text(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    confidence, function, opening = WHY[name]
    section = recorded_why(LOGS / "why" / f"{name}.txt")
    assert section["confidence"] == (confidence or "none")
    assert (section["matches"] or [{}])[0].get("function") == function
    text = (LOGS / "why" / f"{name}.txt").read_text(encoding="utf-8").split("\n", 1)[1]
    monkeypatch.setenv("COLUMNS", "80")
    screen = " ".join(run_cli(["why", text]).stdout.splitlines()[1:6])
    assert opening in screen


def test_why_puts_a_caught_exceptions_signature_before_the_site_that_logs_it() -> None:
    logs = {"message": "Decode transfer failed for request rank={self.tp_rank}[ with exception {e}]"}
    cause = {"id": "sglang-pd-kv-transfer-failed", "wrapper": False}
    assert _carries_caught(logs, [cause])
    # a site that reads a setting keeps its place, and so does one whose message prints no caught exception
    assert not _carries_caught({**logs, "settings": ["tp_size"]}, [cause])
    assert not _carries_caught({"message": "Decode transfer failed for request"}, [cause])
    # a wrapper's signature alone says nothing of the caught error
    assert not _carries_caught(logs, [{"id": "vllm-engine-core-failed", "wrapper": True}])


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------

_DECODE_LINE = (
    "[2026-01-02 03:04:05 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='a1' "
    "decode_req.req.bootstrap_room=7 with exception KVTransferError(bootstrap_room=7): {}\n"
)


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        (
            "Failed to get kvcache from prefill instance, it might be dead",
            ("sglang-pd-kv-transfer-failed", "warning"),
        ),
        ("Failed due to an unknown reason from another rank", ("sglang-pd-kv-transfer-failed", "warning")),
        # a request the client or router aborted: a note
        ("Aborted by AbortReq.", ("sglang-pd-kv-transfer-aborted", "info")),
    ],
)
def test_a_pd_transfer_failure_is_a_warning_an_abort_a_note(
    reason: str, expected: tuple[str, str], tmp_path: Path
) -> None:
    report = log_report(written_log(tmp_path, _DECODE_LINE.format(reason)))
    first = report["findings"][0]
    assert (first["message"].split("]")[0].lstrip("["), first["severity"]) == expected
    assert first["code"] == "LG014"
    # a request failed, the server serves on: no launch death, no "before it logged its configuration"
    assert report["log"]["launches"][-1]["state"] == "incomplete"
    assert not any(f["code"] in ("LG001", "LG011") for f in report["findings"])


def test_mooncakes_own_error_line_is_a_transfer_failure(tmp_path: Path) -> None:
    line = (
        "E0612 14:05:26.176716 1192408 tcp_transport.cpp:136] Session::writeBody failed. Error: Bad address "
        "(value: 14), total_transferred_bytes_: 0, current transferred_bytes: 0\n"
    )
    report = log_report(written_log(tmp_path, line))
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG014", "warning"), INFO10]
    assert report["findings"][0]["message"].startswith("[mooncake-transfer-failed]")
    # Mooncake's other messages (its INFO lines) are no failure
    quiet = log_report(
        written_log(
            tmp_path, "I0612 14:05:26.1 1 tcp_transport.cpp:300] TcpTransport: listen on port 15659\n"
        )
    )
    assert not any(f["code"] == "LG014" for f in quiet["findings"])


def test_rays_report_of_a_dead_worker_is_past_the_configuration_line(tmp_path: Path) -> None:
    line = (
        "(raylet) A worker died or was killed while executing a task by an unexpected system error. To "
        "troubleshoot the problem, check the logs for the dead worker. Worker exit type: SYSTEM_ERROR\n"
    )
    report = log_report(written_log(tmp_path, line))
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [ERROR7, INFO10]
    assert report["findings"][0]["message"].startswith(RAY_DIED)
    # was: LG001 "died during argument validation, before it logged its configuration"
    assert not any(f["code"] == "LG001" for f in report["findings"])


def test_the_launchers_report_that_a_process_died_is_a_wrapper(tmp_path: Path) -> None:
    text = (
        "ERROR 05-11 11:39:27 [utils.py:291] Exception occurred while running API servers: Process "
        "ApiServer_0 (PID: 359) died with exit code 1\n"
        "ERROR 05-11 11:39:27 [utils.py:291] Traceback (most recent call last):\n"
        'ERROR 05-11 11:39:27 [utils.py:291]   File "/w/vllm/vllm/v1/utils.py", line 278, in '
        "wait_for_completion_or_failure\n"
        "ERROR 05-11 11:39:27 [utils.py:291]     raise RuntimeError(\n"
        "ERROR 05-11 11:39:27 [utils.py:291] RuntimeError: Process ApiServer_0 (PID: 359) died with exit "
        "code 1\n"
    )
    report = log_report(written_log(tmp_path, text))
    first = report["findings"][0]
    assert (first["code"], first["severity"]) == ERROR7
    assert first["message"].startswith("[vllm-api-server-proc-died]")
    assert "argument validation" not in first["message"]
    sig = next(s for s in load_catalog().signatures if s.id == "vllm-api-server-proc-died")
    assert sig.wrapper and sig.after_args


def test_colour_codes_a_viewer_names_esc_are_taken_off() -> None:
    raw = (
        b"> (EngineCore_DP0 pid=35109)ESC[0;0m ERROR 09-17 05:40:55 [v1/engine/core.py:712] EngineCore failed"
    )
    assert (
        _decode(raw)
        == "> (EngineCore_DP0 pid=35109) ERROR 09-17 05:40:55 [v1/engine/core.py:712] EngineCore failed"
    )
    assert _decode(b"ESCAPE[1] stays") == "ESCAPE[1] stays"  # a word, not a colour code


def test_the_frames_under_a_wrapper_line_name_its_stage(tmp_path: Path) -> None:
    pre = "(EngineCore_DP0 pid=9) ERROR 09-17 05:40:55 [core.py:712] "
    text = (
        f"{pre}EngineCore failed to start.\n"
        f"{pre}Traceback (most recent call last):\n"
        f'{pre}  File "/v/vllm/v1/engine/core.py", line 90, in __init__\n'
        f"{pre}    self._initialize_kv_caches(vllm_config)\n"
    )
    report = log_report(written_log(tmp_path, text))
    assert "(during allocating the KV cache)" in report["findings"][0]["message"]
    # a traceback that does not start on the next line is another's: no stage from it
    apart = text.replace(f"{pre}Traceback", f"{pre}INFO something else\n{pre}Traceback", 1)
    report = log_report(written_log(tmp_path, apart))
    assert "(during a step this excerpt does not show)" in report["findings"][0]["message"]


def test_vllm_omnis_diffusion_server_start_is_the_servers_start(tmp_path: Path) -> None:
    text = (
        "INFO 12-18 09:55:27 [gpu_worker.py:94] Model loading took 53.7694 GiB and 10.63 seconds\n"
        "(APIServer pid=21256) INFO 12-18 09:55:27 [api_server.py:95] Starting vLLM Diffusion API server on "
        "http://0.0.0.0:80\n"
    )
    report = log_report(written_log(tmp_path, text))
    assert report["log"]["launches"][-1]["state"] == "ready"
    assert not any("without an error" in f["message"] for f in report["findings"])


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
