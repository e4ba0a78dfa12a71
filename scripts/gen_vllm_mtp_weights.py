#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_mtp_weights.json: which checkpoint tensors a vLLM release's MTP
draft loads from the target's own checkpoint, per target model type, read from the release's wheel by AST
(layers/mtp_weights.py uses it, RS087).

With ``--speculative-config '{"method": "mtp"}'`` (or the family's own method name) vLLM builds the MTP draft
from the target checkpoint: ``SpeculativeConfig.hf_config_override`` (vllm/config/speculative.py) rewrites the
target's ``model_type`` to the draft's (``qwen3_next`` -> ``qwen3_next_mtp``; ``qwen3_5``, ``qwen3_5_moe`` and
their ``_text`` forms -> ``qwen3_5_mtp``; ...), and the draft module (vllm/model_executor/models/<type>.py)
keeps only the tensors whose name starts with its prefix (``is_unused_checkpoint_weight``: ``not
name.startswith("mtp.") and ...``, besides the shared embeddings and head). A checkpoint without them (a
fine-tuned export that dropped the MTP head: ms-swift#6221, #9802) leaves the draft's parameters unloaded, and
for an unquantized checkpoint ``DefaultModelLoader.track_weights_loading`` raises "Following weights were not
initialized from checkpoint" (vllm/model_executor/model_loader/default_loader.py). Recorded per release: the
target model types whose draft module filters by such a prefix, with the draft type and the prefixes.

  pip download vllm==0.33.0 --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_28_x86_64 -d /tmp/vw
  python scripts/gen_vllm_mtp_weights.py [--check] /tmp/vw/vllm-*.whl
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

OUT = ROOT / "src/argtrace/frameworks/data/vllm_mtp_weights.json"
GENERATOR = "scripts/gen_vllm_mtp_weights.py"
SPECULATIVE = "vllm/config/speculative.py"
MODELS = "vllm/model_executor/models/"


def _wanted(module: str) -> bool:
    return module == SPECULATIVE or (module.startswith(MODELS) and module.endswith("_mtp.py"))


def _types(test: ast.expr) -> list[str]:
    """The model types an ``if`` compares ``hf_config.model_type`` with (``==`` or ``in`` a literal)."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and ast.unparse(test.left).endswith(".model_type")
    ):
        return []
    right = test.comparators[0]
    if isinstance(test.ops[0], ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return [right.value]
    if isinstance(test.ops[0], ast.In) and isinstance(right, (ast.Tuple, ast.Set, ast.List)):
        return [e.value for e in right.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _rewrites(text: str) -> dict[str, str]:
    """target model type -> draft model type, from hf_config_override's ``if`` chain."""
    found: dict[str, str] = {}
    for function in ast.walk(ast.parse(text)):
        if not (isinstance(function, ast.FunctionDef) and function.name == "hf_config_override"):
            continue
        for branch in ast.walk(function):
            if not isinstance(branch, ast.If):
                continue
            targets = _types(branch.test)
            for node in branch.body:
                if (
                    isinstance(node, ast.Assign)
                    and ast.unparse(node.targets[0]).endswith(".model_type")
                    and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)
                ):
                    for target in targets:
                        if target != node.value.value:
                            found.setdefault(target, node.value.value)
    return found


def _prefixes(text: str) -> list[str]:
    """The name prefixes ``is_unused_checkpoint_weight`` keeps (``name.startswith("...")`` literals)."""
    out: list[str] = []
    for function in ast.walk(ast.parse(text)):
        if not (isinstance(function, ast.FunctionDef) and function.name == "is_unused_checkpoint_weight"):
            continue
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", None) == "startswith"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                out.append(node.args[0].value)
    return sorted(set(out))


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """target model type -> {draft, prefixes, at} for the drafts that keep only prefixed tensors."""
    speculative = texts.get(SPECULATIVE)
    if speculative is None:
        return {}
    out: dict[str, Any] = {}
    for target, draft in sorted(_rewrites(speculative).items()):
        module = f"{MODELS}{draft}.py"
        prefixes = _prefixes(texts[module]) if module in texts else []
        if prefixes:
            out[target] = {"draft": draft, "prefixes": prefixes, "at": module.removeprefix("vllm/")}
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="vLLM wheels")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), _wanted, "vllm")
        wheels[release] = wheel
        releases[release] = facts(texts)
    data = {
        "generated_by": GENERATOR,
        "source": "vllm wheels: SpeculativeConfig.hf_config_override's model_type rewrites (vllm/config/"
        "speculative.py) and each MTP draft's is_unused_checkpoint_weight (vllm/model_executor/models/"
        "*_mtp.py)",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
