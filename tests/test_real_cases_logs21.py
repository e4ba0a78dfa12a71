"""Real server logs, session 21's batch (docs/real_cases.md, "Logs, 10th batch"): 15 failures, 5 working.

Each ``*.log`` under ``tests/data/real_cases_logs21/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy gives it: its first line is a ``# source:`` comment with the URL and the
date, worded so that no log pattern reads it. The kinds earlier batches met least: Kubernetes events pasted
as the log (``kubectl get events``: BackOff, a readiness probe refused), a launcher's own lines (llm-d's
benchmark harness, a klog-wrapped tail of nvidia-smi in a GitHub Actions log), a Buildkite job's vLLM worker
through the CUDA graph capture, a vLLM 0.20 nightly's worker with ``cudaErrorStreamCaptureUnsupported``,
``docker logs`` of a vLLM 0.10 container refused by the Hub (401), SGLang's 2026 lines (``SIGQUIT received.
signum=None, frame=None``, ``kill_process_tree called``, the piecewise prefill CUDA graph runner), a CI job's
``/health_generate`` 503 loop ending in the launcher's TimeoutError with the detokenizer's 429 from the Hub,
Gloo's monitoredBarrier naming rank 0, a ms-swift rollout's EngineCore_DP1 death, vLLM 0.7.3's restart loop
whose args line the copy cuts. ``ok/`` holds the working launches: routes behind k9s's box borders, SGLang's
NPU CI run fired up, SGLang on two 5090s serving (2026's "Triton kernel ... after serving started"), a
Kibana-exported decode server in normal operation, a vLLM AWQ fallback warning before a benchmark's results.
``why/`` holds each failure's error text (its lines from the first error line on, or the whole copy when it
has none).

What each copy cuts (the corpus keeps about 2,000 characters of a report around the words searched): vllm9737
the restart loop's bind error (only a start whose args line is cut); club3090_106 the worker's exception line
(its CUDA error's name is kept); pytorch170433, sglang29562, sglang32893, sglang5602, msswift7933 and
vllm28278 their exception lines; sglang8741 everything after the memory pool; sglang12827 all but the sigquit;
kaito1609 and llmdbenchmark668 the server's own log; llmdfma720 the instance's log after nvidia-smi.

Classes as in the other batches (``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without its change, ``c`` not named, ``d`` a wrong error, warning or claim).
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.log.kube_events import read_events
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

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs21"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
ERROR7 = ("LG007", "error")
NONE_FROM_A_SERVER = "but none from an SGLang or vLLM server"
POINT_AT = "Point argtrace at the file the server writes (the redirect target in the launch script)."
CUT_TB = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
CAPTURE_FIX = (
    "Relaunch with --enforce-eager (SGLang: --disable-cuda-graph) to confirm the capture is what fails; then "
    "run the release before the one that failed or another attention backend and report the op the "
    "traceback names (vLLM can also capture piecewise graphs only: --compilation-config "
    '\'{"cudagraph_mode": "PIECEWISE"}\')'
)
HUB_FIX = (
    "Accept the model's terms on its Hugging Face page with the account whose token you use, and give the "
    "server that token in its own environment (`docker run -e HF_TOKEN=...`, the pod's env from a Secret, "
    "Environment= in the unit; `huggingface-cli login` on the host does not reach a container); or download "
    "the model where it is allowed and pass its local path"
)
KUBE_FIX = (
    "Read the server's log of the failed run (`kubectl logs POD -c CONTAINER --previous`) and give argtrace "
    "that file; when the server was still loading when a probe killed it, allow the start-up more time (a "
    "startupProbe whose failureThreshold x periodSeconds exceeds the load time)."
)
GLOO_FIX = (
    "Read rank 0's log (on a multi-node launch the node with --node-rank 0, its TP0/DP0 lines): its first "
    "error or its death (an OOM kill in `dmesg`) is the cause; the other ranks' tracebacks after this line "
    "only follow from it"
)
TIMEOUT_FIX = (
    "Read the server's own lines before this one: its first error (a scheduler or detokenizer exception, an "
    "OOM kill) is the cause; when it was only slow (a large model, a first download, compiling), give the "
    "launcher a longer timeout"
)
CUT = "the exception is not in the copy (cut before it)"

CASES = [
    LogCase(
        # was LG010 "begins mid-start-up" alone: the worker's CUDA error names the capture
        "club3090_106_worker_stream_capture_unsupported.log",
        "c",
        "a",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[cuda-stream-capture-error] A CUDA call was made that is not allowed while a CUDA graph is being "
        "captured",
        CAPTURE_FIX,
        cause="not capture-safe",
        change="--enforce-eager",
    ),
    LogCase(
        # was LG011 "died during loading the weights with: ...HTTPError: 401" and "add a signature"
        "genaiexamples2237_docker_logs_hf_401.log",
        "b",
        "a",
        (ERROR7,),
        "vllm",
        "failed",
        "weights",
        "[hf-hub-access-refused] The Hugging Face Hub refused the model's files",
        HUB_FIX,
        cause="the server sent no token at all",
        change="HF_TOKEN",
        version="0.10.0",
    ),
    LogCase(
        # was LG012 warning "none from an SGLang or vLLM server"
        "kaito1609_kubectl_events_readiness_probe_refused.log",
        "c",
        "b",
        (("LG016", "warning"),),
        None,
        "incomplete",
        "validation",
        "holds 3 Kubernetes event(s) about `workspace-llama-3-3-70b-instruct-0`, "
        "`workspace-llama-3-3-70b-instruct-1`, not the server's log: the container "
        "`workspace-llama-3-3-70b-instruct` exits and Kubernetes restarts it after a back-off "
        "(CrashLoopBackOff)",
        KUBE_FIX,
        cause="exit code",
        change="--previous",
        missing="why the container exits is in its log of the run before, which the report does not quote",
    ),
    LogCase(
        "llmdbenchmark668_gke_harness_crashed_container.log",
        "c",
        "c",
        (("LG012", "warning"),),
        None,
        None,
        None,
        NONE_FROM_A_SERVER,
        POINT_AT,
        cause="Llama-3.2-1B",
        change="--",
        missing="llm-d-benchmark's own lines (a crashed container): the pod's log is not in the copy",
    ),
    LogCase(
        "llmdfma720_launcher_klog_tail_nvidia_smi.log",
        "c",
        "c",
        (("LG012", "warning"),),
        None,
        None,
        None,
        NONE_FROM_A_SERVER,
        POINT_AT,
        cause="76587 MiB",
        change="--",
        missing="a launcher's klog line and nvidia-smi's table (GPUs already in use): no vLLM line in the "
        "copy",
    ),
    LogCase(
        "msswift7933_rollout_enginecore_dp1_died.log",
        "c",
        "c",
        (INFO10,),
        "vllm",
        "incomplete",
        "validation",
        "Launch 1 stops inside a traceback (from line 4) that the file cuts before its exception line",
        CUT_TB,
        cause="EngineCore_DP1",
        change="--",
        missing="vLLM's 'Engine core proc ... died unexpectedly' line holds no anchor of the matcher (a 33rd "
        "pattern costs 18-30% of its speed); why the engine died is not in the copy",
    ),
    LogCase(
        "pytorch170433_buildkite_worker_cuda_graph_capture_end.log",
        "b",
        "b",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 5) (during capturing CUDA graphs) that the file cuts "
        "before its exception line",
        "It failed inside the CUDA graph capture. Relaunch with --enforce-eager to confirm (or a smaller "
        "--max-cudagraph-capture-size, --max-seq-len-to-capture before 0.11), then try "
        "--disable-custom-all-reduce. " + CUT_TB,
        cause="capture_end",
        change="--enforce-eager",
        missing=CUT + ": a note (what failed in capture_end, a torch 2.10 regression, is past the copy)",
    ),
    LogCase(
        # was LG012 **warning** "none from an SGLang or vLLM server" on SGLang's own sigquit line
        "sglang12827_ci_prefixed_sigquit_deepseek_ocr.log",
        "d",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "among them SGLang's own message `Received sigquit from a child process. It usually means the child "
        "failed.` ([sglang-child-failed]",
        "Read the traceback printed before this line (often a rank-prefixed TPn line); give argtrace the "
        "server's whole log, from its start.",
        cause="deepseek-ocr",
        change="--",
        missing="the child's traceback is not in the copy: only the launcher's sigquit line",
    ),
    LogCase(
        "sglang29562_prefill_cuda_graph_runner_kill_process_tree.log",
        "b",
        "b",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "cuda_graph",
        "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows (during capturing "
        "CUDA graphs)",
        "It failed inside the CUDA graph capture. Relaunch with --disable-cuda-graph to confirm (or a "
        "smaller --cuda-graph-max-bs), then try --disable-custom-all-reduce. Read the traceback after this "
        "line",
        cause="NVFP4",
        change="--disable-cuda-graph",
        missing=CUT + ": the piecewise prefill graph's failure (GLM-5.2-NVFP4 on an RTX PRO 6000) is past it",
    ),
    LogCase(
        "sglang32893_v0516_sigquit_received_run_batch.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows (during serving)",
        "Read the traceback after this line",
        cause="MTP",
        change="--",
        missing=CUT + ": the EAGLE/MTP step's error is past the copy",
    ),
    LogCase(
        # was the scheduler's wrapper "during a step this excerpt does not show"
        # stage "unknown" until logs34: the frames are SGLang's scheduler constructor
        "sglang5602_gloo_monitored_barrier_rank0.log",
        "c",
        "b",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "scheduler_init",
        "[gloo-monitored-barrier-rank0] torch's Gloo monitoredBarrier: this rank reached the barrier, but "
        "rank 0 (the coordinator every other rank waits for) did not answer",
        GLOO_FIX,
        cause="DeepSeek",
        change="--node-rank 0",
        missing="rank 0's own failure is on the other node, not in the copy: the finding names where to read",
    ),
    LogCase(
        "sglang8741_embedding_start_cut_before_sigquit.log",
        "c",
        "c",
        (INFO10, INFO10),
        "sglang",
        "incomplete",
        "cuda_graph",
        "Launch 1 begins mid-start-up (its first line here, 2, is already past the configuration line)",
        "Read the launch from its start: an older rotated file (server.log.1), the terminal or the service "
        "journal; or relaunch with the log kept whole.",
        cause="XLMRoberta",
        change="--",
        missing="the copy stops at max_total_num_tokens: the child's failure is past it",
    ),
    LogCase(
        # was LG011 "died during argument validation with: TimeoutError" (a wrong stage, the launcher's error)
        "sglang_pr21471_detokenizer_hf_429_health_generate.log",
        "d",
        "c",
        (ERROR7,),
        None,
        "failed",
        "validation",
        "[launcher-server-start-timeout] The program that started the server and polls its health endpoint",
        TIMEOUT_FIX,
        cause="429",
        change="HF_TOKEN",
        missing="the detokenizer's 429 is in the reporter's indented summary, which is not read as log lines "
        "(`why` on the text names it)",
    ),
    LogCase(
        "vllm28278_k8s_pod_v0110_apiserver_frames.log",
        "c",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "holding 6 frame(s) of a vllm traceback (the last in build_async_engine_client)",
        "Give argtrace the whole log, from the server's start, or the full traceback with its last line (the "
        "exception).",
        cause="GLM-4.6",
        change="--",
        missing=CUT + ": the API server's frames alone",
    ),
    LogCase(
        # was two warnings (logs26: a dump the file's end cuts is the copy's cut, notes)
        "vllm9737_v073_restart_loop_args_cut.log",
        "c",
        "c",
        (("LG010", "info"), ("LG010", "info")),
        "vllm",
        "incomplete",
        "weights",
        "The args Namespace dump at line 5 is cut short: 44 setting(s) read",
        "Read the line whole where the server wrote it (the file, the terminal or the journal; a copy or a "
        "viewer cut it here).",
        cause="address already in use",
        change="--",
        missing="one start of the restart loop, its args line cut: the bind error is not in the copy",
        version="0.7.3",
    ),
]

# Launches that started and served: no error, no warning; one note each.
OK_LOGS = {
    "gatewayapi_pr550_k9s_boxed_vllm_routes.log": ("LG012", "5 of them a running server's serving lines"),
    "sglang_pr30047_npu_ci_fired_up.log": ("LG010", "begins mid-start-up"),
    "club3090_1261_sglang_5090_serving_triton_compile.log": ("LG010", "begins mid-start-up"),
    "sglang22511_kibana_decode_normal_operation.log": ("LG010", "begins mid-start-up"),
    "amdstrixhalo72_vllm_awq_fallback_benchmark.log": ("LG012", "1 of them in vLLM's log format"),
}


def test_the_batch() -> None:
    assert len(CASES) == 15
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([0, 3, 10, 2], [2, 4, 9, 0])
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
    code, said = OK_LOGS[name]
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [(code, "info")]
    assert said in report["findings"][0]["message"]
    assert alarms(report) == []


# --- `why` on each failure's error text -----------------------------------------------------------------

# name -> (confidence, the first site's function or None, the signatures' ids in order)
WHY = {
    # was a strong RepositoryNotFoundError site with "Revision Not Found" and its condition as the fix
    "genaiexamples2237_docker_logs_hf_401": ("strong", "hf_raise_for_status", ["hf-hub-access-refused"]),
    "club3090_106_worker_stream_capture_unsupported": ("none", None, ["cuda-stream-capture-error"]),
    "sglang_pr21471_detokenizer_hf_429_health_generate": (
        "strong",
        "launch_or_reuse_server",
        ["hf-hub-rate-limited", "sglang-detokenizer-exception", "launcher-server-start-timeout"],
    ),
    "sglang5602_gloo_monitored_barrier_rank0": (
        "strong",
        "_set_envs_and_config.launch_phase_sigquit_handler",
        ["sglang-child-failed", "gloo-monitored-barrier-rank0", "sglang-scheduler-exception"],
    ),
    # SGLang 0.5.16's "SIGQUIT received. signum=None, frame=None. It usually means one child failed."
    "sglang32893_v0516_sigquit_received_run_batch": (
        "strong",
        "SignalHandler.running_phase_sigquit_handler",
        ["sglang-child-failed", "sglang-scheduler-exception"],
    ),
    "msswift7933_rollout_enginecore_dp1_died": (
        "strong",
        "MPClient.start_engine_core_monitor.monitor_engine_cores",
        ["vllm-engine-core-proc-died"],  # logs25's catalog entry for the line
    ),
}
# before, after (docs/real_cases.md): a the capture error, the Hub's 401 and its 429 (after); b the gloo
# barrier's rank 0 (after); d before: the 401's strong site with a RevisionNotFound fix
WHY_CLASSES = ([0, 0, 14, 1], [3, 1, 11, 0])


@pytest.mark.parametrize("name", sorted(WHY))
def test_why_on_the_error_text(name: str) -> None:
    confidence, function, signatures = WHY[name]
    section = recorded_why(LOGS / "why" / f"{name}.txt")
    assert section["confidence"] == confidence
    assert (section["matches"] or [{}])[0].get("function") == function
    assert [s["id"] for s in section["signatures"]] == signatures


def test_why_leads_with_the_cause_the_signature_names() -> None:
    from argtrace.commands.why_text import render_why

    for name, opening in (
        ("genaiexamples2237_docker_logs_hf_401", "log signature hf-hub-access-refused"),
        ("sglang_pr21471_detokenizer_hf_429_health_generate", "log signature hf-hub-rate-limited"),
        ("sglang5602_gloo_monitored_barrier_rank0", "log signature gloo-monitored-barrier-rank0"),
        ("club3090_106_worker_stream_capture_unsupported", "log signature cuda-stream-capture-error"),
    ):
        text = render_why(recorded_why(LOGS / "why" / f"{name}.txt"), 80)
        assert opening in " ".join(text.splitlines()[:6]), (name, text[:300])


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # torch c10/cuda/CUDAException.cpp names the CUDA error; CUDA's own message for the same error
        (
            "RuntimeError: CUDA error: operation not permitted when stream is capturing",
            "cuda-stream-capture-error",
        ),
        (
            "Search for `cudaErrorStreamCaptureInvalidated' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
            "group__CUDART__TYPES.html for more information.",
            "cuda-stream-capture-error",
        ),
        # huggingface_hub's GatedRepoError, transformers' OSError
        (
            "huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-6)",
            "hf-hub-access-refused",
        ),
        ("OSError: You are trying to access a gated repo.", "hf-hub-access-refused"),
        (
            "requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: "
            "https://huggingface.co/api/models/Qwen/Qwen3-8B",
            "hf-hub-rate-limited",
        ),
        (
            "RuntimeError: Rank 5 successfully reached monitoredBarrier, but received errors while waiting "
            "for send/recv from rank 0. Please check rank 0 logs for faulty rank.",
            "gloo-monitored-barrier-rank0",
        ),
        # SGLang from 2026 (tokenizer_manager.py running_phase_sigquit_handler; its subprocess watchdog)
        (
            "SIGQUIT received. signum=None, frame=None. It usually means one child failed.",
            "sglang-child-failed",
        ),
        (
            "Subprocess scheduler_0 (pid=3417555) crashed with exit code -3. Triggering SIGQUIT for "
            "cleanup...",
            "sglang-child-failed",
        ),
        (
            "DetokenizerManager hit an exception: Traceback (most recent call last):",
            "sglang-detokenizer-exception",
        ),
        ("TimeoutError: Server failed to start within the timeout period.", "launcher-server-start-timeout"),
    ],
)
def test_a_line_is_read_by_its_entry(line: str, expected: str) -> None:
    hit = match_line(line, framework=None, stage=None)
    assert hit is not None and hit[0].id == expected


def test_kubernetes_events_in_both_tables() -> None:
    got = read_events(
        [
            "LAST SEEN   TYPE      REASON      OBJECT         MESSAGE",
            "2m          Warning   Unhealthy   pod/vllm-0     Startup probe failed: Get "
            '"http://10.1.2.3:8000/health": dial tcp 10.1.2.3:8000: connect: connection refused',
            "30s         Normal    Killing     pod/vllm-0     Container vllm failed startup probe, will be "
            "restarted",
        ]
    )
    assert got is not None
    assert (got.rows, got.pods, got.probes, got.killed_by) == (
        2,
        ["vllm-0"],
        [("startup", "http://10.1.2.3:8000/health", True)],
        ["startup"],
    )
    described = read_events(
        [
            "Events:",
            "  Type     Reason     Age                 From     Message",
            "  ----     ------     ----                ----     -------",
            "  Warning  BackOff    3m (x12 over 10m)   kubelet  Back-off restarting failed container sglang "
            "in pod sglang-0_default(9f)",
            "  Warning  FailedScheduling  5m  default-scheduler  0/2 nodes are available: 2 Insufficient "
            "nvidia.com/gpu.",
        ]
    )
    assert described is not None
    assert (described.restarting, described.unscheduled) == (
        ["sglang"],
        ["0/2 nodes are available: 2 Insufficient nvidia.com/gpu."],
    )
    # a log that mentions a probe is not a table of events
    plain = ["INFO: the readiness probe failed once", "INFO: Application startup complete."]
    assert read_events(plain) is None


def test_events_that_say_nothing_failed_are_a_note(tmp_path: Path) -> None:
    quiet = log_report(
        written_log(
            tmp_path,
            "LAST SEEN   TYPE     REASON    OBJECT       MESSAGE\n"
            '5m          Normal   Pulled    pod/vllm-0   Container image "vllm/vllm-openai:v0.11.0" '
            "already present on machine\n"
            "5m          Normal   Started   pod/vllm-0   Started container vllm\n",
        )
    )
    assert [(f["code"], f["severity"]) for f in quiet["findings"]] == [("LG016", "info")]
    said = quiet["findings"][0]["message"]
    assert said.endswith("not the server's log: none of them says the server failed.")


def test_a_file_of_a_frameworks_own_message_is_a_note(tmp_path: Path) -> None:
    # a lone vLLM line of a catalog entry (behind a CI job's ISO time): vLLM's, not "none from a server"
    report = log_report(
        written_log(
            tmp_path,
            "[2026-03-11T17:57:10Z] WorkerProc initialization failed due to an exception in a background "
            "process. See stack trace for root cause.\n",
        )
    )
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG012", "info")]
    said = report["findings"][0]["message"]
    assert "among them vLLM's own message `WorkerProc initialization failed" in said
