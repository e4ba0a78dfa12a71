#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/divide_callers.json: for each SGLang and vLLM release read, what the
callers of the parallel layers' divisibility helper pass it, from the release's own source (``ast``, never
imported).

SGLang and vLLM shard a model over tensor-parallel ranks with Megatron's helpers of their
``distributed/utils.py``: ``divide(numerator, denominator)`` calls ``ensure_divisibility``, whose ``assert
numerator % denominator == 0, "{} is not divisible by {}"`` is what a launch whose TP size does not divide a
dimension of its model dies on (sglang#3436: DeepSeek-R1-Distill-Qwen-1.5B, 12 heads, at ``--tp 24``). The
assert reads only its parameters, so ``why`` said "make the condition false" and named no setting: what the
numbers are is decided by the callers. Per release: how many calls there are, the denominators they pass
(``tp_size``, ``self.tp_size``, ``world_size``...) with their counts, and a few calls as written with their
file and line (the first per denominator, in path order). Nothing is typed by hand.

    python scripts/gen_divide_callers.py [--wheels DIR] [--check]

The wheels are the resolver environments' (``~/.cache/argtrace/resolvers/wheels`` by default): every
``sglang-*.whl`` and ``vllm-*.whl`` there is read; ``--check`` regenerates from the releases the bundled file
holds and compares.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "divide_callers.json"
HELPERS = ("divide", "ensure_divisibility")
EXAMPLES = 6


def _helper(call: ast.Call) -> str | None:
    """``divide`` / ``ensure_divisibility`` for a call of either, by name or as a module attribute
    (``dist_utils.divide``); None for any other call."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name if name in HELPERS and len(call.args) == 2 else None


def _imports_helper(tree: ast.Module) -> bool:
    """Whether the module takes a helper from a ``distributed`` utils module (``from
    sglang.srt.distributed import divide``, ``from vllm.distributed.utils import divide``, ``import ... as
    dist_utils``): another ``divide`` (a tensor op, a local function) is not it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and "distributed" in node.module:
            if any(a.name in HELPERS or a.name == "utils" for a in node.names):
                return True
        if isinstance(node, ast.Import) and any("distributed" in a.name for a in node.names):
            return True
    return False


def _tally(calls: list[tuple[str, int, str, str]]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for _, _, _, den in calls:
        counts[den] = counts.get(den, 0) + 1
    examples: list[dict[str, Any]] = []
    for den in sorted(counts, key=lambda d: (-counts[d], d))[:EXAMPLES]:
        first = next(c for c in calls if c[3] == den)
        examples.append({"file": first[0], "line": first[1], "numerator": first[2], "denominator": den})
    return {"calls": len(calls), "denominators": counts, "examples": examples}


def read_release(framework: str, wheel: Path) -> tuple[str, dict[str, Any]]:
    """(release, facts): per package root that has its own ``distributed/utils.py`` helpers
    (``sglang/srt``, ``sglang/multimodal_gen``, ``vllm``), what the calls under that root pass."""
    release, name, texts = wheel_modules(wheel, lambda m: m.startswith(f"{framework}/") and m.endswith(".py"),
                                         framework)  # fmt: skip
    roots = sorted(
        (p[: -len("/distributed/utils.py")] for p, t in texts.items()
         if p.endswith("/distributed/utils.py") and "def ensure_divisibility" in t),
        key=len, reverse=True,
    )  # fmt: skip
    calls: dict[str, list[tuple[str, int, str, str]]] = {r: [] for r in roots}
    for path, text in sorted(texts.items()):
        root = next((r for r in roots if path.startswith(r + "/")), None)
        if root is None or path.endswith("distributed/utils.py"):
            continue  # the helpers themselves (divide calls ensure_divisibility with its own parameters)
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        if not _imports_helper(tree):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _helper(node) is not None:
                num, den = (ast.unparse(a) for a in node.args)
                calls[root].append((path, node.lineno, num, den))
    return release, {"wheel": name, "roots": {r: _tally(c) for r, c in calls.items()}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheels", type=Path, default=Path.home() / ".cache/argtrace/resolvers/wheels")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    data: dict[str, Any] = {"generated_by": "scripts/gen_divide_callers.py", "frameworks": {}}
    held = json.loads(OUT.read_text())["frameworks"] if args.check and OUT.is_file() else None
    for framework in ("sglang", "vllm"):
        releases: dict[str, Any] = {}
        for wheel in sorted(args.wheels.glob(f"{framework}-*.whl")):
            release, facts = read_release(framework, wheel)
            if held is None or release in held.get(framework, {}):
                releases[release] = facts
        data["frameworks"][framework] = releases
    return write_or_check(OUT, data, "scripts/gen_divide_callers.py", check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
