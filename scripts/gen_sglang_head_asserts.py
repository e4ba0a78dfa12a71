#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/sglang_head_asserts.json: which SGLang model classes assert, while
the model is built, that the tensor-parallel size divides the attention heads (and splits or replicates the
KV heads), read from a release's wheel by AST (layers/model_rules.py uses it, RS024 for SGLang).

SGLang has no start-up check of the heads against ``--tp-size`` (vLLM's is ModelConfig.
verify_with_parallel_config); each model file's attention class asserts it in ``__init__`` (sglang 0.5.23
srt/models/llama.py:183 ``assert self.total_num_heads % tp_size == 0``, then ``if self.total_num_kv_heads >=
tp_size: assert self.total_num_kv_heads % tp_size == 0 else: assert tp_size % self.total_num_kv_heads ==
0``), and the scheduler dies with a bare AssertionError while loading. Only the CPU path pads the heads
(configs/update_config.py adjust_config_with_unaligned_cpu_tp). Recorded per release, per architecture of
a model file's ``EntryClass``: the attention class of the same file whose ``__init__`` asserts it
unconditionally and that the file builds with ``num_heads=config.num_attention_heads`` (the text config's
heads, not a vision tower's), the assert's line and text, the lines of the KV asserts, and which size it
divides by (the TP size, or the attention TP size that DP attention divides).

  pip download sglang==0.5.23 --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_34_x86_64 -d /tmp/sw
  python scripts/gen_sglang_head_asserts.py [--check] /tmp/sw/sglang-*.whl
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

OUT = ROOT / "src/argtrace/frameworks/data/sglang_head_asserts.json"
GENERATOR = "scripts/gen_sglang_head_asserts.py"
MODELS = "sglang/srt/models/"


def _wanted(module: str) -> bool:
    return module.startswith(MODELS) and module.count("/") == 3


def _entry_classes(tree: ast.Module) -> list[str]:
    """The architectures a model file registers: ``EntryClass = X`` or ``EntryClass = [X, Y]``."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets
        ):
            values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            return [v.id for v in values if isinstance(v, ast.Name)]
    return []


def _mod_zero(test: ast.expr) -> tuple[str, str] | None:
    """(left, right) of ``left % right == 0``."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.left, ast.BinOp)
        and isinstance(test.left.op, ast.Mod)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == 0
    ):
        return ast.unparse(test.left.left), ast.unparse(test.left.right)
    return None


def _size_source(init: ast.FunctionDef, name: str) -> str | None:
    """How ``__init__`` gets the size the assert divides by (``tp_size = get_attention_tp_size()``)."""
    for node in init.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == name
        ):
            return ast.unparse(node.value)
    return None


def _head_assert(cls: ast.ClassDef) -> dict[str, Any] | None:
    """The unconditional ``assert self.total_num_heads % <size> == 0`` of the class's ``__init__`` (a
    top-level statement: not under an ``if``), with the KV assertions when they follow."""
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return None
    for i, node in enumerate(init.body):
        if not isinstance(node, ast.Assert):
            continue
        pair = _mod_zero(node.test)
        if pair is None or pair[0] != "self.total_num_heads":
            continue
        size = pair[1]
        source = _size_source(init, size)
        if source is None:
            return None
        kv: list[int] | None = None  # the lines of the KV heads' split and replication asserts
        for later in init.body[i + 1 :]:
            if isinstance(later, ast.If) and ast.unparse(later.test) == f"self.total_num_kv_heads >= {size}":
                split = [n for n in later.body if isinstance(n, ast.Assert)]
                copy = [n for n in later.orelse if isinstance(n, ast.Assert)]
                if (
                    split
                    and copy
                    and _mod_zero(split[0].test) == ("self.total_num_kv_heads", size)
                    and _mod_zero(copy[0].test) == (size, "self.total_num_kv_heads")
                ):
                    kv = [split[0].lineno, copy[0].lineno]
                break
        return {"line": node.lineno, "assert": ast.unparse(node), "size": source, "kv": kv}
    return None


def _built_with_text_heads(tree: ast.Module, name: str) -> bool:
    """True when the file builds class ``name`` with ``num_heads=config.num_attention_heads`` (the model's
    own config, not a vision tower's)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            for keyword in node.keywords:
                if keyword.arg == "num_heads" and ast.unparse(keyword.value) == "config.num_attention_heads":
                    return True
    return False


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """{architectures: architecture -> model file, sites: model file -> [attention class, line, assert,
    size, KV assert lines]} for the files whose text attention asserts the split. The size is "tensor" (the
    TP size) or "attention" (the attention TP size, which DP attention and attention context parallelism
    divide); the KV lines are the split's and the replication's asserts, or None."""
    architectures: dict[str, str] = {}
    sites: dict[str, list[Any]] = {}
    for module, text in sorted(texts.items()):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        entries = _entry_classes(tree)
        if not entries:
            continue
        found = [
            (cls.name, site)
            for cls in tree.body
            if isinstance(cls, ast.ClassDef)
            and (site := _head_assert(cls)) is not None
            and _built_with_text_heads(tree, cls.name)
        ]
        if len(found) != 1:  # none, or several attention classes: which one a model builds is not read
            continue
        name, site = found[0]
        at = module.removeprefix("sglang/")
        size = "attention" if "attn" in site["size"] or "attention" in site["size"] else "tensor"
        sites[at] = [name, site["line"], site["assert"], size, site["kv"]]
        for entry in entries:
            architectures.setdefault(entry, at)
    return {"architectures": architectures, "sites": sites}


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
        "source": "sglang wheels: the attention classes of sglang/srt/models/*.py whose __init__ asserts "
        "self.total_num_heads % <tp size> == 0 (and the KV heads' split or replication), per EntryClass",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
