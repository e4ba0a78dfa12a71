"""Real server logs, session 20's batch (docs/real_cases.md, "Logs, 9th batch"): 15 failures, 5 working.

Each ``*.log`` under ``tests/data/real_cases_logs20/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy gives it: its first line is a ``# source:`` comment with the URL and the
date, worded so that no log pattern reads it. The shapes of the three open decisions logs19 left: the routers'
own ERROR/WARN lines (SGLang's router ``sglang_router_rs``: a gRPC worker it cannot connect to, a gRPC worker
health-checked over HTTP, its start-up wait for workers still compiling, "Failed to select PD pair ... No
available prefill workers"), torch's NCCL watchdog in Ray actors (an OpenRLHF-style actor's DistBackendError,
verl's WorkerDict), and a library raising beneath SGLang's or vLLM's frames (transformers' KeyError on a
model_type in SGLang's scheduler, flattened onto one line; Triton's OutOfResources under SGLang's DeepSeek
forward; FlashInfer's JIT under vLLM's attention backend), with PD bootstraps, vLLM engine wrappers and
SGLang's "other ranks didn't finish loading". ``ok/`` holds the working launches: vLLM's router routing and
ready, SGLang's model gateway (smg) activating a worker, a Ray Serve LLM replica, a PD prefill pod serving.
``why/`` holds each failure's error text (its lines from the first error line on; ktransformers1570's adds the
exception line its report quotes above the frames).

What each copy cuts (the corpus keeps about 2,000 characters of a report around the words searched):
gpustack3656, vllm_pr38895 and vllm30872 keep vLLM's wrappers, not the engine's exception; vllm50705 stops in
FlashInfer's frames; ktransformers1570 holds frames only (the Triton error is in the report's prose);
ktransformers1666 the rank that finished, not the rank that failed; sglang12293 one aborted bootstrap;
sglang4208 the router's pending checks, not its timeout; simplerl25 and verl1309 one rank's watchdog.

Classes as in the other batches (``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without its change, ``c`` not named, ``d`` a wrong error, warning or claim).
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.commands.why_router import router_text
from argtrace.layers.log.beneath import beneath
from argtrace.layers.log.no_launch import ROUTER_LINE
from argtrace.layers.log.signatures import load_catalog, match_line
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
    run_cli,
    written_log,
)

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs20"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
ERROR7 = ("LG007", "error")
WARN15 = ("LG015", "warning")
ENGINE = (
    "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
    "above it (during a step this excerpt does not show)."
)
ENGINE_FIX = "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line"
WATCHDOG_FIX = (
    "Find the rank that did not join the collective: the other ranks' and nodes' lines before this time (a "
    "traceback, an OOM kill, a stuck step); with a first collective that never completes, check the network "
    "between the nodes (NCCL_SOCKET_IFNAME, NCCL_DEBUG=INFO); when a rank is only slow (a long weight sync, "
    "a "
    "rollout), raise the process group's timeout; TORCH_NCCL_TRACE_BUFFER_SIZE records the collective that "
    "hung"
)
UNREACHABLE_FIX = (
    "Check the worker URL the router was given against where the server listens: its scheme (grpc:// only "
    "for "
    "a server started with --grpc-mode, http:// otherwise), a host the router's machine reaches (not "
    "127.0.0.1 across nodes or pods), its port; then that the server is up (`curl "
    "http://<host>:<port>/health`, "
    "its own log)"
)
HEALTH_FIX = (
    "Open the worker's health endpoint from the router's machine (`curl <worker>/health`): when it fails, "
    "the "
    "worker's own log says why (still loading, crashed, another port); for a grpc:// worker that gets "
    "`BadScheme`, use a router release that detects gRPC workers or start the worker in HTTP mode and give "
    "its "
    "http:// URL"
)
PENDING_FIX = (
    "Nothing while the workers are still starting; when the router gives up first, raise its wait "
    "(--router-worker-startup-timeout-secs with sglang_router.launch_server, --worker-startup-timeout-secs "
    "with launch_router) or check that the URL reaches the worker (`curl <worker>/health`)"
)
NO_WORKERS_FIX = (
    "Read the router's earlier lines for the workers' health-check failures and each worker's own log (a "
    "crash, an overload, a request larger than its context); when the workers are healthy but busy, the "
    "circuit breaker opened on slow requests: lower the request rate or raise the breaker's thresholds "
    "(--cb-failure-threshold, --cb-timeout-duration-secs) or disable it (--disable-circuit-breaker)"
)
MODEL_TYPE_FIX = (
    "Run a transformers release that knows this model_type, or load the code that registers it: the model's "
    "own package or launcher (a model shipped with its own server registers its config class before starting "
    "SGLang/vLLM), or the repo's remote code with --trust-remote-code"
)
CUT_TB_FIX = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
CUT = "the exception is not in the copy (cut before it)"
PD_FIX = (
    "Read the first transfer error of the other side and of the transfer backend (Mooncake's `E... "
    "transfer_engine`/`tcp_transport`/`rdma` lines, NIXL's) on both servers: check "
    "--disaggregation-ib-device names the RDMA devices each node has, that the nodes reach each other on the "
    "bootstrap port and the backend's ports, and that prefill and decode run compatible settings (the same "
    "model and KV dtype; tensor-parallel sizes the backend supports)"
)

CASES = [
    LogCase(
        # was LG012 note "SGLang's router" over its ERROR lines
        "sglang_pr11310_router_grpc_workers_unreachable.log",
        "c",
        "a",
        (WARN15, INFO10),
        None,
        "incomplete",
        "unknown",
        "[router-worker-unreachable] The router in front of the servers",
        UNREACHABLE_FIX,
        cause="could not open a connection to a worker",
        change="grpc:// only for a server started with --grpc-mode",
    ),
    LogCase(
        # was LG012 note: the router's "Failed to select PD pair error=No available prefill workers"
        "sglang12355_router_no_available_prefill_workers.log",
        "c",
        "a",
        (WARN15, INFO10),
        None,
        "incomplete",
        "unknown",
        "[router-no-available-workers] The router could not pick a prefill/decode pair",
        NO_WORKERS_FIX,
        cause="circuit breaker opened",
        change="--cb-failure-threshold",
    ),
    LogCase(
        # was LG012 note: a grpc:// worker health-checked over HTTP (BadScheme)
        "sglang12630_router_grpc_worker_http_health_check.log",
        "c",
        "a",
        (WARN15, INFO10),
        None,
        "incomplete",
        "unknown",
        "`BadScheme` on a grpc:// URL means the router health-checked a gRPC worker over HTTP",
        HEALTH_FIX,
        cause="BadScheme",
        change="a router release that detects gRPC workers",
    ),
    LogCase(
        # was LG012 note; the router's pending checks while the workers compile are a note, its timeout is cut
        "sglang4208_router_health_pending_torch_compile.log",
        "c",
        "b",
        (("LG015", "info"), INFO10),
        None,
        "incomplete",
        "unknown",
        "[router-worker-health-pending] The router is waiting, at its start",
        PENDING_FIX,
        cause="torch.compile",
        change="--router-worker-startup-timeout-secs",
        missing="the router's 'Timeout ...s waiting for workers' is cut from the copy: the pending checks "
        "are "
        "a note (a worker still compiling is no failure until the router gives up)",
    ),
    LogCase(
        "sglang12293_pd_prefill_bootstrap_abort_router_fine.log",
        "c",
        "c",
        (("LG014", "info"), INFO10),
        "sglang",
        "incomplete",
        "unknown",
        "[sglang-pd-kv-transfer-aborted] A request was aborted",
        "Nothing to change when requests are cancelled on purpose; when they are not, read why the client or "
        "the router gave up (the router's own log: a request timeout, a stream error from the decode server)",
        cause="nvfp4",
        change="--",
        missing="a request stuck on DeepEP with nvfp4 (the thread's cause) shows only as one aborted "
        "bootstrap",
    ),
    LogCase(
        "sglang10110_pd_prefill_bootstrap_timeout.log",
        "b",
        "b",
        (("LG014", "warning"), INFO10),
        "sglang",
        "incomplete",
        "unknown",
        "[sglang-pd-kv-transfer-failed] SGLang's PD disaggregation could not move a request's KV cache",
        PD_FIX,
        cause="hang",
        change="--",
        missing="a bootstrap timed out under a high request rate: the hang before it is not in the copy",
    ),
    LogCase(
        # was [nccl-error] "during initialising the distributed (NCCL) group": a collective's timeout
        "simplerl25_ray_actor_nccl_watchdog_distbackend.log",
        "b",
        "b",
        (ERROR7, INFO10),
        None,
        "failed",
        "unknown",
        "[nccl-watchdog-collective-timeout] torch.distributed's NCCL watchdog saw a collective",
        WATCHDOG_FIX,
        cause="rank 5",
        change="--",
        missing="the rank that did not join the all-gather is another process's, not in the copy",
    ),
    LogCase(
        "verl1309_ray_workerdict_nccl_watchdog_timeout.log",
        "b",
        "b",
        (("LG012", "info"),),
        None,
        None,
        None,
        "line(s) of torch.distributed's NCCL watchdog from rank(s) 15 and none of the server's own",
        "Give argtrace the server's whole log (every node's, for a multi-node launch); rerun with "
        "NCCL_DEBUG=INFO to see the collective that hung.",
        cause="broadcast",
        change="--",
        missing="one rank's watchdog lines (a file of them alone stays the logs-4 note): the rank that hung "
        "is "
        "not in the copy",
    ),
    LogCase(
        # was the wrapper alone ("the traceback follows"): transformers' KeyError beneath SGLang's frame
        "mineru2658_transformers_keyerror_under_sglang_scheduler.log",
        "c",
        "a",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "scheduler_init",  # "unknown" until logs34: SGLang's scheduler constructor
        "its cause: transformers raised KeyError: 'mineru2_qwen' in "
        "transformers/models/auto/configuration_auto.py:872 in __getitem__, beneath SGLang's frame "
        "sglang/srt/managers/scheduler.py:484 in init_tok, where it surfaced",
        MODEL_TYPE_FIX,
        cause="mineru2_qwen",
        change="load the code that registers it",
    ),
    LogCase(
        "ktransformers1570_sglang_forward_triton_frames.log",
        "c",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "holding 6 frame(s) of a sglang traceback (the last in forward)",
        "Give argtrace the whole log, from the server's start, or the full traceback with its last line (the "
        "exception).",
        cause="OutOfResources",
        change="--",
        missing="frames only: Triton's OutOfResources is in the report's prose (`why` names it)",
    ),
    LogCase(
        # was LG011 "died during loading the weights with: ValueError: TP rank 1 could finish the model
        # loading" and the generic fix, stage unknown, until logs34 gave SGLang's message its entry
        "ktransformers1666_sglang_tp_ranks_unfinished_loading.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "weights",
        "[sglang-other-ranks-did-not-finish-loading] This rank loaded its weights, but another rank of its "
        "tensor-parallel group did not finish loading",
        "Read the log of the rank that did not finish loading (each node's own log on a multi-node launch) "
        "for its first error; if none failed but one was slow, put the weights on fast local storage on "
        "every node (or download them there first) so that every rank loads them within 480 s",
        cause="OOM",
        change="--",
        missing="the rank that failed to load is another process's, not in the copy",
    ),
    LogCase(
        "vllm50705_flashinfer_jit_under_enginecore.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "The frames end inside flashinfer: flashinfer was running (the exception is cut) in "
        "flashinfer/prefill.py:447 in get_batch_prefill_module, beneath vLLM's frame "
        "vllm/v1/attention/backends/flashinfer.py:1430 in build, where it surfaced.",
        CUT_TB_FIX,
        cause="JIT",
        change="--",
        missing=CUT + ": FlashInfer's JIT build (a CUDA toolkit older than sm_120 needs) is past the copy",
    ),
    LogCase(
        "vllm_pr38895_worker_died_flashinfer_warmup_dcp.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE,
        ENGINE_FIX,
        cause="kv_cache_layout",
        change="--",
        missing=CUT + ": the worker that died during FlashInfer's warm-up printed its error elsewhere",
    ),
    LogCase(
        "gpustack3656_vllm_t4_engine_core_init_failed.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE,
        ENGINE_FIX,
        cause="VLLM_USE_FLASHINFER_SAMPLER",
        change="--",
        missing=CUT + ": the API server's wrapper alone",
    ),
    LogCase(
        "vllm30872_lora_triton_sm100_engine_dead.log",
        "c",
        "c",
        (("LG007", "error"), INFO10),
        "vllm",
        "failed",
        "serving",
        # the API server's EngineDeadError only follows the engine's failure (logs22's `vllm-engine-dead`)
        "[vllm-engine-dead] vLLM's API server found its engine core process dead",
        "Read the first error the EngineCore or a Worker process printed above this line (its "
        "traceback's last "
        "line, after 'EngineCore encountered a fatal error.'): that is the cause; when there is none, "
        "the engine "
        "was killed without a trace (check `dmesg` for the OOM killer)",
        cause="LoRA",
        change="--",
        missing=CUT + ": the engine's Triton failure (LoRA kernels on SM100) follows the copy",
    ),
]

# What the first screen (80 columns) opens with: its first finding's headline.
LEADS = {
    "sglang_pr11310_router_grpc_workers_unreachable.log": "WARNING LG015 line 3 [router-worker-unreachable]",
    "sglang12355_router_no_available_prefill_workers.log": "WARNING LG015 line 2 "
    "[router-no-available-workers]",
    "mineru2658_transformers_keyerror_under_sglang_scheduler.log": "ERROR LG007 line 2 "
    "[sglang-scheduler-exce",
}

# Launches that route or serve: no error, no warning; one note each.
OK_LOGS = {
    # were LG012 **warning** "none from an SGLang or vLLM server": vLLM's router and SGLang's model gateway
    "vllm_router_pr47_pd_routing_debug.log": "6 line(s) of vLLM's router",
    "vllm_router_pr130_router_ready_pd.log": "11 line(s) of vLLM's router",
    "sglang_pr12407_smg_worker_activated.log": "10 line(s) of SGLang's router",
    "ray_pr65486_serve_llm_rayworkerproc.log": "9 line(s) of Ray Serve LLM",
    "productionstack747_prefill_serving_lmcache.log": "1 of them a running server's serving lines",
}
# the working logs' alarms before this batch (the three routers' files)
OK_ALARMS_BEFORE = 3


def test_the_batch() -> None:
    assert len(CASES) == 15
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([0, 3, 12, 0], [4, 4, 7, 0])
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


@pytest.mark.parametrize("name", sorted(LEADS))
def test_the_first_screen_leads_with(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = run_cli(["log", f"tests/data/real_cases_logs20/{name}"], cwd=LOGS.parents[2])
    screen = result.stdout.splitlines()[:24]
    assert screen[2].startswith(LEADS[name]), screen[:4]


def test_class_a_names_the_cause_and_the_change() -> None:
    for case in (c for c in CASES if c.after == "a"):
        assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


@pytest.mark.parametrize("case", not_class_a(CASES))
def test_the_first_screen_names_the_cause_and_the_change(case: LogCase) -> None:
    assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


@pytest.mark.parametrize("name", sorted(OK_LOGS))
def test_working_launches_give_no_alarm(name: str) -> None:
    report = recorded_log_report(LOGS / "ok" / name)
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG012", "info")]
    assert OK_LOGS[name] in report["findings"][0]["message"]
    assert alarms(report) == []


# --- `why` on each failure's error text -----------------------------------------------------------------

# name -> (confidence, the first site's function or None, the library cause's start or None, the first
# signature's id or None)
WHY = {
    "sglang_pr11310_router_grpc_workers_unreachable": ("none", None, None, "router-worker-unreachable"),
    "sglang12355_router_no_available_prefill_workers": ("none", None, None, "router-no-available-workers"),
    # was a strong match on SGLang's "Encoder health check failed for req_id=" (a wrong claim)
    "sglang12630_router_grpc_worker_http_health_check": (
        "none",
        None,
        None,
        "router-worker-health-check-failed",
    ),
    # was a strong match on SGLang's AsyncOperationManager._fail_task (a wrong claim)
    "sglang4208_router_health_pending_torch_compile": ("none", None, None, "router-worker-health-pending"),
    "simplerl25_ray_actor_nccl_watchdog_distbackend": (
        "none",
        None,
        None,
        "nccl-watchdog-collective-timeout",
    ),
    # SGLang's log format: vLLM's MimoAudioEncoder site (a weak candidate) is no longer offered (2026-12-04)
    "verl1309_ray_workerdict_nccl_watchdog_timeout": ("none", None, None, "nccl-watchdog-collective-timeout"),
    "mineru2658_transformers_keyerror_under_sglang_scheduler": (
        "strong",
        "run_scheduler_process",
        "transformers raised KeyError: 'mineru2_qwen'",
        "sglang-scheduler-exception",
    ),
    "ktransformers1570_sglang_forward_triton_frames": ("none", None, "triton raised OutOfResources", None),
}
# before, after (docs/real_cases.md): a the three routers' failures and the transformers model_type; b the
# router's pending checks, Triton's OutOfResources, the PD bootstrap timeout, the two watchdogs; c the other
# 6;
# before: d the two strong wrong sites (sglang12630, sglang4208)
WHY_CLASSES = ([0, 2, 11, 2], [4, 5, 6, 0])


@pytest.mark.parametrize("name", sorted(WHY))
def test_why_on_the_error_text(name: str) -> None:
    confidence, function, library, signature = WHY[name]
    section = recorded_why(LOGS / "why" / f"{name}.txt")
    assert section["confidence"] == confidence
    assert (section["matches"] or [{}])[0].get("function") == function
    assert (section.get("beneath") or {}).get("says", "").startswith(library or "")
    assert bool(section.get("beneath")) == (library is not None)
    assert ([s["id"] for s in section["signatures"]] or [None])[0] == signature


def test_why_leads_with_the_library_or_the_routers_signature(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    for name, opening in (
        ("mineru2658_transformers_keyerror_under_sglang_scheduler", "cause: transformers raised KeyError"),
        ("ktransformers1570_sglang_forward_triton_frames", "cause: triton raised OutOfResources"),
        (
            "sglang12630_router_grpc_worker_http_health_check",
            "log signature router-worker-health-check-failed",
        ),
    ):
        text = (LOGS / "why" / f"{name}.txt").read_text(encoding="utf-8").split("\n", 1)[1]
        screen = " ".join(run_cli(["why", text]).stdout.splitlines()[1:5])
        assert opening in screen, screen


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # sgl-router src/core/worker.rs, its fork vllm-project/router: the same words
        (
            "2026-01-02 03:04:05 ERROR vllm_router_rs::core::worker: src/core/worker.rs:517: Failed to "
            "connect "
            "gRPC client for worker grpc://10.0.0.5:20000: transport error",
            ("router-worker-unreachable", "warning"),
        ),
        (
            "2026-01-02 03:04:05 ERROR sglang_router_rs::routers::router: src/routers/router.rs:151: "
            "Timeout 300s "
            'waiting for workers ["http://10.0.0.5:30000"] to become healthy. Please set '
            "--router-worker-startup-timeout-secs",
            ("router-workers-startup-timeout", "warning"),
        ),
        (
            "[smg] 2026-06-06 04:08:11 ERROR smg::routers::http::pd_router: model_gateway/src/routers/http/"
            "pd_router.rs:142: Failed to select PD pair error=No available decode workers (all circuits open "
            "or unhealthy)",
            ("router-no-available-workers", "warning"),
        ),
    ],
)
def test_a_routers_error_line_is_named(line: str, expected: tuple[str, str], tmp_path: Path) -> None:
    report = log_report(written_log(tmp_path, line + "\n"))
    first = report["findings"][0]
    assert (first["code"], first["message"].split("]")[0].lstrip("["), first["severity"]) == (
        "LG015",
        *expected,
    )
    # a router's line is a front end's, not a server's: no "died", no configuration-line claim
    assert not any(f["code"] in ("LG001", "LG011") for f in report["findings"])


def test_a_routers_info_lines_are_a_note_of_its_kind(tmp_path: Path) -> None:
    quiet = log_report(
        written_log(
            tmp_path,
            "2026-03-31 13:29:07  INFO vllm_router_rs::server: src/server.rs:1017: Router ready | workers: "
            '["http://a:5000"]\n',
        )
    )
    assert [(f["code"], f["severity"]) for f in quiet["findings"]] == [("LG012", "info")]
    assert "of vLLM's router" in quiet["findings"][0]["message"]
    assert ROUTER_LINE.search(
        "[smg] 2026-06-06 04:08:09  INFO smg::server: model_gateway/src/server.rs:1165: x"
    )
    assert not ROUTER_LINE.search("INFO 01-02 03:04:05 [api_server.py:1] vLLM API server version 0.11.0")


def test_why_on_a_routers_lines_matches_no_python_site() -> None:
    assert router_text(
        "2025-10-07 23:31:33 ERROR sglang_router_rs::core::worker: src/core/worker.rs:517: x\n"
        "2025-10-07 23:32:33  INFO sglang_rou"  # the copy's cut last line
    )
    # a Python traceback among them: not a router's text
    assert not router_text(
        "2025-10-07 23:31:33 ERROR sglang_router_rs::core::worker: src/core/worker.rs:517: x\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/dist-packages/sglang/srt/x.py", line 1, '
        "in f\nValueError: something else went wrong"
    )


def test_the_watchdog_timeout_is_named_before_the_generic_nccl_error() -> None:
    line = (
        "Unhandled exception: N3c1016DistBackendErrorE. what(): [PG ID 0 PG GUID 0(default_pg) Rank 5] "
        "Process "
        "group watchdog thread terminated with exception: [Rank 5] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=3, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
        "1800041 milliseconds before timing out."
    )
    hit = match_line(line, framework=None, stage=None)
    assert hit is not None
    sig, groups = hit
    assert sig.id == "nccl-watchdog-collective-timeout"
    assert groups == {"seq": "3", "op": "BROADCAST", "timeout_ms": "1800000", "ran_ms": "1800041"}
    # a DistBackendError of another kind stays the generic entry
    other = match_line("torch.distributed.DistBackendError: NCCL error in: x", framework=None, stage=None)
    assert other is not None and other[0].id == "nccl-error"
    assert {s.id for s in load_catalog().signatures if s.code == "LG015"} == {
        "router-worker-unreachable",
        "router-worker-health-check-failed",
        "router-worker-health-pending",
        "router-workers-startup-timeout",
        "router-no-available-workers",
    }


def test_a_ray_workers_death_after_its_nccl_watchdog_frames_names_the_watchdog(tmp_path: Path) -> None:
    text = (
        "(RayWorkerWrapper pid=7) /usr/lib/python3/dist-packages/torch/lib/libtorch_cuda.so(+0xe427c9) "
        "[0x7fd15b3007c9] c10d::ProcessGroupNCCL::ncclCommWatchdog()\n"
        "(RayWorkerWrapper pid=7) /lib/x86_64-linux-gnu/libc.so.6(+0x94ac3) [0x7fdb899c4ac3]\n"
        "(raylet) A worker died or was killed while executing a task by an unexpected system error. To "
        "troubleshoot the problem, check the logs for the dead worker. Worker exit type: SYSTEM_ERROR\n"
    )
    report = log_report(written_log(tmp_path, text))
    first = report["findings"][0]
    assert (first["code"], first["severity"]) == ERROR7
    assert first["message"].startswith(
        "[ray-worker-died] torch's NCCL watchdog took the worker down: its last lines (line 1) are the "
        "watchdog's native frames (ProcessGroupNCCL::ncclCommWatchdog)"
    )
    assert first["fix"] == WATCHDOG_FIX
    # without the watchdog's frames before it, the raylet's report keeps its own fix
    alone = log_report(written_log(tmp_path, text.split("\n", 2)[2]))
    assert alone["findings"][0]["fix"].startswith("Read the dead worker's own last lines")


def test_a_library_error_beneath_a_framework_frame() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 10, in load_model\n'
        "    self.model = get_model()\n"
        '  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1773, '
        "in _wrapped_call_impl\n"
        "    return self._call_impl(*args, **kwargs)\n"
        '  File "/usr/lib/python3/dist-packages/transformers/modeling_utils.py", line 99, '
        "in from_pretrained\n"
        '    raise OSError("x")\n'
        "OSError: Can't load the model. Please make sure the path is right. It has no weights.\n"
    )
    found = beneath(text)
    assert found is not None
    assert found.sentence() == (
        "transformers raised OSError: Can't load the model. Please make sure the path is right. It has no "
        "weights. in transformers/modeling_utils.py:99 in from_pretrained, beneath vLLM's frame "
        "vllm/v1/worker/gpu_model_runner.py:10 in load_model, where it surfaced"
    )
    # the fix the library's message implies: its sentences that say what to do
    assert found.fix == "transformers's message says: Please make sure the path is right."
    # the framework's own raise (its deepest frame is SGLang's): no library to name
    own = text.replace("transformers/modeling_utils.py", "vllm/model_executor/x.py")
    assert beneath(own) is None
    # no framework frame at all: a library's traceback alone is not "beneath" anything
    assert beneath(text.replace("vllm/v1/worker", "myapp")) is None
