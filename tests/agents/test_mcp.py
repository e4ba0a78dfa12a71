"""``argtrace mcp`` driven by the official SDK's own client, over stdio, as a coding agent drives it.

One real server process per test module (spawned by ``mcp.Client`` from ``StdioServerParameters``); each
tool is called with a real case and asserted on its content, and malformed calls must come back as tool
errors while the server keeps serving.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from argtrace import agent_tools  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "launch_mtp.sh"
LLAMA_8B = ROOT / "tests" / "data" / "models" / "llama-3.1-8b"
OOM_LOG = ROOT / "tests" / "data" / "logs" / "sglang_issue5285_cuda_graph_oom.log"
SECRET = "sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0"


def _params() -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("ARGTRACE_DEBUG", None)
    return StdioServerParameters(
        command=sys.executable, args=["-m", "argtrace", "mcp"], env=env, cwd=str(ROOT)
    )


def _session(body: Callable[[Any], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(_params()) as client:
            await body(client)

    anyio.run(main)


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def test_lists_every_tool_with_documented_inputs() -> None:
    async def body(client: Any) -> None:
        listed = await client.list_tools()
        tools = {tool.name: tool for tool in listed.tools}
        assert sorted(tools) == ["check", "fix", "fleet", "log", "mem", "rules", "why"]
        check = tools["check"].input_schema["properties"]
        for name in (
            "command",
            "script",
            "args",
            "framework_version",
            "gpu",
            "model_config",
            "log",
            "url",
            "host",
        ):
            assert check[name]["description"], name
        assert tools["why"].input_schema["required"] == ["message"]
        assert tools["mem"].input_schema["required"] == ["model_config"]

    _session(body)


def test_check_the_shipped_example_names_its_cause() -> None:
    async def body(client: Any) -> None:
        result = await client.call_tool("check", {"script": str(EXAMPLE.relative_to(ROOT))})
        assert result.is_error is False
        report = result.structured_content
        assert report["command"] == "check"
        codes = [f["code"] for f in report["findings"]]
        assert "SH004" in codes
        sh004 = next(f for f in report["findings"] if f["code"] == "SH004")
        assert sh004["at"].startswith("examples/launch_mtp.sh:")
        summary = _text(result)
        # The causes come first in the summary, each with its fix.
        assert summary.splitlines()[0] == "framework: sglang unknown (analysed as 0.5.19) (from none)"
        assert f"ERROR SH004 {sh004['at']}: {sh004['message']}" in summary
        # argtrace re-checked the edited script: the fix is marked verified
        assert sh004["fix_verified"] is True
        assert f"  fix (verified by re-checking): {sh004['fix']}" in summary

    _session(body)


def test_check_a_command_redacts_its_secret_and_reads_the_gpu() -> None:
    async def body(client: Any) -> None:
        command = f"python -m sglang.launch_server --model-path m --tp-size 2 --api-key {SECRET}"
        result = await client.call_tool(
            "check", {"command": command, "gpu": "h100x2", "framework_version": "0.5.10.post1"}
        )
        assert result.is_error is False
        wire = json.dumps(result.structured_content) + _text(result)
        assert SECRET not in wire
        assert "<redacted:" in wire
        assert result.structured_content["framework"]["version"] == "0.5.10.post1"
        assert result.structured_content["framework"]["source"] == "bundled-schema"
        tp = next(s for s in result.structured_content["settings"] if s["name"] == "tp_size")
        assert tp["effective"] == 2

    _session(body)


def test_fix_returns_the_verified_diff_and_writes_nothing(tmp_path: Path) -> None:
    before = EXAMPLE.read_bytes()

    async def body(client: Any) -> None:
        result = await client.call_tool("fix", {"script": str(EXAMPLE.relative_to(ROOT))})
        assert result.is_error is False
        text = _text(result)
        lines = text.splitlines()
        assert lines[:2] == ["--- examples/launch_mtp.sh", "+++ examples/launch_mtp.sh"]
        assert (
            "-    # MTP on a hybrid Mamba model needs the extra buffer (it doubles the Mamba state cache)"
            in lines
        )
        assert any(
            line.startswith("fixed: SH004 examples/launch_mtp.sh:27:5: Move the comment") for line in lines
        )

    _session(body)
    assert EXAMPLE.read_bytes() == before


def test_a_call_reports_progress_to_a_client_that_asks() -> None:
    async def body(client: Any) -> None:
        seen: list[tuple[float, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, message))

        result = await client.call_tool("rules", {}, progress_callback=on_progress)
        assert result.is_error is False
        assert seen, "no progress notification"
        assert seen[0][1] == "argtrace rules: started"

    _session(body)


def test_malformed_calls_are_tool_errors_and_the_server_keeps_serving() -> None:
    async def body(client: Any) -> None:
        both = await client.call_tool("check", {"command": "true", "script": "x.sh"})
        assert both.is_error is True
        assert "give exactly one of `command`" in _text(both)
        usage = await client.call_tool("check", {"command": "python -m sglang.launch_server", "gpu": "h900"})
        assert usage.is_error is True
        assert "argtrace check: --gpu" in _text(usage)
        wrong_type = await client.call_tool("why", {"message": 42})
        assert wrong_type.is_error is True
        missing = await client.call_tool("log", {"path": "/nonexistent/server.log"})
        assert missing.is_error is True
        assert "/nonexistent/server.log" in _text(missing)
        # Still serving after four failures.
        again = await client.call_tool("rules", {"code": "SH004"})
        assert again.is_error is False
        assert _text(again).startswith("# SH004:")

    _session(body)


def test_why_log_mem_and_rules_answer_real_cases() -> None:
    async def body(client: Any) -> None:
        why = await client.call_tool(
            "why",
            {
                "message": "ValueError: mamba extra_buffer is not compatible with --disable-radix-cache",
                "framework": "sglang",
            },
        )
        assert why.is_error is False
        first = why.structured_content["why"]["matches"][0]
        assert first["function"] == "ServerArgs._handle_mamba_radix_cache"
        assert _text(why).startswith("sglang ServerArgs._handle_mamba_radix_cache (")

        log = await client.call_tool("log", {"path": str(OOM_LOG)})
        assert log.is_error is False
        assert [f["code"] for f in log.structured_content["findings"]][:1] == ["LG003"]
        assert _text(log).splitlines()[0].startswith("log: ")

        mem = await client.call_tool(
            # a count the user wrote (a bare `h100` is as many as the launch needs)
            "mem",
            {"model_config": str(LLAMA_8B), "gpu": "h100x1", "flags": ["--tp-size", "2"]},
        )
        assert mem.is_error is False
        mm007 = next(f for f in mem.structured_content["findings"] if f["code"] == "MM007")
        assert mm007["message"] == "the launch needs 2 GPUs (tp 2 x dp x pp) but --gpu h100 has 1"
        assert f"ERROR MM007: {mm007['message']}" in _text(mem)

        rules = await client.call_tool("rules", {})
        assert rules.is_error is False
        codes = [r["code"] for r in rules.structured_content["result"]]
        assert "SH004" in codes and "MM007" in codes

    _session(body)


def test_invocations_put_host_first_and_keep_command_words_after_dash_c() -> None:
    check = agent_tools.check_invocation(
        host="gpu-node",
        command="python -m sglang.launch_server --port 30000",
        script=None,
        args=["a b"],
        framework=None,
        framework_version="0.5.23",
        gpu=None,
        model_config=None,
        log=None,
        url=None,
        env={"HF_TOKEN": "x"},
    )
    assert check.words == (
        "--host", "gpu-node", "check", "--format", "json", "--framework-version", "0.5.23",
        "--env", "HF_TOKEN=x", "-c", "python -m sglang.launch_server --port 30000", "--", "a b",
    )  # fmt: skip
    assert agent_tools.why_invocation("--tp-size must be").words == (
        "why",
        "--format",
        "json",
        "--",
        "--tp-size must be",
    )
    with pytest.raises(agent_tools.ToolInputError, match="not a variable name"):
        agent_tools.launch_words(
            command="x", script=None, args=(), framework=None, framework_version=None, gpu=None,
            model_config=None, log=None, url=None, env={"A=B": "c"},
        )  # fmt: skip


def test_fleet_reports_the_drift_of_two_servers() -> None:
    from tests.live.fixture_server import serve_fixture

    with (
        serve_fixture("sglang-0.5.10.post1") as one,
        serve_fixture("sglang-0.5.10.post1-context-32k") as two,
    ):

        async def body(client: Any) -> None:
            result = await client.call_tool("fleet", {"urls": [one.url, two.url]})
            assert result.is_error is False
            report = result.structured_content
            assert [d["setting"] for d in report["drift"]] == ["context_length"]
            lines = _text(result).splitlines()
            assert lines[0] == "fleet: 1 finding(s)"
            assert lines[1].startswith(f"WARNING LV050 {two.url}/server_info#/context_length: the 2 replicas")
            missing = await client.call_tool("fleet", {})
            assert missing.is_error is True
            assert "at least one target" in _text(missing)

        _session(body)
