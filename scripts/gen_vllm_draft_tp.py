#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_draft_tp.json: which code of a vLLM release reads the draft
model's tensor-parallel size (``draft_tensor_parallel_size`` of ``--speculative-config``), read from the
release's wheel by AST (layers/spec_draft_tp.py uses it).

``SpeculativeConfig`` validates the key (1 or the target's ``--tensor-parallel-size``) and builds
``draft_parallel_config`` from it (vllm/config/speculative.py), but only the code that builds the drafter can
make it count. This reads every module under ``vllm/v1/`` for the attributes ``draft_parallel_config`` and
``draft_tensor_parallel_size``: ``readers`` lists each read (file:line and function), and
``draft_model_only`` says whether all of them belong to the separate draft model's proposer
(``vllm/v1/spec_decode/draft_model.py``, or a function named for the draft model). Where it holds, an EAGLE,
EAGLE-3 or MTP drafter runs inside the target's tensor-parallel group whatever the key says (vllm#31345;
vllm PR#31886, PR#31705).

  pip download vllm==0.28.0 --no-deps --only-binary=:all: -d /tmp/vw
  python scripts/gen_vllm_draft_tp.py [--check] /tmp/vw/vllm-*.whl

A directory may stand for a wheel: its ``vllm/v1`` modules as extracted from it, with a ``WHEEL`` file naming
the wheel they came from. Only the wheels given are read; layers/spec_draft_tp.py says nothing about another
release.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/vllm_draft_tp.json"
GENERATOR = "scripts/gen_vllm_draft_tp.py"
V1 = "vllm/v1/"
DRAFT_MODEL = "vllm/v1/spec_decode/draft_model.py"


def _in_v1(path: str) -> bool:
    """The V1 engine's modules: where the drafters read the draft TP size."""
    return path.startswith(V1) and path.endswith(".py")


_ATTRIBUTES = ("draft_parallel_config", "draft_tensor_parallel_size")


def readers(path: str, text: str) -> list[dict[str, Any]]:
    """Each read of the draft's parallel attributes in one module, with the function around it."""
    out: list[dict[str, Any]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = child.name
            if isinstance(child, ast.Attribute) and child.attr in _ATTRIBUTES:
                out.append({"where": f"{path}:{child.lineno}", "function": function, "attribute": child.attr})
            visit(child, name)

    visit(ast.parse(text), "")
    return out


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """What one release's ``vllm/v1`` modules say."""
    found = [r for path in sorted(texts) for r in readers(path, texts[path])]
    only = all(r["where"].startswith(f"{DRAFT_MODEL}:") or "draft_model" in r["function"] for r in found)
    return {"readers": found, "draft_model_only": only}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="vLLM wheels (or trees extracted from them)")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), _in_v1, "vllm")
        releases[release] = facts(texts)
        wheels[release] = wheel
    data = {
        "generated_by": GENERATOR,
        "source": f"vllm wheels: every module under {V1} (reads of {', '.join(_ATTRIBUTES)})",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
