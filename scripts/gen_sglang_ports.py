#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/sglang_ports.json: for each SGLang release read, the ports its server
reserves at start and how each is derived, from the release's own ``srt/server_args.py`` (``ast``, never
imported).

``PortArgs.init_new`` checks each port it will bind with ``wait_port_available(port, "metrics_port")``,
which raises "metrics_port at 40290 is not available in 30 seconds. metrics_port is used by a process
already" when another process holds it (gpustack#5842: another SGLang server). The check reads only the
process table, so ``why`` said "make the condition false: change SGLANG_WAIT_PORT_TIMEOUT"; what sets the
port is the derivation: ``metrics_port = port_base + 3``, ``port_base = dist_init_port + 1``, the
dist-init port from ``--dist-init-addr`` or ``--port`` plus ``ZMQ_TCP_PORT_DELTA``. Per release: each port
name the function waits for, with its offset from the dist-init port when the chain is a sum of constants;
the assignments of the dist-init port as written; the delta's value; the ``server_args`` fields the
function reads for them. Nothing is typed by hand.

    python scripts/gen_sglang_ports.py [--wheels DIR] [--check]

The wheels are the resolver environments' (``~/.cache/argtrace/resolvers/wheels`` by default): every
``sglang-*.whl`` there is read; ``--check`` regenerates from the releases the bundled file holds and compares.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "sglang_ports.json"
_SUM = re.compile(r"^(?P<base>\w+) \+ (?P<k>\d+)$")


def _function(tree: ast.Module) -> ast.FunctionDef | None:
    """The function that calls ``wait_port_available`` with a port name (``PortArgs.init_new``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "wait_port_available":
                    if len(call.args) == 2 and isinstance(call.args[1], ast.Constant):
                        return node
    return None


def read_release(wheel: Path) -> tuple[str, dict[str, Any]]:
    release, _, texts = wheel_modules(wheel, lambda m: m == "sglang/srt/server_args.py", "sglang")
    tree = ast.parse(texts["sglang/srt/server_args.py"])
    delta = next(
        (
            node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and getattr(node.targets[0], "id", None) == "ZMQ_TCP_PORT_DELTA"
            and isinstance(node.value, ast.Constant)
        ),
        None,
    )
    function = _function(tree)
    if function is None:
        return release, {}
    assigned: dict[str, list[str]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, []).append(ast.unparse(node.value))
    waited: dict[str, Any] = {}
    for call in ast.walk(function):
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "wait_port_available":
            if len(call.args) == 2 and isinstance(call.args[1], ast.Constant):
                name, var = str(call.args[1].value), ast.unparse(call.args[0])
                offset, at, seen = 0, var, 0
                while at != "dist_init_port" and seen < 6:  # follow "x = y + k" to the dist-init port
                    # a port assigned in several branches: the sum on the dist-init port, else the first sum
                    # (0.5.23's port_base: dist_init_port + 1 unless a port overflows or an EP joiner)
                    sums = [m for e in assigned.get(at, []) if (m := _SUM.match(e))]
                    sums.sort(key=lambda m: m.group("base") != "dist_init_port")
                    if not sums:
                        break
                    offset, at, seen = offset + int(sums[0].group("k")), sums[0].group("base"), seen + 1
                waited[name] = offset if at == "dist_init_port" else ast.unparse(call.args[0])
    fields = sorted(
        {
            n.attr
            for n in ast.walk(function)
            if isinstance(n, ast.Attribute) and ast.unparse(n.value) == "server_args"
        }
        & {"port", "dist_init_addr", "nccl_port", "nnodes", "enable_dp_attention"}
    )
    return release, {
        "function": function.name,
        "waited": waited,
        "dist_init_port": assigned.get("dist_init_port", []),
        "delta": delta,
        "fields": fields,
    }


def build(wheels: list[Path]) -> dict[str, Any]:
    releases: dict[str, Any] = {}
    for wheel in sorted(wheels):
        release, facts = read_release(wheel)
        releases[release] = {"wheel": wheel.name, **facts}
    return {
        "about": "per SGLang release: the ports PortArgs.init_new waits for (wait_port_available), each with "
        "its offset from the dist-init port (or its expression), how the dist-init port is assigned, "
        "ZMQ_TCP_PORT_DELTA, the server_args fields read",
        "generated_by": "scripts/gen_sglang_ports.py",
        "releases": releases,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, default=Path.home() / ".cache/argtrace/resolvers/wheels")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    wheels = sorted(args.wheels.glob("sglang-*.whl"))
    if args.check and OUT.is_file():
        named = {r["wheel"] for r in json.loads(OUT.read_text())["releases"].values()}
        wheels = [p for p in wheels if p.name in named]
    return write_or_check(OUT, build(wheels), "scripts/gen_sglang_ports.py", check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
