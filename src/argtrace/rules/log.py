"""Rules of the log layer (``LG``): what a server's own log says it saw, and why it stopped.

Error signatures from ``argtrace/data/error_signatures.json`` map to LG003-LG008 by their ``code``; the
finding's message starts with the signature id (``[sglang-spec-mamba-no-buffer]``) so each stays traceable.
"""

from __future__ import annotations

from argtrace.rules import Example, Rule

_SEED_ERROR = (
    "Traceback (most recent call last):\n"
    '  File "/usr/lib/python3.12/runpy.py", line 198, in _run_module_as_main\n'
    '  File "/opt/venv/lib/python3.12/site-packages/sglang/launch_server.py", line 11, in <module>\n'
    "    server_args = prepare_server_args(sys.argv[1:])\n"
    '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/server_args.py", line 4911, '
    "in prepare_server_args\n"
    "    return ServerArgs.from_cli_args(raw_args)\n"
    '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/server_args.py", line 722, in __post_init__\n'
    "    self._handle_mamba_radix_cache(model_arch)\n"
    "ValueError: Speculative decoding for Qwen3_5ForConditionalGeneration is not compatible with radix cache "
    "when using --mamba-scheduler-strategy no_buffer. To use radix cache with speculative decoding, please "
    "use "
    "--mamba-scheduler-strategy extra_buffer and set SGLANG_ENABLE_SPEC_V2=1.\n"
)
_ARGS = (
    "[2026-11-29 21:14:02] server_args=ServerArgs(model_path='/models/Qwen3.6-27B', tp_size=1, "
    "mem_fraction_static=0.8, max_running_requests=48, mamba_scheduler_strategy='extra_buffer', "
    "speculative_algorithm='EAGLE', port=30000)\n"
)
_READY = (
    "[2026-11-29 21:14:40 TP0] Load weight end. type=Qwen3_5ForConditionalGeneration, dtype=torch.bfloat16, "
    "avail mem=41.10 GB, mem usage=52.12 GB.\n"
    "[2026-11-29 21:14:42 TP0] KV Cache is allocated. #tokens: 412160, K size: 9.43 GB, V size: 9.43 GB\n"
    "[2026-11-29 21:14:42 TP0] Memory pool end. avail mem=20.01 GB\n"
    "[2026-11-29 21:15:02 TP0] Capture cuda graph end. Time elapsed: 19.80 s. mem usage=1.21 GB. avail "
    "mem=18.80 GB.\n"
    "[2026-11-29 21:15:03 TP0] Load weight end. type=Qwen3_5MTP, dtype=torch.bfloat16, avail mem=17.9 GB, "
    "mem usage=0.90 GB.\n"
    "[2026-11-29 21:15:05] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)\n"
    "[2026-11-29 21:15:06] The server is fired up and ready to roll!\n"
)
_GOOD = _ARGS + _READY

LG001 = Rule(
    code="LG001",
    layer="log",
    severity="error",
    title="The server died before it logged its configuration",
    rationale=(
        "SGLang prints `server_args=` only after argument parsing and validation succeeded (vLLM prints "
        "`non-default args:` after parsing). A launch that has no such line died earlier, so grepping the "
        "log "
        "for a setting finds nothing: the values it saw are not in the log. argtrace names the stage it "
        "died in "
        "(import, arguments, validation, model config) from the traceback and ties the error to settings."
    ),
    fix="Fix the error shown (see its own finding); run `argtrace check` on the launch script to see which "
    "values the server would have received.",
    example=Example(files={"server.log": _SEED_ERROR}, argv=("log", "server.log")),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)

LG002 = Rule(
    code="LG002",
    layer="log",
    severity="error",
    title="The value the server logged (or its error implies) differs from the one intended",
    rationale=(
        "The args dump is the server's own account of its configuration. When it disagrees with what the "
        "script meant to pass, one of three things happened: the log is from another launch (its time, PID "
        "or "
        "several other settings differ), the flag never arrived (shell and parser layers), or the framework "
        "rewrote it (resolution layer). Some errors also prove a value: SGLang raises the "
        "speculative-decoding "
        "radix-cache error only when the Mamba strategy is not extra_buffer."
    ),
    fix="Follow the possibility the evidence supports: relaunch and read the new log, or run "
    "`argtrace check --log LOG SCRIPT ARGS` to see the layer where the value was lost.",
    example=Example(
        files={"server.log": _SEED_ERROR},
        argv=("log", "server.log", "--expect", "mamba_scheduler_strategy=extra_buffer"),
    ),
    correct=Example(
        files={"server.log": _GOOD},
        argv=("log", "server.log", "--expect", "mamba_scheduler_strategy=extra_buffer"),
    ),
)

LG003 = Rule(
    code="LG003",
    layer="log",
    severity="error",
    title="Out of memory during start-up (weights, KV cache, Mamba state, CUDA graphs or draft worker)",
    rationale=(
        "The same 'CUDA out of memory' needs a different fix depending on what was being allocated: weights "
        "need more GPUs or quantization, the KV/Mamba pools a different memory fraction or cap, CUDA graphs "
        "a "
        "smaller capture batch size. argtrace places the error on the start-up timeline and names the stage."
    ),
    fix="Apply the fix of the matched signature (shown with the finding).",
    example=Example(
        files={
            "server.log": _ARGS
            + "[2026-11-29 21:14:40 TP0] Load weight end. type=Qwen3_5ForConditionalGeneration, "
            "dtype=torch.bfloat16, avail mem=3.10 GB, mem usage=52.12 GB.\n"
            "[2026-11-29 21:14:41 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
            '  File "/sgl/srt/model_executor/model_runner.py", line 1800, in init_memory_pool\n'
            "    raise RuntimeError(\n"
            "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n"
        },
        argv=("log", "server.log"),
    ),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)

LG004 = Rule(
    code="LG004",
    layer="log",
    severity="error",
    title="The framework rejected the combination of settings",
    rationale=(
        "Validation errors (speculative decoding with a no_buffer Mamba radix cache, extra_buffer on an "
        "unsupported device, decode radix cache with speculation) stop the server before it logs its "
        "configuration. The catalog entry names the settings involved and the public report it came from."
    ),
    fix="Change the settings the signature names, then check that the new value arrives with "
    "`argtrace check`.",
    example=Example(files={"server.log": _SEED_ERROR}, argv=("log", "server.log")),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)

LG005 = Rule(
    code="LG005",
    layer="log",
    severity="error",
    title="The framework's argument parser rejected the command line",
    rationale=(
        "argparse errors (unrecognized arguments, a flag without its value, an invalid choice) end the "
        "process "
        "with exit status 2 before anything else is logged. A flag without its value usually means an empty "
        "shell variable or positional parameter."
    ),
    fix="Fix the flag named in the message; `argtrace check` shows where the word came from.",
    example=Example(
        files={
            "server.log": "usage: launch_server.py [-h] --model-path MODEL_PATH [--port PORT]\n"
            "launch_server.py: error: unrecognized arguments: --mamba-scheduler-strategy extra_buffer\n"
        },
        argv=("log", "server.log"),
    ),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)

LG006 = Rule(
    code="LG006",
    layer="log",
    severity="warning",
    title="A deprecated flag or an environment variable the framework does not know",
    rationale=(
        "Deprecated flags may be aliases that now set another field, and unknown VLLM_* variables are "
        "ignored "
        "with a single warning line: a setting that looks active is not."
    ),
    fix="Use the current flag or variable name for this framework version, or remove it.",
    example=Example(
        files={
            "server.log": "(APIServer pid=1) INFO 06-26 15:11:36 [utils.py:233] non-default args: "
            "{'model_tag': 'Qwen/Qwen3-8B', 'model': 'Qwen/Qwen3-8B'}\n"
            "(APIServer pid=1) WARNING 06-26 15:11:37 [envs.py:1830] Unknown vLLM environment variable "
            "detected: VLLM_USE_V1\n"
        },
        argv=("log", "server.log"),
    ),
    correct=Example(
        files={
            "server.log": "(APIServer pid=1) INFO 06-26 15:11:36 [utils.py:233] non-default args: "
            "{'model_tag': 'Qwen/Qwen3-8B', 'model': 'Qwen/Qwen3-8B'}\n"
            "(APIServer pid=1) INFO 06-26 15:12:10 [api_server.py:1900] Starting vLLM API server 0 on "
            "http://0.0.0.0:8000\n"
        },
        argv=("log", "server.log"),
    ),
)

LG007 = Rule(
    code="LG007",
    layer="log",
    severity="error",
    title="The environment stopped the server (port in use, NCCL, missing library, model files)",
    rationale=(
        "Not every start-up failure is a setting: a port still held by the previous launch, a missing "
        "libnuma, an NCCL failure or an old transformers stop the server just as surely. The catalog says "
        "which."
    ),
    fix="Apply the fix of the matched signature (shown with the finding).",
    example=Example(
        files={
            "server.log": _ARGS
            + _READY.replace(
                "[2026-11-29 21:15:05] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to "
                "quit)\n"
                "[2026-11-29 21:15:06] The server is fired up and ready to roll!\n",
                "[2026-11-29 21:15:05] ERROR:    [Errno 98] error while attempting to bind on address "
                "('0.0.0.0', 30000): address already in use\n",
            )
        },
        argv=("log", "server.log"),
    ),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)

LG008 = Rule(
    code="LG008",
    layer="log",
    severity="warning",
    title="The framework changed a value or reduced a capacity by itself",
    rationale=(
        "Some adjustments are only visible as one log line: max_total_tokens replaced by the profiled value, "
        "max_running_requests capped by the Mamba cache, mem_fraction_static reduced for multimodal models. "
        "The server runs, with less than was asked for."
    ),
    fix="Set the value explicitly to what fits, or give the memory it needs.",
    example=Example(
        files={
            "server.log": _ARGS
            + "[2026-11-29 21:14:41 TP0] max_total_tokens=500000 is larger than the profiled value 412160. "
            "Use the profiled value instead.\n" + _READY
        },
        argv=("log", "server.log"),
    ),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)

LG009 = Rule(
    code="LG009",
    layer="log",
    severity="error",
    title="The log predates the launch it is read for",
    rationale=(
        "A log written before the launch you care about (an old file, a run that never reached the log, a "
        "server that kept writing elsewhere) describes another process. Its errors and values are not "
        "evidence "
        "about this launch."
    ),
    fix="Find the log the new launch writes (check the redirect in the script), or relaunch.",
    example=Example(
        files={"server.log": _GOOD},
        argv=("log", "server.log", "--launched-after", "2026-11-30T08:00:00"),
    ),
    correct=Example(
        files={"server.log": _GOOD},
        argv=("log", "server.log", "--launched-after", "2026-11-29T21:00:00"),
    ),
)

# LG010's note that a file begins mid-start-up says these words (layers/log/findings.py): it is about what
# the file holds, not what the launch did, and the text view ranks it after the launch's own LG010
# (render/screen.py ``about_the_analysis``).
LG010_EXCERPT = "begins mid-start-up"

LG010 = Rule(
    code="LG010",
    layer="log",
    severity="warning",
    title="The log is cut short",
    rationale=(
        "A configuration dump cut mid-line, or a launch that ends during start-up without any error, means "
        "the "
        "log does not hold the whole story: the process may still be starting, may have been killed without "
        "a "
        "trace (the kernel's OOM killer writes to dmesg, not the log), or the file was truncated."
    ),
    fix="Wait and read again, check `dmesg` for the OOM killer, or keep the whole log "
    "(no `> log` truncation).",
    example=Example(
        files={"server.log": _ARGS + _READY.splitlines(keepends=True)[0]}, argv=("log", "server.log")
    ),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)

LG011 = Rule(
    code="LG011",
    layer="log",
    severity="error",
    title="The server died with an error argtrace has no signature for",
    rationale=(
        "The traceback and the stage it happened in are still evidence: argtrace shows the exception, the "
        "last "
        "frames and where on the start-up timeline it stopped."
    ),
    fix="Read the exception and the traceback shown; if it is a common failure, add a signature to "
    "argtrace/data/error_signatures.json.",
    example=Example(
        files={
            "server.log": _ARGS + "Traceback (most recent call last):\n"
            '  File "/sgl/srt/managers/scheduler.py", line 10, in run_scheduler_process\n'
            "    raise KeyError(key)\n"
            "KeyError: 'rope_type'\n"
        },
        argv=("log", "server.log"),
    ),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)

LG012 = Rule(
    code="LG012",
    layer="log",
    severity="warning",
    title="Not a server log (empty, binary, or no SGLang/vLLM lines)",
    rationale="An empty file, a binary file or a log without any server line cannot answer what the "
    "server saw.",
    fix="Point argtrace at the file the server writes (the redirect target in the launch script).",
    example=Example(files={"server.log": ""}, argv=("log", "server.log")),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)

LG013 = Rule(
    code="LG013",
    layer="log",
    severity="warning",
    title="An intended setting is absent from the configuration the server logged",
    rationale=(
        "SGLang's dump lists every field: a setting missing from it does not exist in that version (renamed "
        "or "
        "removed). vLLM's `non-default args` lists only values that differ from the defaults: a missing one "
        "was either the default or never arrived."
    ),
    fix="Check the flag name for this framework version (`argtrace check` with --framework-version).",
    example=Example(
        files={"server.log": _GOOD},
        argv=("log", "server.log", "--expect", "mamba_track_interval=128"),
    ),
    correct=Example(
        files={"server.log": _GOOD},
        argv=("log", "server.log", "--expect", "max_running_requests=48"),
    ),
)

LG014 = Rule(
    code="LG014",
    layer="log",
    severity="warning",
    title="A request's KV cache could not move between the prefill and decode servers (PD disaggregation)",
    rationale=(
        "With prefill and decode on separate servers, every request's KV cache crosses from one to the other "
        "through a transfer backend (Mooncake, NIXL). When that transfer fails the request is aborted while "
        "both servers keep running and answering health checks: the launch looks up, and requests fail. The "
        "line that says so is often not the cause: 'from another rank' and 'the prefill instance might be "
        "dead' point at the other rank's or the other server's first error, or at the backend's own lines. "
        "A request the client or router aborted ends the same way and is only a note."
    ),
    fix="Read the first transfer error on both servers and the transfer backend's own lines; check the "
    "RDMA devices (--disaggregation-ib-device), the network between the nodes and that both servers run "
    "settings the backend supports.",
    example=Example(
        files={
            "server.log": _ARGS
            + _READY
            + "[2026-11-29 21:16:10 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='3ce8' "
            "decode_req.req.bootstrap_room=1655 with exception KVTransferError(bootstrap_room=1655): "
            "Failed to get kvcache from prefill instance, it might be dead\n"
        },
        argv=("log", "server.log"),
    ),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)


LG015 = Rule(
    code="LG015",
    layer="log",
    severity="warning",
    title="The router in front of the servers cannot use a worker (unreachable, failing health checks, "
    "none available)",
    rationale=(
        "A router (SGLang's router and model gateway, vLLM's router) sends each request to one of the "
        "servers it was given. When it cannot connect to a worker, the worker fails its health checks, or "
        "no worker of a role is healthy, requests fail with 503 while the servers themselves may run: the "
        "router's own ERROR/WARN lines are the only place that says which worker and why. A worker still "
        "starting while the router waits for it is only a note."
    ),
    fix="Check the worker URLs the router was given (scheme, a host the router reaches, port) against where "
    "each server listens and that each server is up (its /health and its own log).",
    example=Example(
        files={
            "router.log": "2026-10-07 23:31:33 ERROR sglang_router_rs::core::worker: src/core/worker.rs:517: "
            "Failed to connect gRPC client for worker grpc://localhost:20000: transport error\n"
        },
        argv=("log", "router.log"),
    ),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)

LG016 = Rule(
    code="LG016",
    layer="log",
    severity="warning",
    title="Kubernetes events about the server's pod: its container restarts, its probes fail, or it is not "
    "scheduled",
    rationale=(
        "`kubectl get events` and the Events of `kubectl describe pod` are Kubernetes' lines about the pod, "
        "not the server's: they show that the container exits and is restarted (BackOff), that a readiness, "
        "liveness or startup probe finds nothing answering on the server's port (a server still loading, or "
        "dead), that the kubelet killed a container whose probe failed, or that no node can take the pod. "
        "Why the server exits is only in the container's own log of the run before (`kubectl logs "
        "--previous`)."
    ),
    fix="Read the server's log of the failed run (`kubectl logs POD -c CONTAINER --previous`) and give "
    "argtrace that file; when the server was still loading when a probe killed it, allow the start-up more "
    "time (a startupProbe whose failureThreshold x periodSeconds exceeds the load time).",
    example=Example(
        files={
            "events.txt": "LAST SEEN   TYPE      REASON    OBJECT           MESSAGE\n"
            "12s         Warning   BackOff   pod/vllm-0       Back-off restarting failed container vllm in "
            "pod vllm-0_default(1a2b)\n"
        },
        argv=("log", "events.txt"),
    ),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)

LG017 = Rule(
    code="LG017",
    layer="log",
    severity="warning",
    title="The server answered health checks with 200 after it died",
    rationale=(
        "After the launch's fatal error the log shows its HTTP server still answering `/health` with 200: "
        "the process that serves requests is gone, but a probe on /health (Kubernetes readiness or liveness, "
        "a load balancer, a launcher waiting for the server) reads it as healthy and keeps sending it "
        "requests. "
        'SGLang 0.5.10.post1\'s diffusion server answers /health with `{"status": "ok"}` without asking its '
        "scheduler (multimodal_gen/runtime/entrypoints/http_server.py:65); 0.5.23's answers 503 once a "
        "scheduler worker exited (http_server.py:237-245). Only the file's last 64 KiB is read for these "
        "lines."
    ),
    fix="Restart the server; point the probe at an endpoint that sees a dead server (SGLang's "
    "/health_generate runs one token), or use a release whose /health reports the death.",
    example=Example(
        files={
            "server.log": _ARGS
            + "[2026-01-28 08:52:45] Scheduler hit an exception: Traceback (most recent call last):\n"
            '  File "/x/sglang/srt/managers/scheduler.py", line 1, in event_loop_overlap\n'
            "RuntimeError: boom\n"
            '[2026-01-28 08:52:46] INFO:     10.0.0.1:50570 - "GET /health HTTP/1.1" 200 OK\n'
        },
        argv=("log", "server.log"),
    ),
    correct=Example(files={"server.log": _GOOD}, argv=("log", "server.log")),
)
