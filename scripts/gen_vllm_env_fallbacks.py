#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_env_fallbacks.json: the ``VLLM_*`` variables each bundled vLLM
release reads in place of a command-line setting, read from the release's own source.

vLLM's API server takes some settings from the command line or, when the flag is not given, from a variable:
``token = envs.VLLM_API_KEY or args.api_key`` (0.6.6.post1, vllm/entrypoints/openai/api_server.py), ``tokens
= [key for key in (args.api_key or [envs.VLLM_API_KEY]) if key]`` (0.11.2; 0.33.0 in
vllm/entrypoints/serve/middleware/register.py). A variable set in the server's environment (a ``.bashrc``
``export``, vllm#22407) then changes what the server does with no flag in the command. Each ``or`` whose
operands are, one, ``args.<dest>`` (or ``self.args.<dest>``) and, another, ``envs.VLLM_<NAME>`` (alone or in
a list) is one fallback: the operand written first wins when it is set (``or`` takes its first true value).
Files under vllm/entrypoints/ are read (the server's front end, where ``args`` is the parsed namespace); the
CLI's other commands (vllm/entrypoints/cli/, a client's ``--api-key``) are not the server's. Nothing is
typed by hand.

    python scripts/gen_vllm_env_fallbacks.py [--wheels DIR] [--check]
"""

from __future__ import annotations

import argparse
import ast
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test

from argtrace.frameworks.schema import bundled_versions, version_key  # noqa: E402
from argtrace.resolver import environments  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_env_fallbacks.json"
GENERATOR = "scripts/gen_vllm_env_fallbacks.py"
SERVER_FILES = "vllm/entrypoints/"
NOT_SERVER = ("vllm/entrypoints/cli/",)


def _arg_dest(node: ast.AST) -> str | None:
    """``args.<dest>`` or ``<x>.args.<dest>``: the parsed namespace's field."""
    if not isinstance(node, ast.Attribute):
        return None
    owner = node.value
    if isinstance(owner, ast.Name) and owner.id == "args":
        return node.attr
    if isinstance(owner, ast.Attribute) and owner.attr == "args":
        return node.attr
    return None


def _env_var(node: ast.AST) -> str | None:
    """``envs.VLLM_X``, alone or as the only item of a list (``[envs.VLLM_API_KEY]``)."""
    if isinstance(node, ast.List) and len(node.elts) == 1:
        node = node.elts[0]
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "envs"
        and node.attr.startswith("VLLM_")
    ):
        return node.attr
    return None


def fallbacks(source: str, path: str) -> list[dict[str, Any]]:
    """Each ``or`` of a namespace field and a ``VLLM_*`` variable in ``source``."""
    out: list[dict[str, Any]] = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)):
            continue
        dests = [(i, d) for i, v in enumerate(node.values) if (d := _arg_dest(v))]
        names = [(i, n) for i, v in enumerate(node.values) if (n := _env_var(v))]
        for (i, dest), (j, name) in ((d, n) for d in dests for n in names):
            out.append(
                {
                    "variable": name,
                    "dest": dest,
                    "first": "variable" if j < i else "flag",
                    "where": f"{path}:{node.lineno}",
                }
            )
    return out


def read_release(version: str, wheels: Path | None) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        found = sorted(wheels.glob(f"vllm-{version}-*.whl")) if wheels else []
        wheel = found[0] if found else environments.download_wheel("vllm", version, Path(tmp))
        out: list[dict[str, Any]] = []
        with zipfile.ZipFile(wheel) as zf:
            for name in sorted(zf.namelist()):
                if not (name.startswith(SERVER_FILES) and name.endswith(".py")) or name.startswith(
                    NOT_SERVER
                ):
                    continue
                text = zf.read(name).decode("utf-8", "replace")
                if "envs." in text and "args." in text:
                    out.extend(fallbacks(text, name))
    return sorted(out, key=lambda f: (f["variable"], f["dest"], f["where"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels", type=Path, default=None)
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    for version in sorted(bundled_versions("vllm", include_user=False), key=version_key):
        releases[version] = read_release(version, args.wheels)
        print(f"vllm {version}: {releases[version]}", file=sys.stderr)
    data = {"format": 1, "generated_by": GENERATOR, "releases": releases}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
