#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/sglang_eagle_tree.json: how each SGLang release resolves the three
counts of an EAGLE/NEXTN draft tree (``--speculative-num-steps``, ``--speculative-eagle-topk``,
``--speculative-num-draft-tokens``), read from the release's wheel by AST (layers/eagle_tree.py uses it,
RS085 and RS088).

Recorded per release, from ``srt/server_args.py`` (to 0.5.12.post1) or ``srt/arg_groups/speculative_hook.py``
(0.5.13.post1 on), in the function that fills the speculative defaults:

- ``steps_assert``: the ``assert`` that topk and the draft tokens are None, inside the ``if`` that picks the
  three counts automatically when num_steps is None (a launch that writes topk or the draft tokens without
  num_steps stops there: a bare AssertionError);
- ``none_compare``: the first ``if`` after that one, in the same block, whose test starts by comparing
  ``speculative_eagle_topk > 1`` with nothing in between giving topk a value (num_steps written alone leaves
  topk None, and ``None > 1`` raises TypeError there);
- ``chain_adjust``: the ``if speculative_eagle_topk == 1 and ... != speculative_num_steps + 1`` that sets
  the draft tokens to num_steps + 1 (a chain needs no tree);

and from ``srt/speculative/*.py``: ``tree_topk``, the ``torch.topk(score_list, N - 1)`` that keeps the best
draft-token - 1 of the tree's candidates (``organize_draft_results`` in eagle_utils.py, 0.5.3.post3 on;
``build_tree_kernel_efficient_preprocess`` in build_eagle_tree.py before), which fails with "selected index
k out of range" when the draft tokens - 1 exceed the candidates (topk + (num_steps - 1) * topk * topk:
``select_top_k_tokens`` keeps topk scores at the first step and topk * topk at each later one).

  pip download sglang==0.5.14 --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_34_x86_64 --platform any -d /tmp/sw
  python scripts/gen_sglang_eagle_tree.py [--check] /tmp/sw/sglang-*.whl
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

OUT = ROOT / "src/argtrace/frameworks/data/sglang_eagle_tree.json"
GENERATOR = "scripts/gen_sglang_eagle_tree.py"
_RESOLVERS = ("sglang/srt/arg_groups/speculative_hook.py", "sglang/srt/server_args.py")
_TOPK = "speculative_eagle_topk"


def _wanted(module: str) -> bool:
    return module in _RESOLVERS or (module.startswith("sglang/srt/speculative/") and module.endswith(".py"))


def _where(module: str, line: int) -> str:
    return f"{module.removeprefix('sglang/')}:{line}"


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == name for n in ast.walk(node))


def _is_steps_assert(node: ast.stmt) -> bool:
    text = ast.unparse(node.test) if isinstance(node, ast.Assert) else ""
    return f"{_TOPK} is None" in text and "speculative_num_draft_tokens is None" in text


def _first_compare(test: ast.expr) -> ast.expr:
    while isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        test = test.values[0]
    return test


def _compares_topk_above_one(test: ast.expr) -> bool:
    first = _first_compare(test)
    return (
        isinstance(first, ast.Compare)
        and isinstance(first.left, ast.Attribute)
        and first.left.attr == _TOPK
        and len(first.ops) == 1
        and isinstance(first.ops[0], ast.Gt)
        and ast.unparse(first.comparators[0]) == "1"
    )


def _sets_topk(node: ast.stmt) -> bool:
    # an assignment to X.speculative_eagle_topk, or declare_resolution(..., speculative_eagle_topk=...)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assign) and any(_mentions(t, _TOPK) for t in sub.targets):
            return True
        if isinstance(sub, ast.Call) and any(k.arg == _TOPK for k in sub.keywords):
            return True
    return False


def _blocks(tree: ast.AST) -> list[tuple[ast.FunctionDef, list[ast.stmt]]]:
    found: list[tuple[ast.FunctionDef, list[ast.stmt]]] = []
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef):
            for node in ast.walk(function):
                for field in ("body", "orelse"):
                    body = getattr(node, field, None)
                    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                        found.append((function, body))
    return found


def _resolution(module: str, text: str) -> dict[str, Any]:
    """The steps assertion, the first unguarded topk comparison after it and the chain adjustment."""
    facts: dict[str, Any] = {}
    for function, body in _blocks(ast.parse(text)):
        for index, statement in enumerate(body):
            if not isinstance(statement, ast.If) or "speculative_num_steps is None" not in ast.unparse(
                statement.test
            ):
                continue
            check = next((s for s in statement.body if _is_steps_assert(s)), None)
            if check is None:
                continue
            facts["function"] = function.name
            facts["steps_assert"] = _where(module, check.lineno)
            facts["steps_guard"] = ast.unparse(statement.test)
            for later in body[index + 1 :]:
                if isinstance(later, ast.If) and _compares_topk_above_one(later.test):
                    facts["none_compare"] = _where(module, later.lineno)
                    facts["none_compare_test"] = ast.unparse(_first_compare(later.test))
                    break
                if _sets_topk(later):
                    break
            for later in body[index + 1 :]:
                test = ast.unparse(later.test) if isinstance(later, ast.If) else ""
                if f"{_TOPK} == 1" in test and "speculative_num_steps + 1" in test:
                    facts["chain_adjust"] = _where(module, later.lineno)
                    break
            return facts
    return facts


def _tree_topk(texts: dict[str, str]) -> dict[str, Any]:
    for module in sorted(texts):
        if not module.startswith("sglang/srt/speculative/"):
            continue
        for function in ast.walk(ast.parse(texts[module])):
            if not isinstance(function, ast.FunctionDef):
                continue
            for call in ast.walk(function):
                if (
                    isinstance(call, ast.Call)
                    and ast.unparse(call.func) == "torch.topk"
                    and call.args
                    and ast.unparse(call.args[0]) == "score_list"
                    and len(call.args) > 1
                    and ast.unparse(call.args[1]).endswith(" - 1")
                ):
                    return {"at": _where(module, call.lineno), "function": function.name}
    return {}


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """One release's resolution of the three counts and its draft tree's topk; empty when neither is read."""
    found: dict[str, Any] = {}
    for module in _RESOLVERS:
        if module in texts:
            found = _resolution(module, texts[module])
            if found:
                break
    tree = _tree_topk(texts)
    if tree:
        found["tree_topk"] = tree
    return found


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="SGLang wheels")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), _wanted, "sglang")
        wheels[release] = wheel
        releases[release] = facts(texts)
    data = {
        "generated_by": GENERATOR,
        "source": "sglang wheels: the speculative defaults in srt/server_args.py or "
        "srt/arg_groups/speculative_hook.py (the num_steps assertion, the first topk comparison after it, "
        "the chain adjustment) and the draft tree's torch.topk in srt/speculative/",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
