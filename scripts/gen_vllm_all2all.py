#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_all2all.json: when a vLLM release uses the MoE all-to-all
backend a launch names (``--all2all-backend``), and which backends it no longer has, read from the release's
wheel by AST (layers/moe_all2all.py uses it):

- ``used_when``: ``FusedMoEParallelConfig.use_all2all_kernels`` (vllm/model_executor/layers/fused_moe/
  config.py) is the only gate of the all-to-all kernels: ``"ep_and_dp_or_pcp"`` where it is
  ``self.use_ep and (self.dp_size > 1 or self.pcp_size > 1 or self.is_sequence_parallel)`` and ``use_ep``
  is computed as ``dp * pcp * tp > 1 and vllm_parallel_config.enable_expert_parallel``, ``"ep_and_dp"`` for
  ``self.use_ep and (self.dp_size > 1 or self.is_sequence_parallel)`` and the older ``self.dp_size > 1 and
  self.use_ep``; a gate naming ``is_sequence_parallel`` is kept only where ``ParallelConfig.
  use_sequence_parallel_moe`` (vllm/config/parallel.py) requires ``self.data_parallel_size > 1``; absent
  for a form this reading does not know. With the source line of the property.
- ``removed``: ``ParallelConfig.__post_init__`` (vllm/config/parallel.py) replaces a backend of a literal
  list (``if self.all2all_backend in [...]``) with another literal, with a warning: the backends, the value
  it takes instead, the line and the warning's words.

  pip download vllm==0.33.0 --no-deps --only-binary=:all: -d /tmp/vw
  python scripts/gen_vllm_all2all.py [--check] /tmp/vw/vllm-*.whl

A directory may stand for a wheel: the two modules as extracted from it, with a ``WHEEL`` file naming the
wheel they came from. Only the wheels given are read; layers/moe_all2all.py says nothing about another
release.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/vllm_all2all.json"
GENERATOR = "scripts/gen_vllm_all2all.py"
MOE_CONFIG = "vllm/model_executor/layers/fused_moe/config.py"
PARALLEL = "vllm/config/parallel.py"

# the forms of the gate this reading knows, by their source text with blanks removed
_USED = {
    "self.use_epand(self.dp_size>1orself.pcp_size>1orself.is_sequence_parallel)": "ep_and_dp_or_pcp",
    "self.use_epand(self.dp_size>1orself.is_sequence_parallel)": "ep_and_dp",
    "self.dp_size>1andself.use_ep": "ep_and_dp",
}
_SEQUENCE_PARALLEL = "is_sequence_parallel"
_USE_EP = re.compile(r"^.*>1andvllm_parallel_config\.enable_expert_parallel$")


def _squeeze(node: ast.AST) -> str:
    return re.sub(r"\s+", "", ast.unparse(node))


def used_when(text: str) -> dict[str, Any] | None:
    """The gate of the all-to-all kernels in fused_moe/config.py, if its form is known."""
    tree = ast.parse(text)
    gate: tuple[str, int] | None = None
    use_ep_known = False
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "use_all2all_kernels":
            returns = [n for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]
            if len(returns) == 1 and returns[0].value is not None:
                gate = (_squeeze(returns[0].value), node.lineno)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "use_ep" for t in node.targets
        ):
            use_ep_known = use_ep_known or bool(_USE_EP.match(_squeeze(node.value)))
    if gate is None or gate[0] not in _USED or not use_ep_known:
        return None
    return {
        "form": _USED[gate[0]],
        "where": f"{MOE_CONFIG}:{gate[1]}",
        "sequence": _SEQUENCE_PARALLEL in gate[0],
    }


def sequence_parallel_needs_dp(text: str) -> bool:
    """``ParallelConfig.use_sequence_parallel_moe`` (parallel.py) is an ``and`` with
    ``self.data_parallel_size > 1`` among its operands: sequence-parallel MoE needs data parallelism."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name == "use_sequence_parallel_moe":
            for ret in (n for n in ast.walk(node) if isinstance(n, ast.Return)):
                value = ret.value
                if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.And):
                    if any(_squeeze(v) == "self.data_parallel_size>1" for v in value.values):
                        return True
    return False


def removed(text: str) -> dict[str, Any] | None:
    """``if self.all2all_backend in [...]: ... self.all2all_backend = "x"`` in parallel.py, and its
    warning."""
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if not (
            isinstance(test, ast.Compare)
            and _squeeze(test.left) == "self.all2all_backend"
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.In)
            and isinstance(test.comparators[0], (ast.List, ast.Tuple, ast.Set))
        ):
            continue
        names = [e.value for e in test.comparators[0].elts if isinstance(e, ast.Constant)]
        instead = None
        warning = None
        for sub in node.body:
            if (
                isinstance(sub, ast.Assign)
                and _squeeze(sub.targets[0]) == "self.all2all_backend"
                and isinstance(sub.value, ast.Constant)
            ):
                instead = sub.value.value
            call = sub.value if isinstance(sub, ast.Expr) else None
            if isinstance(call, ast.Call) and _squeeze(call.func) == "logger.warning" and call.args:
                first = call.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    warning = first.value
        if names and isinstance(instead, str):
            return {
                "backends": sorted(str(n) for n in names),
                "instead": instead,
                "warning": warning,
                "where": f"{PARALLEL}:{node.lineno}",
            }
    return None


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """What one release's modules say (a module it lacks says nothing)."""
    out: dict[str, Any] = {}
    if MOE_CONFIG in texts and (gate := used_when(texts[MOE_CONFIG])):
        # a gate that also opens on sequence-parallel MoE is read only where that needs data parallelism
        if not gate.pop("sequence") or sequence_parallel_needs_dp(texts.get(PARALLEL, "")):
            out["used_when"] = gate
    if PARALLEL in texts and (gone := removed(texts[PARALLEL])):
        out["removed"] = gone
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="vLLM wheels (or trees extracted from them)")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), (MOE_CONFIG, PARALLEL).__contains__, "vllm")
        releases[release] = facts(texts)
        wheels[release] = wheel
    data = {
        "generated_by": GENERATOR,
        "source": f"vllm wheels: {MOE_CONFIG} (FusedMoEParallelConfig.use_all2all_kernels, use_ep), "
        f"{PARALLEL} (ParallelConfig.__post_init__)",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
