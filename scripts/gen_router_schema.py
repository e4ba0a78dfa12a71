#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/sglang_router.json: the router flags ``python -m
sglang_router.launch_server`` adds to SGLang's server flags, from a sglang-router wheel.

``sglang_router/launch_server.py`` builds one argparse parser: ``ServerArgs.add_cli_args(parser)``, then
``RouterArgs.add_cli_args(parser, use_router_prefix=True, exclude_host_port=True)`` (every router flag
spelled ``--router-*``), then its own ``parser.add_argument(...)`` calls. This script runs that
``RouterArgs.add_cli_args`` on an empty parser in a subprocess (``router_args.py`` extracted from the
wheel; its one import of the Rust extension, ``get_available_tool_call_parsers``, is stubbed), takes the
launcher's own ``add_argument`` calls by AST, and records each option's strings, action, nargs and choices.

  pip download sglang-router==0.3.2 --no-deps -d /tmp/wh
  python scripts/gen_router_schema.py /tmp/wh/sglang_router-0.3.2-*.whl
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/frameworks/data/sglang_router.json"

_DUMP = """
import argparse, json, sys
sys.path.insert(0, sys.argv[1])
from sglang_router.router_args import RouterArgs
p = argparse.ArgumentParser(add_help=False)
RouterArgs.add_cli_args(p, use_router_prefix=True, exclude_host_port=True)
out = []
for a in p._actions:
    out.append({"flags": list(a.option_strings), "dest": a.dest, "action": type(a).__name__,
                "nargs": a.nargs if not isinstance(a.nargs, int) else a.nargs,
                "choices": list(a.choices) if a.choices is not None else None})
print(json.dumps(out))
"""


def _launcher_options(source: str) -> list[dict[str, object]]:
    """``parser.add_argument("--x", ...)`` calls in launch_server.py's ``main``, by AST."""
    out: list[dict[str, object]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == "main":
            for call in ast.walk(node):
                if not (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "add_argument"
                ):
                    continue
                flags = [
                    a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                ]
                kw = {k.arg: k.value for k in call.keywords}
                action = kw.get("action")
                name = action.value if isinstance(action, ast.Constant) else None
                nargs = kw.get("nargs")
                out.append(
                    {
                        "flags": flags,
                        "dest": flags[0].lstrip("-").replace("-", "_"),
                        "action": {"store_true": "_StoreTrueAction", "store_false": "_StoreFalseAction"}.get(
                            str(name), "_StoreAction"
                        ),
                        "nargs": nargs.value if isinstance(nargs, ast.Constant) else None,
                        "choices": None,
                    }
                )
    return out


def main() -> int:
    wheel = Path(sys.argv[1])
    version = wheel.name.split("-")[1]
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
        pkg = Path(tmp) / "sglang_router"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        (pkg / "router_args.py").write_bytes(z.read("sglang_router/router_args.py"))
        # the Rust extension: only its list of tool-call parsers is imported (choices of one flag)
        (pkg / "sglang_router_rs.py").write_text("def get_available_tool_call_parsers():\n    return []\n")
        dumped = subprocess.run(
            [sys.executable, "-c", _DUMP, tmp], capture_output=True, text=True, check=True, timeout=60
        )
        options = json.loads(dumped.stdout)
        launcher = _launcher_options(z.read("sglang_router/launch_server.py").decode())
    options = [o for o in options + launcher if o["flags"]]
    data = {
        "package": f"sglang-router {version}",
        "generated_by": "scripts/gen_router_schema.py",
        "options": sorted(options, key=lambda o: str(o["flags"][0])),  # type: ignore[index]
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}: {len(options)} router options of sglang-router {version}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
