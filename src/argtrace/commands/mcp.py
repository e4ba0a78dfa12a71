"""``argtrace mcp``: argtrace as a Model Context Protocol server over stdio, for coding agents.

The server itself is ``argtrace.mcp_server`` (imported here only, inside ``run``: it loads the ``mcp`` SDK).
"""

from __future__ import annotations

import argparse

NAME = "mcp"
HELP = "serve argtrace's commands to coding agents over the Model Context Protocol (stdio)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="the longest one tool call may take (default 600)",
    )


def run(args: argparse.Namespace) -> int:
    from argtrace.agent_tools import DEFAULT_TIMEOUT_S

    if getattr(args, "host", None):
        from argtrace.model import UsageError

        raise UsageError("--host: give it per tool call (the `host` argument), not to the server")
    from argtrace.mcp_server import build_server

    server = build_server(args.timeout or DEFAULT_TIMEOUT_S)
    server.run("stdio")
    return 0
