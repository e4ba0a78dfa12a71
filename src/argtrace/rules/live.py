"""Rules of the live layer (``LV``): what a running server reports, compared with what was meant.

Examples that need a running server declare ``needs=("http-fixture:NAME",)``: the rule test serves
``tests/live/fixtures/NAME.json`` (endpoint path -> status and body, recorded in the shapes of the named
framework version) on ``127.0.0.1`` and replaces ``{url}`` in ``argv`` by its base URL (see
``tests/live/fixture_server.py``).
"""

from __future__ import annotations

from argtrace.rules import Example, Rule

_SG10 = "http-fixture:sglang-0.5.10.post1"

LV001 = Rule(
    code="LV001",
    layer="live",
    severity="error",
    title="server unreachable",
    rationale="Nothing answered at the URL: the connection was refused, timed out or the host does not "
    "resolve. "
    "A server that is still loading a 27B model refuses connections for minutes; one that crashed during "
    "argument resolution never listens at all, so nothing it was given can be checked.",
    fix="Check the host and port (`--port` of the launch), wait for the model to load (the log says "
    "`The server is fired up`), or look at the startup log with `argtrace log`.",
    example=Example(argv=["live", "http://127.0.0.1:1"]),
    correct=Example(argv=["live", "{url}"], needs=(_SG10,)),
)

LV002 = Rule(
    code="LV002",
    layer="live",
    severity="error",
    title="a server of the other framework answers",
    rationale="The URL is served by vLLM while the launch starts SGLang (or the reverse): a second server on "
    "the same node holds the port, so every comparison would be against the wrong process.",
    fix="Point `--url` at the port the launch passes to `--port`, or stop the other server.",
    example=Example(argv=["live", "{url}", "--framework", "sglang"], needs=("http-fixture:vllm-0.33.0",)),
    correct=Example(argv=["live", "{url}", "--framework", "vllm"], needs=("http-fixture:vllm-0.33.0",)),
)

LV003 = Rule(
    code="LV003",
    layer="live",
    severity="error",
    title="not a JSON answer from the server",
    rationale="The endpoint answered with an HTML page, a non-JSON body or a server error: a "
    "reverse proxy, a "
    "load balancer's error page or an unrelated service is on that port, not the inference server.",
    fix="Query the server directly (its own host and `--port`), not through the proxy, "
    "or fix the proxy route.",
    example=Example(argv=["live", "{url}"], needs=("http-fixture:html-proxy",)),
    correct=Example(argv=["live", "{url}"], needs=(_SG10,)),
)

LV004 = Rule(
    code="LV004",
    layer="live",
    severity="error",
    title="the server requires an API key",
    rationale="The server was started with `--api-key` and refuses unauthenticated requests (HTTP 401), or "
    "the key given is not the one it was started with; its configuration cannot be read.",
    fix="Pass `--api-key KEY` (with `check --url`, the launch's own `--api-key` is used "
    "automatically). The key "
    "is sent as a bearer token and never printed.",
    example=Example(argv=["live", "{url}"], needs=("http-fixture:sglang-0.5.10.post1-apikey",)),
    correct=Example(
        argv=["live", "{url}", "--api-key", "sk-argtrace-fixture-key-0000000000"],
        needs=("http-fixture:sglang-0.5.10.post1-apikey",),
    ),
)

LV005 = Rule(
    code="LV005",
    layer="live",
    severity="error",
    title="the running server has a different value than intended",
    rationale="The value the user wrote is not what the server reports: the flag never arrived, was "
    "overridden during resolution, or the server running is an older launch than the script.",
    fix="Follow the setting's history (`argtrace check SCRIPT --url URL`) to the layer where it changed, and "
    "restart the server with the corrected launch.",
    example=Example(
        argv=["live", "{url}", "--expect", "mamba_scheduler_strategy=extra_buffer"], needs=(_SG10,)
    ),
    correct=Example(argv=["live", "{url}", "--expect", "mamba_scheduler_strategy=no_buffer"], needs=(_SG10,)),
)

LV006 = Rule(
    code="LV006",
    layer="live",
    severity="warning",
    title="a DP rank's scheduler runs with a different value than the top level",
    rationale="SGLang's `/server_info` top level is the HTTP process's copy of the arguments; each entry of "
    "`internal_states` is a scheduler's own copy. In 0.5.10 the model runner rewrites the attention backend, "
    "CUDA graph, chunked prefill and KV cache dtype inside the scheduler after the `server_args=` line is "
    "logged, so the log and the top level both show a value the model does not run with.",
    fix="Trust `internal_states`; set the value explicitly (e.g. `--attention-backend`, `--kv-cache-dtype`) "
    "so the model runner has nothing to choose, or accept the model-specific adjustment.",
    example=Example(argv=["live", "{url}"], needs=(_SG10,)),
    correct=Example(argv=["live", "{url}"], needs=("http-fixture:sglang-0.5.23",)),
)

LV007 = Rule(
    code="LV007",
    layer="live",
    severity="info",
    title="capacity the server actually has",
    rationale="The KV token capacity and the admitted concurrency are known only after the weights are "
    "loaded and the memory profiled: they decide throughput more than any flag.",
    fix="Nothing to fix; raise `--mem-fraction-static` / `--gpu-memory-utilization` or add GPUs for more.",
    example=Example(argv=["live", "{url}"], needs=(_SG10,)),
    exceptions="Informational: always reported when the server publishes its capacity.",
)

LV008 = Rule(
    code="LV008",
    layer="live",
    severity="warning",
    title="max_running_requests capped by the scheduler",
    rationale="The schedulers admit fewer concurrent requests than `--max-running-requests` asks for: the KV "
    "pool is too small for that many requests (or speculative decoding lowered it). Load tests then queue "
    "requests that the configuration promised to run.",
    fix="Lower `--max-running-requests` to what is admitted, or give the KV cache more memory "
    "(`--mem-fraction-static`, a smaller `--context-length`, more GPUs).",
    example=Example(argv=["live", "{url}", "--expect", "max_running_requests=512"], needs=(_SG10,)),
    correct=Example(argv=["live", "{url}", "--expect", "max_running_requests=48"], needs=(_SG10,)),
)

LV009 = Rule(
    code="LV009",
    layer="live",
    severity="error",
    title="TLS certificate not trusted",
    rationale="The server speaks HTTPS (`--ssl-certfile`) with a certificate this machine does not trust "
    "(self-signed, or issued for another host name).",
    fix="Pass `--insecure` to skip verification for this read-only check, or install the CA certificate.",
    example=Example(argv=["live", "{url}"], needs=("https-fixture:sglang-0.5.10.post1",)),
    correct=Example(argv=["live", "{url}", "--insecure"], needs=("https-fixture:sglang-0.5.10.post1",)),
)

LV010 = Rule(
    code="LV010",
    layer="live",
    severity="info",
    title="limited view of the server's configuration",
    rationale="The full configuration endpoint is missing: vLLM serves `/server_info` only with "
    "`VLLM_SERVER_DEV_MODE=1`; an SGLang build without `/server_info` answers only the deprecated "
    "`/get_server_info`. Fewer settings can be compared.",
    fix="Start vLLM with `VLLM_SERVER_DEV_MODE=1` on a trusted network to expose `/server_info`.",
    example=Example(argv=["live", "{url}"], needs=("http-fixture:vllm-0.33.0",)),
    correct=Example(argv=["live", "{url}"], needs=("http-fixture:vllm-0.33.0-devmode",)),
)

LV011 = Rule(
    code="LV011",
    layer="live",
    severity="warning",
    title="the running server is another framework version",
    rationale="The running server reports a different version than the one the static analysis assumed, so "
    "flags, defaults and rewrites were predicted for the wrong release (another venv, an older container).",
    fix="Pass `--framework-version` with the running version, or restart the server from the intended "
    "environment.",
    example=Example(argv=["live", "{url}", "--framework-version", "0.5.23"], needs=(_SG10,)),
    correct=Example(argv=["live", "{url}", "--framework-version", "0.5.10.post1"], needs=(_SG10,)),
)
