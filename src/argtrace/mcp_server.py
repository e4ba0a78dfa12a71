"""The MCP server behind ``argtrace mcp``: argtrace's commands as tools for coding agents, over stdio.

Imported only by that command: it imports the official ``mcp`` SDK at module level. No ``from __future__
import annotations`` here: the SDK reads the tools' annotations at run time to build their input schemas,
so the names in them must be real objects.

Each tool runs one argtrace command in a child process (see ``argtrace.agent_tools`` for why), reports
progress while it waits, and answers with the command's JSON as structured content plus a short text
summary; a usage error comes back as a tool error carrying argtrace's own one-line message, and the server
goes on serving.
"""

import json
import os
import signal
import subprocess
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import Field

from argtrace import __version__, agent_tools
from argtrace.agent_tools import Invocation, ToolInputError

# A report is kilobytes; a runaway command must not fill the server's memory.
MAX_OUTPUT_BYTES = 32 * 1024 * 1024
PROGRESS_EVERY_S = 2.0
INSTRUCTIONS = (
    "argtrace answers 'what did the SGLang/vLLM server actually see, and what do I change?'. "
    "Call `check` with the launch command or script before (or after) a failed launch: it follows every "
    "setting through ssh/containers, the shell, the process, the framework's own parser and resolver, the "
    "log and the live server, and returns findings with a code, the place, the evidence and a fix. "
    "`why` explains an error message the server printed; `log` reads a server log; `mem` sizes GPU memory; "
    "`fix` returns the fixes as a unified diff; `rules` explains a finding code. Secrets are redacted."
)


class _Output:
    def __init__(self, status: int, stdout: str, stderr: str) -> None:
        self.status, self.stdout, self.stderr = status, stdout, stderr


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def run_invocation(
    invocation: Invocation, timeout_s: float, progress: Callable[[float, str], Awaitable[None]] | None = None
) -> _Output:
    """Run one argtrace command in its own process group; kill the whole group at the deadline."""
    argv = invocation.argv()
    # The child's stderr is not a terminal, so it prints no progress bars of its own; COLUMNS keeps its
    # text output (rule pages) at a width an agent reads well.
    env = {**os.environ, "COLUMNS": "100"}
    env.pop("ARGTRACE_DEBUG", None)
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    started = time.monotonic()
    out: list[bytes] = []
    err: list[bytes] = []

    def drain() -> None:
        # communicate() reads both pipes without deadlock; it runs in a worker thread so the event loop
        # keeps serving (and sending progress) meanwhile.
        stdout, stderr = process.communicate()
        out.append(stdout[:MAX_OUTPUT_BYTES])
        err.append(stderr[:MAX_OUTPUT_BYTES])

    done = anyio.Event()

    async def wait() -> None:
        await anyio.to_thread.run_sync(drain, abandon_on_cancel=True)
        done.set()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            while not done.is_set():
                elapsed = time.monotonic() - started
                if elapsed > timeout_s:
                    _kill_group(process)
                    group.cancel_scope.cancel()
                    raise ToolInputError(
                        f"argtrace {_command_name(invocation)} took longer than {timeout_s:.0f} s"
                    )
                if progress is not None:
                    # One notification as the command starts, then one every PROGRESS_EVERY_S while it runs.
                    state = f"{elapsed:.0f} s" if elapsed >= PROGRESS_EVERY_S else "started"
                    await progress(elapsed, f"argtrace {_command_name(invocation)}: {state}")
                with anyio.move_on_after(PROGRESS_EVERY_S):
                    await done.wait()
    finally:
        if process.poll() is None:
            _kill_group(process)
    return _Output(
        process.returncode,
        b"".join(out).decode("utf-8", "replace"),
        b"".join(err).decode("utf-8", "replace"),
    )


def _command_name(invocation: Invocation) -> str:
    words = list(invocation.words)
    if words[:1] == ["--host"]:
        words = words[2:]
    return words[0] if words else "?"


def _error_text(output: _Output, invocation: Invocation) -> str:
    lines = [line for line in output.stderr.strip().splitlines() if line.strip()]
    return "\n".join(lines[-5:]) or f"argtrace {_command_name(invocation)} exited with status {output.status}"


# The inputs check and fix share, described once (the SDK turns these into the tools' input schemas).
CommandIn = Annotated[str | None, Field(description="a launch command line, analysed as `bash -c`")]
ScriptIn = Annotated[
    str | None, Field(description="path of a launch script, compose file or Kubernetes manifest")
]
ArgsIn = Annotated[list[str] | None, Field(description="the script's arguments ($1, $2...)")]
FrameworkIn = Annotated[str | None, Field(description="sglang or vllm (default: detected)")]
ReleaseIn = Annotated[str | None, Field(description="the release the server runs, e.g. 0.5.10.post1")]
GpuIn = Annotated[str | None, Field(description="GPU profile NAME[xCOUNT], e.g. h100x8")]
# Called model_config on the wire: pydantic reserves that name for its own use (see _called_by_alias).
ModelConfigIn = Annotated[
    str | None, Field(alias="model_config", description="the model's config.json or its directory")
]
EnvIn = Annotated[dict[str, str] | None, Field(description="variables of the starting environment")]


def _launch(
    command: str | None,
    script: str | None,
    args: list[str] | None,
    framework: str | None,
    framework_version: str | None,
    gpu: str | None,
    model_config: str | None,
    env: dict[str, str] | None,
) -> dict[str, Any]:
    """The launch inputs check and fix share, as ``agent_tools.launch_words`` takes them."""
    return {
        "command": command,
        "script": script,
        "args": args or [],
        "framework": framework,
        "framework_version": framework_version,
        "gpu": gpu,
        "model_config": model_config,
        "env": env,
    }


def _called_by_alias(
    fn: Callable[..., Awaitable[CallToolResult]],
) -> Callable[..., Awaitable[CallToolResult]]:
    """Let a tool take an argument whose wire name pydantic reserves (``model_config``).

    The SDK builds the input schema from the signature (which ``functools.wraps`` hands on, with the
    parameter's ``Field(alias=...)``) and calls the tool with the wire names; this maps them back to the
    parameter names.
    """
    import functools
    import inspect

    aliases: dict[str, str] = {}
    for name, parameter in inspect.signature(fn).parameters.items():
        for meta in getattr(parameter.annotation, "__metadata__", ()):
            alias = getattr(meta, "alias", None)
            if isinstance(alias, str):
                aliases[alias] = name

    @functools.wraps(fn)
    async def call(**kwargs: Any) -> CallToolResult:
        return await fn(**{aliases.get(key, key): value for key, value in kwargs.items()})

    return call


def build_server(timeout_s: float) -> Any:
    """The MCP server with argtrace's tools; nothing runs until a client calls one."""
    server: Any = MCPServer(name="argtrace", version=__version__, instructions=INSTRUCTIONS)

    async def call(
        ctx: Context | None, make: Callable[[], Invocation], summarize: Callable[[dict[str, Any]], str] | None
    ) -> CallToolResult:
        try:
            invocation = make()

            async def progress(elapsed: float, message: str) -> None:
                if ctx is not None:
                    await ctx.report_progress(elapsed, None, message)

            output = await run_invocation(invocation, timeout_s, progress)
        except ToolInputError as exc:
            raise ToolError(str(exc)) from None
        # check/log exit 1 when they found errors: that is an answer, not a failure of the tool.
        if output.status not in (0, 1) or (invocation.json_output and not output.stdout.strip()):
            raise ToolError(_error_text(output, invocation))
        if not invocation.json_output:
            # `fix` prints the diff on stdout and, on stderr, what each finding's fix became (fixed, not
            # verified, no edit): the agent needs both.
            text = "\n".join(part.strip("\n") for part in (output.stdout, output.stderr) if part.strip())
            return CallToolResult(content=[TextContent(type="text", text=text or "nothing to fix")])
        try:
            data = json.loads(output.stdout)
        except ValueError:
            raise ToolError(f"argtrace {_command_name(invocation)} printed no JSON") from None
        if not isinstance(data, dict):
            data = {"result": data}
        text = summarize(data) if summarize else json.dumps(data, indent=1)[:4000]
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)

    @server.tool(
        description="Check an SGLang/vLLM launch: what each layer (transport, shell, process, parser, "
        "resolution, log, live, memory) does to every setting, and findings with fixes. Give `command` "
        "(a command line, run as bash -c) or `script` (a path) with its `args`."
    )
    @_called_by_alias
    async def check(
        command: CommandIn = None,
        script: ScriptIn = None,
        args: ArgsIn = None,
        framework: FrameworkIn = None,
        framework_version: ReleaseIn = None,
        gpu: GpuIn = None,
        model_config_path: ModelConfigIn = None,
        log: Annotated[str | None, Field(description="the server's log, to compare with the launch")] = None,
        url: Annotated[
            str | None, Field(description="the running server's URL, to compare with the launch")
        ] = None,
        env: EnvIn = None,
        host: Annotated[
            str | None, Field(description="[USER@]HOST: check the launch as that node sees it, over ssh")
        ] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        launch = _launch(command, script, args, framework, framework_version, gpu, model_config_path, env)

        def make() -> Invocation:
            return agent_tools.check_invocation(host=host, log=log, url=url, **launch)

        return await call(ctx, make, agent_tools.summarize_check)

    @server.tool(
        description="The fixes for a launch as a unified diff (apply with `patch -p0` from the working "
        "directory); only fixes verified by re-checking are included. `write: true` edits the files in place "
        "(keeping FILE.orig)."
    )
    @_called_by_alias
    async def fix(
        command: CommandIn = None,
        script: ScriptIn = None,
        args: ArgsIn = None,
        framework: FrameworkIn = None,
        framework_version: ReleaseIn = None,
        gpu: GpuIn = None,
        model_config_path: ModelConfigIn = None,
        env: EnvIn = None,
        write: Annotated[bool, Field(description="apply the verified edits to the files")] = False,
        ctx: Context | None = None,
    ) -> CallToolResult:
        launch = _launch(command, script, args, framework, framework_version, gpu, model_config_path, env)

        def make() -> Invocation:
            return agent_tools.fix_invocation(write=write, log=None, url=None, **launch)

        return await call(ctx, make, None)

    @server.tool(
        description="Explain an error message an SGLang/vLLM server printed: where the framework "
        "raises it, under which condition, the settings that decide it, and how to avoid it."
    )
    async def why(
        message: Annotated[str, Field(description="the error text (or a literal part of it)")],
        framework: Annotated[str | None, Field(description="sglang or vllm (default: both)")] = None,
        framework_version: Annotated[str | None, Field(description="only this release")] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return await call(
            ctx,
            lambda: agent_tools.why_invocation(message, framework, framework_version),
            agent_tools.summarize_why,
        )

    @server.tool(
        description="Read an SGLang/vLLM server log: its launches, the configuration it logged, "
        "the start-up timeline and the errors explained."
    )
    async def log(
        path: Annotated[str, Field(description="the log file (plain or .gz)")],
        launch: Annotated[
            str | None, Field(description="which launch of an append-mode log: N, -1 or all")
        ] = None,
        host: Annotated[
            str | None, Field(description="[USER@]HOST: read the log on that node, over ssh")
        ] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return await call(
            ctx,
            lambda: agent_tools.log_invocation(path, host, launch),
            lambda report: agent_tools.summarize_findings(report, "log"),
        )

    @server.tool(
        description="Line up several running SGLang/vLLM replicas (server URLs, nodes over ssh, pods by "
        "label selector) by model and role, and report the settings they disagree on and the targets that "
        "did not answer."
    )
    async def fleet(
        urls: Annotated[list[str] | None, Field(description="servers' base URLs")] = None,
        hosts: Annotated[
            list[str] | None, Field(description="[USER@]HOST nodes whose server processes are read over ssh")
        ] = None,
        kube_selector: Annotated[
            str | None,
            Field(description="a label selector: read the matching pods through the Kubernetes API"),
        ] = None,
        context: Annotated[str | None, Field(description="the kubeconfig context")] = None,
        namespace: Annotated[str | None, Field(description="the Kubernetes namespace")] = None,
        intent: Annotated[
            str | None, Field(description="a launch file to compare every replica with")
        ] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return await call(
            ctx,
            lambda: agent_tools.fleet_invocation(
                urls or (), hosts or (), kube_selector, context, namespace, intent
            ),
            lambda report: agent_tools.summarize_findings(report, "fleet"),
        )

    @server.tool(
        description="Will this model fit in GPU memory with these server flags, and which settings "
        "make it fit (weights, KV cache, Mamba state, draft model)."
    )
    @_called_by_alias
    async def mem(
        model_config_path: Annotated[
            str, Field(alias="model_config", description="the model's config.json or its directory")
        ],
        gpu: Annotated[str | None, Field(description="GPU profile NAME[xCOUNT] (default h100)")] = None,
        framework: Annotated[str | None, Field(description="sglang or vllm (default sglang)")] = None,
        framework_version: Annotated[
            str | None, Field(description="the release whose formulas to use")
        ] = None,
        flags: Annotated[
            list[str] | None, Field(description='the server flags, e.g. ["--tp-size", "2"]')
        ] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return await call(
            ctx,
            lambda: agent_tools.mem_invocation(
                model_config_path, gpu, framework, framework_version, flags or []
            ),
            lambda report: agent_tools.summarize_findings(report, "memory"),
        )

    @server.tool(
        description="The finding codes argtrace emits; with `code`, that rule's page (what it "
        "finds, why it matters, an example, the fix)."
    )
    async def rules(
        code: Annotated[str | None, Field(description="a finding code such as SH004")] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        if code:
            page = await call(ctx, lambda: agent_tools.rule_page_invocation(code), None)
            listing = await call(ctx, lambda: agent_tools.rules_invocation(code), None)
            page.structured_content = {
                "rules": listing.structured_content.get("result") if listing.structured_content else []
            }
            return page
        return await call(
            ctx,
            lambda: agent_tools.rules_invocation(None),
            lambda data: "\n".join(
                f"{r['code']} {r['layer']} {r['severity']}: {r['title']}" for r in data.get("result", [])
            ),
        )

    _redact_tool_errors(server)
    return server


def tool_error_text(text: str, arguments: Any) -> str:
    """A tool error's text with the secrets of the call's own arguments masked. The SDK writes a rejected
    argument's value into its validation error (``input_value=['HF_TOKEN=...']``) before argtrace runs:
    session 13's probe saw an ``env`` secret come back that way."""
    from argtrace.redact import Redactor

    redactor = Redactor()
    values = arguments.values() if isinstance(arguments, dict) else [arguments]
    for value in values:
        items = value if isinstance(value, list) else [value]
        words = [item for item in items if isinstance(item, str)]
        redactor.learn_argv(words)
        for word in words:
            redactor.learn_command_line(word)
            name, eq, secret = word.partition("=")
            if eq:
                redactor.learn_env({name: secret})
        if isinstance(value, dict):
            redactor.learn_env({str(k): v for k, v in value.items() if isinstance(v, str)})
            redactor.learn_data(value)
    return redactor.text(text)


def _redact_tool_errors(server: Any) -> None:
    """Every tool error leaves through :func:`tool_error_text` (the SDK's ``_handle_call_tool`` calls
    ``server.call_tool`` and sends the error's text as the result)."""
    original = server.call_tool

    async def call_tool(name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await original(name, arguments, context)
        except ToolError as exc:
            text = tool_error_text(str(exc), arguments)
            if text == str(exc):
                raise
            raise type(exc)(text) from exc.__cause__

    server.call_tool = call_tool
