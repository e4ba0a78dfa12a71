#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_dp_launch.json: how each vLLM release reads the load-balancing
mode of a data parallel start from its flags, and what its head and its headless starts refuse, read from
the release's wheel by AST (layers/dp_mode.py uses it):

- ``hybrid_from_start_rank``: ``EngineArgs.create_engine_config`` (vllm/engine/arg_utils.py) infers hybrid
  load balancing on a start that is not ``--headless`` when ``--data-parallel-start-rank`` is given:
  ``"set"`` where the test is ``self.data_parallel_start_rank is not None`` (rank 0 too), ``"nonzero"``
  where it is the bare value (rank 0 does not), absent where no release code infers it;
- ``local_one_external``: hybrid mode with ``data_parallel_size_local == 1`` switches to external load
  balancing ("data_parallel_hybrid_lb is not eligible when data_parallel_size_local = 1, autoswitch to
  data_parallel_external_lb");
- ``remote_headless_refused``: the head's handshake (vllm/v1/engine/utils.py ``wait_for_engine_startup``)
  refuses a remote engine started with ``--headless`` in external or hybrid mode: the message;
- ``headless_api_server_count``: vllm/entrypoints/cli/serve.py refuses ``--api-server-count`` above a bound
  with ``--headless``: the smallest bound any of its checks tests (``> 0`` from the release that raises in
  ``cmd``, ``> 1`` in ``run_headless`` before) and that check's message.

  pip download vllm==0.29.0 --no-deps --only-binary=:all: -d /tmp/vw
  python scripts/gen_vllm_dp_launch.py [--check] /tmp/vw/vllm-*.whl

A directory may stand for a wheel: the tree of these three modules as extracted from it, with a ``WHEEL``
file naming the wheel they came from.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/vllm_dp_launch.json"
GENERATOR = "scripts/gen_vllm_dp_launch.py WHEEL..."
ARG_UTILS = "vllm/engine/arg_utils.py"
SERVE = "vllm/entrypoints/cli/serve.py"
ENGINE_UTILS = "vllm/v1/engine/utils.py"
_VERSION = re.compile(r"vllm-([0-9][^-]*)-")


def _modules(source: Path) -> tuple[str, str, dict[str, str]]:
    """(release, wheel name, module path -> text) of a wheel or an extracted tree."""
    names = (ARG_UTILS, SERVE, ENGINE_UTILS)
    if source.is_dir():
        wheel = (source / "WHEEL").read_text().strip()
        texts = {n: (source / n).read_text() for n in names if (source / n).is_file()}
    else:
        wheel = source.name
        with zipfile.ZipFile(source) as z:
            present = set(z.namelist())
            texts = {n: z.read(n).decode() for n in names if n in present}
    found = _VERSION.match(wheel)
    if not found:
        raise SystemExit(f"{source}: no vLLM release in the wheel name {wheel!r}")
    return found.group(1), wheel, texts


def _text(node: ast.AST) -> str:
    """A message as written: a literal, or an f-string with each field as ``{expression}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
            for v in node.values
            if isinstance(v, (ast.Constant, ast.FormattedValue))
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    return ""


def _raised(body: list[ast.stmt]) -> str:
    for stmt in body:
        if isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call) and stmt.exc.args:
            return _text(stmt.exc.args[0])
    return ""


def _sets(body: list[ast.stmt], target: str, value: bool) -> bool:
    """Whether the block assigns ``value`` to ``target`` (``self.X`` or the local ``X``)."""
    for stmt in body:
        if (
            isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Constant)
            and stmt.value.value is value
        ):
            for t in stmt.targets:
                if ast.unparse(t).removeprefix("self.") == target:
                    return True
    return False


def _start_rank_form(test: ast.expr) -> str | None:
    """ "set"/"nonzero" for the start-rank operand of ``... and not headless``, else None."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return None
    if not any(ast.unparse(v) == "not headless" for v in test.values):
        return None
    for operand in test.values:
        text = ast.unparse(operand)
        if text == "self.data_parallel_start_rank":
            return "nonzero"
        if text == "self.data_parallel_start_rank is not None":
            return "set"
    return None


def facts(texts: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ARG_UTILS in texts:
        for node in ast.walk(ast.parse(texts[ARG_UTILS])):
            if not isinstance(node, ast.If):
                continue
            form = _start_rank_form(node.test)
            if form and _sets(node.body, "data_parallel_hybrid_lb", True):
                out["hybrid_from_start_rank"] = form
            test = ast.unparse(node.test)
            if (
                "data_parallel_hybrid_lb" in test
                and "data_parallel_size_local == 1" in test
                and _sets(node.body, "data_parallel_external_lb", True)
            ):
                out["local_one_external"] = True
    if ENGINE_UTILS in texts:
        for node in ast.walk(ast.parse(texts[ENGINE_UTILS])):
            if isinstance(node, ast.If) and ast.unparse(node.test) == "headless":
                message = _raised(node.body)
                if "must not use --headless" in message:
                    out["remote_headless_refused"] = message
    if SERVE in texts:
        bounds: list[tuple[int, str]] = []
        for node in ast.walk(ast.parse(texts[SERVE])):
            if not isinstance(node, ast.If):
                continue
            for compare in ast.walk(node.test):
                if (
                    isinstance(compare, ast.Compare)
                    and ast.unparse(compare.left) == "args.api_server_count"
                    and len(compare.ops) == 1
                    and isinstance(compare.ops[0], ast.Gt)
                    and isinstance(compare.comparators[0], ast.Constant)
                    and isinstance(compare.comparators[0].value, int)
                ):
                    message = _raised(node.body)
                    if "headless" in message:
                        bounds.append((compare.comparators[0].value, message))
        if bounds:
            bound, message = min(bounds)
            out["headless_api_server_count"] = {"above": bound, "message": message}
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("wheels", nargs="+", help="vLLM wheels (or trees extracted from them)")
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = _modules(Path(path))
        releases[release] = facts(texts)
        wheels[release] = wheel
    data = {
        "generated_by": "scripts/gen_vllm_dp_launch.py",
        "source": f"vllm wheels: {ARG_UTILS} (EngineArgs.create_engine_config), {SERVE}, {ENGINE_UTILS} "
        "(wait_for_engine_startup)",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
