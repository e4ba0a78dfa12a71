#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/sglang_disagg_spec.json: which speculative algorithms an SGLang
release's PD decode server cannot start decoding with, read from the release's wheel by AST (layers/
disagg_spec.py uses it, RS080).

A decode server of PD disaggregation receives each request already prefilled, so its first decode step runs
before any local forward could set up the draft state: the decode batch's draft input is built by
``SpeculativeAlgorithm.build_disagg_draft_input`` (srt/speculative/spec_info.py, called from srt/
disaggregation/decode_schedule_batch_mixin.py), whose ``if self.is_X():`` branches name the algorithms it
builds one for; any other falls through to ``return None``. ``spec_prepare_for_decode`` (srt/speculative/
spec_utils.py) then calls ``batch.spec_info.prepare_for_decode(batch)`` for the DFLASH family without a
None check, so such a decode server dies at its first transferred request with "AttributeError: 'NoneType'
object has no attribute 'prepare_for_decode'" (sglang#36140 on a 0.5.16-based build, sglang PR#31513's
comment on plain 0.5.16). Recorded per release: the enum's algorithms, the builder's branches (resolved to
algorithm names through the ``is_X`` predicates), the unguarded dereference's predicate and the algorithms
in it but not in the builder (``unbuilt``), with file:line of each. A release without the builder, the call
or the unguarded dereference is recorded without ``unbuilt``: layers/disagg_spec.py says nothing for it.

  pip download sglang==0.5.16 --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_34_x86_64 --platform any -d /tmp/sw
  python scripts/gen_sglang_disagg_spec.py [--check] /tmp/sw/sglang-*.whl
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

OUT = ROOT / "src/argtrace/frameworks/data/sglang_disagg_spec.json"
GENERATOR = "scripts/gen_sglang_disagg_spec.py"
SPEC_INFO = "sglang/srt/speculative/spec_info.py"
SPEC_UTILS = "sglang/srt/speculative/spec_utils.py"
MIXIN = "sglang/srt/disaggregation/decode_schedule_batch_mixin.py"


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _members(cls: ast.ClassDef, expr: ast.expr, enum: set[str], depth: int = 0) -> set[str] | None:
    """The enum members a predicate's return expression holds, or None when its form is not one of
    ``self == E.X``, ``self in (E.X, ...)``, ``self.is_y()``, ``a or b``."""
    if depth > 8:
        return None
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):
        out: set[str] = set()
        for value in expr.values:
            part = _members(cls, value, enum, depth + 1)
            if part is None:
                return None
            out |= part
        return out
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and len(expr.comparators) == 1:
        right = expr.comparators[0]
        if isinstance(expr.ops[0], ast.Eq) and isinstance(right, ast.Attribute) and right.attr in enum:
            return {right.attr}
        if isinstance(expr.ops[0], ast.In) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
            names = {e.attr for e in right.elts if isinstance(e, ast.Attribute)}
            return names & enum if len(names) == len(right.elts) else None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.args:
        return _predicate(cls, expr.func.attr, enum, depth + 1)
    return None


def _predicate(cls: ast.ClassDef, name: str, enum: set[str], depth: int = 0) -> set[str] | None:
    fn = _method(cls, name)
    if fn is None:
        return None
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    return _members(cls, body[0].value, enum, depth)


def _branch(test: ast.expr, owner: str) -> str | None:
    """``X`` of a test ``OWNER.is_X()`` (``self.is_X()``, ``batch.spec_algorithm.is_X()``)."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and not test.args:
        if ast.unparse(test.func.value) == owner:
            return test.func.attr
    return None


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """What a release's modules (path -> text) say about its decode server's draft input."""
    out: dict[str, Any] = {}
    info = texts.get(SPEC_INFO)
    if info is None:
        return out
    tree = ast.parse(info)
    cls = next(
        (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SpeculativeAlgorithm"), None
    )
    if cls is None:
        return out
    enum = {
        t.id
        for n in cls.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name) and t.id.isupper()
    }
    out["algorithms"] = sorted(enum)
    builder = _method(cls, "build_disagg_draft_input")
    if builder is None:
        return out
    built: set[str] = set()
    for node in ast.walk(builder):
        if isinstance(node, ast.If) and (name := _branch(node.test, "self")):
            members = _predicate(cls, name, enum)
            if members is None:
                return out  # a branch this reading cannot resolve: say nothing
            built |= members
    out["built"] = sorted(built)
    out["builder_at"] = f"{SPEC_INFO.removeprefix('sglang/')}:{builder.lineno}"
    mixin = texts.get(MIXIN, "")
    call = next(
        (i for i, row in enumerate(mixin.splitlines(), 1) if ".build_disagg_draft_input(" in row), None
    )
    utils = texts.get(SPEC_UTILS)
    if call is None or utils is None:
        return out
    out["called_at"] = f"{MIXIN.removeprefix('sglang/')}:{call}"
    for fn in ast.walk(ast.parse(utils)):
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "spec_prepare_for_decode"):
            continue
        for node in ast.walk(fn):
            if not (isinstance(node, ast.If) and (name := _branch(node.test, "batch.spec_algorithm"))):
                continue
            first = node.body[0]
            # the dereference as the branch's first statement: no `if batch.spec_info is not None` before it
            if (
                isinstance(first, ast.Expr)
                and ast.unparse(first.value) == "batch.spec_info.prepare_for_decode(batch)"
            ):
                members = _predicate(cls, name, enum)
                if members is None:
                    continue
                out["dereferenced"] = sorted(members)
                out["dereferenced_at"] = f"{SPEC_UTILS.removeprefix('sglang/')}:{first.lineno}"
                unbuilt = sorted(members - built)
                if unbuilt:
                    out["unbuilt"] = unbuilt
                return out
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="SGLang wheels")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    wanted = {SPEC_INFO, SPEC_UTILS, MIXIN}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), wanted.__contains__, "sglang")
        wheels[release] = wheel
        releases[release] = facts(texts)
    data = {
        "generated_by": GENERATOR,
        "source": "sglang wheels: SpeculativeAlgorithm's members and is_* predicates and "
        "build_disagg_draft_input's branches (srt/speculative/spec_info.py), its call in srt/disaggregation/"
        "decode_schedule_batch_mixin.py, spec_prepare_for_decode's unguarded batch.spec_info dereference "
        "(srt/speculative/spec_utils.py)",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
