#!/usr/bin/env python3
"""The defaults transformers' configuration classes give the fields memory sizing reads, per ``model_type``.

    python scripts/gen_config_defaults.py                     # transformers of an SGLang resolver environment
    python scripts/gen_config_defaults.py --transformers DIR  # a transformers package directory
    python scripts/gen_config_defaults.py --check             # fail when the stored file differs

A checkpoint's config.json leaves out the fields whose value is its configuration class's default
(``PreTrainedConfig.to_diff_dict``): Gemma 3's ``text_config`` has no ``vocab_size`` (262208) and no
``tie_word_embeddings`` (True), Mistral's leaves ``tie_word_embeddings`` (False) out. transformers fills them
from the class's ``__init__`` defaults when it loads the file, and so do vLLM and SGLang (both load the
config through transformers). argtrace does not import transformers: this script reads each
``models/*/configuration_*.py`` with ``ast`` (never imported), takes every class that sets ``model_type =
"..."``, and stores the literal defaults of its ``__init__`` parameters named in ``FIELDS``.

Output: ``src/argtrace/data/config_defaults.json`` (``source``: the transformers version read; ``defaults``:
model_type -> {field: value}).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "argtrace" / "data" / "config_defaults.json"
RESOLVERS = Path.home() / ".cache" / "argtrace" / "resolvers"
FIELDS = (
    "vocab_size",
    "tie_word_embeddings",
    "max_position_embeddings",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
)


def find_transformers() -> Path:
    """transformers of the newest SGLang resolver environment (``argtrace resolver add sglang==V``)."""
    found = sorted(RESOLVERS.glob("sglang-*/lib/python3*/site-packages/transformers"))
    if not found:
        raise SystemExit("no transformers found: pass --transformers DIR")
    return found[-1]


def version_of(package: Path) -> str:
    text = (package / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'__version__\s*=\s*"([^"]+)"', text)
    return match.group(1) if match else "unknown"


def _literal(node: ast.expr) -> Any:
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None
    return value if isinstance(value, (bool, int, float)) else None


def _own_defaults(node: ast.ClassDef) -> tuple[str | None, dict[str, Any]]:
    """A class's ``model_type`` and the defaults it sets itself: class-level ``name: type = value``
    (transformers 5.19's ``@strict`` configs) and ``__init__`` parameter defaults (earlier releases)."""
    model_type = None
    values: dict[str, Any] = {}
    for item in node.body:
        if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant):
            names = [t.id for t in item.targets if isinstance(t, ast.Name)]
            if "model_type" in names and isinstance(item.value.value, str):
                model_type = item.value.value
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.value is not None:
            if item.target.id == "model_type" and isinstance(item.value, ast.Constant):
                model_type = str(item.value.value)
            elif item.target.id in FIELDS:
                values[item.target.id] = _literal(item.value)
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            args = item.args.args
            pairs = list(
                zip(
                    [a.arg for a in args[len(args) - len(item.args.defaults) :]],
                    item.args.defaults,
                    strict=True,
                )
            )
            pairs += [
                (a.arg, d)
                for a, d in zip(item.args.kwonlyargs, item.args.kw_defaults, strict=True)
                if d is not None
            ]
            values.update({name: _literal(d) for name, d in pairs if name in FIELDS})
    return model_type, {k: v for k, v in values.items() if v is not None}


def generate(package: Path) -> dict[str, Any]:
    classes: dict[str, tuple[list[str], str | None, dict[str, Any]]] = {}
    for path in sorted((package / "models").glob("*/configuration_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
                model_type, values = _own_defaults(node)
                classes.setdefault(node.name, (bases, model_type, values))

    def resolved(name: str, seen: frozenset[str] = frozenset()) -> dict[str, Any]:
        # a field the class does not set comes from its bases (first base first, as Python's MRO does
        # for these single-inheritance configuration classes)
        if name not in classes or name in seen:
            return {}
        bases, _, values = classes[name]
        out: dict[str, Any] = {}
        for base in reversed(bases):
            out.update(resolved(base, seen | {name}))
        out.update(values)
        return out

    defaults: dict[str, dict[str, Any]] = {}
    for name, (_, model_type, _) in sorted(classes.items()):
        values = resolved(name)
        if model_type and values:
            defaults.setdefault(model_type, values)
    return {
        "source": f"transformers {version_of(package)} (models/*/configuration_*.py, class defaults)",
        "fields": list(FIELDS),
        "defaults": dict(sorted(defaults.items())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transformers", type=Path, help="a transformers package directory")
    parser.add_argument("--check", action="store_true", help="fail when the stored file differs")
    args = parser.parse_args(argv)
    package = args.transformers or find_transformers()
    text = json.dumps(generate(package), indent=1, sort_keys=False) + "\n"
    if args.check:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} differs from {package}: run scripts/gen_config_defaults.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(json.loads(text)['defaults'])} model types)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
