#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_tokenizer_modes.json: the ``--tokenizer-mode`` values each bundled
vLLM release takes once the flag is a free string, read from the release's own source.

Up to 0.11.2 ``--tokenizer-mode`` has argparse choices (the schemas refuse anything else). From 0.12.0 the
field is ``TokenizerMode | str`` and argparse takes any word; the check is the tokenizer registry's lookup at
start-up (``No tokenizer registered for tokenizer_mode=...``, vllm/tokenizers/registry.py). A word is taken
when the release registers a tokenizer under it or translates it before the lookup:

- registered: ``TokenizerRegistry.register("NAME")`` calls and decorators anywhere in the wheel (0.12.0),
  and the keys of the module-level ``{NAME: (module, class)}`` table in vllm/tokenizers/registry.py (later
  releases, ``_VLLM_TOKENIZERS``);
- translated: the words an ``if tokenizer_mode == "WORD":`` branch rebinds ``tokenizer_mode`` for
  (``auto``, ``slow``, ``custom``), in vllm/tokenizers/registry.py and the file that defines ModelConfig;
- ``lowercase``: the ModelConfig field has a validator that lowercases the word first.

The releases whose schema keeps choices for the flag are not read. Nothing is typed by hand.

    python scripts/gen_vllm_tokenizer_modes.py [--wheels DIR] [--check]
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

from argtrace.frameworks.schema import bundled_versions, load_schema, version_key  # noqa: E402
from argtrace.resolver import environments  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_tokenizer_modes.json"
GENERATOR = "scripts/gen_vllm_tokenizer_modes.py"
REGISTRY_FILE = "vllm/tokenizers/registry.py"
REFUSAL = "No tokenizer registered for"
CONFIG_FILES = ("vllm/config/model.py", "vllm/config/__init__.py", "vllm/config.py")


def _is_mode(node: ast.AST) -> bool:
    """``tokenizer_mode`` or ``<x>.tokenizer_mode``."""
    return (isinstance(node, ast.Name) and node.id == "tokenizer_mode") or (
        isinstance(node, ast.Attribute) and node.attr == "tokenizer_mode"
    )


def registered_calls(source: str) -> set[str]:
    """The first string argument of each ``TokenizerRegistry.register(...)`` call (decorators included)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value
        if node.func.attr != "register" or not (
            isinstance(owner, ast.Name) and owner.id == "TokenizerRegistry"
        ):
            continue
        if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            out.add(node.args[0].value)
    return out


def registry_table(source: str) -> set[str]:
    """The keys of module-level ``{NAME: (module, class)}`` tables whose name says they list tokenizers."""
    out: set[str] = set()
    for node in ast.parse(source).body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if not isinstance(value, ast.Dict) or not any("TOKENIZER" in n.upper() for n in names):
            continue
        keys = [k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        if keys and len(keys) == len(value.keys) and all(isinstance(v, ast.Tuple) for v in value.values):
            out.update(keys)
    return out


def translated(source: str) -> set[str]:
    """Words an ``if tokenizer_mode == "WORD":`` branch rebinds ``tokenizer_mode`` for."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.If):
            continue
        tests = node.test.values if isinstance(node.test, ast.BoolOp) else [node.test]
        words = [
            t.comparators[0].value
            for t in tests
            if isinstance(t, ast.Compare)
            and _is_mode(t.left)
            and len(t.ops) == 1
            and isinstance(t.ops[0], ast.Eq)
            and isinstance(t.comparators[0], ast.Constant)
            and isinstance(t.comparators[0].value, str)
        ]
        rebinds = any(
            isinstance(n, (ast.Assign, ast.AnnAssign))
            and any(_is_mode(t) for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))
            for stmt in node.body
            for n in ast.walk(stmt)
        )
        if words and rebinds:
            out.update(words)
    return out


def lowercases(source: str) -> bool:
    """A validator of the ``tokenizer_mode`` field that calls ``.lower()``."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        fields = [
            a.value
            for d in node.decorator_list
            if isinstance(d, ast.Call)
            for a in d.args
            if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        calls_lower = any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "lower"
            for n in ast.walk(node)
        )
        if "tokenizer_mode" in fields and calls_lower:
            return True
    return False


def refusal_line(source: str) -> int | None:
    """The line of the ``raise ValueError(f"No tokenizer registered for ...")``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and REFUSAL in ast.unparse(node):
            return node.lineno
    return None


def read_release(version: str, wheels: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        found = sorted(wheels.glob(f"vllm-{version}-*.whl")) if wheels else []
        wheel = found[0] if found else environments.download_wheel("vllm", version, Path(tmp))
        with zipfile.ZipFile(wheel) as zf:
            names = set(zf.namelist())
            if REGISTRY_FILE not in names:
                raise SystemExit(f"vllm {version}: no {REGISTRY_FILE}")
            registry = zf.read(REGISTRY_FILE).decode("utf-8", "replace")
            registered = registry_table(registry)
            for name in sorted(n for n in names if n.startswith("vllm/") and n.endswith(".py")):
                text = zf.read(name).decode("utf-8", "replace")
                if "TokenizerRegistry" in text:
                    registered |= registered_calls(text)
            config = next((zf.read(p).decode("utf-8", "replace") for p in CONFIG_FILES if p in names), "")
    line = refusal_line(registry)
    if line is None:
        raise SystemExit(f"vllm {version}: no '{REFUSAL}' raise in {REGISTRY_FILE}")
    return {
        "registered": sorted(registered),
        "translated": sorted(translated(registry) | translated(config)),
        "lowercase": lowercases(config),
        "refusal_at": f"{REGISTRY_FILE}:{line}",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels", type=Path, default=None)
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    for version in sorted(bundled_versions("vllm", include_user=False), key=version_key):
        option = load_schema("vllm", version).option("--tokenizer-mode")
        if option is None or option.choices:
            continue  # argparse's choices check the word (the schema)
        releases[version] = read_release(version, args.wheels)
        print(f"vllm {version}: {releases[version]}", file=sys.stderr)
    data = {"format": 1, "generated_by": GENERATOR, "releases": releases}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
