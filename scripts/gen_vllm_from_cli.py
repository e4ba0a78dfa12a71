#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_from_cli.json: what each ``<Config>.from_cli`` converter of the
bundled vLLM schemas does with the word it gets, read from the release's own source.

vLLM 0.6-0.8 register some JSON flags with ``type=<Config>.from_cli`` (``--compilation-config``,
``--kv-transfer-config``). The schemas name the classmethod only; its body decides what the flag takes:
``KVTransferConfig.from_cli`` calls ``model_validate_json`` (JSON, ``"json"``), ``CompilationConfig.from_cli``
in 0.6.6.post1-0.8.5.post1 maps the words ``"0"``-``"3"`` to a level and reads anything else with
``ast.literal_eval`` (a Python literal: JSON and single-quoted dicts alike, ``"literal"``; vllm/config.py:3529
in 0.8.5). The class is found by AST in the module the type names (``vllm.config`` -> ``vllm/config.py`` or
``vllm/config/__init__.py``); nothing is typed by hand.

    python scripts/gen_vllm_from_cli.py [--wheels DIR] [--check]
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

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_from_cli.json"
GENERATOR = "scripts/gen_vllm_from_cli.py"


def _called(node: ast.AST) -> set[str]:
    """The attribute names called in ``node`` (``ast.literal_eval`` -> literal_eval)."""
    return {
        n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
        for n in ast.walk(node)
        if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name))
    }


def behaviour(source: str, cls: str) -> dict[str, Any] | None:
    """``{"reads": "literal"|"json", "words": [...]}`` for ``cls.from_cli`` in ``source``: ``words`` are the
    string literals a first ``if cli_value in [...]`` maps before parsing (levels)."""
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ClassDef) and node.name == cls):
            continue
        for fn in node.body:
            if not (isinstance(fn, ast.FunctionDef) and fn.name == "from_cli"):
                continue
            called = _called(fn)
            reads = (
                "literal"
                if "literal_eval" in called
                else "json"
                if called & {"loads", "model_validate_json", "validate_json"}
                else None
            )
            if reads is None:
                return None
            words: list[str] = []
            for test in (n.test for n in ast.walk(fn) if isinstance(n, ast.If)):
                if isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.In):
                    seq = test.comparators[0]
                    if isinstance(seq, (ast.List, ast.Tuple, ast.Set)):
                        words += [
                            e.value
                            for e in seq.elts
                            if isinstance(e, ast.Constant) and isinstance(e.value, str)
                        ]
            return {"reads": reads, "words": words, "line": fn.lineno}
    return None


def read_release(version: str, types: set[str], wheels: Path | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        found = sorted(wheels.glob(f"vllm-{version}-*.whl")) if wheels else []
        wheel = found[0] if found else environments.download_wheel("vllm", version, Path(tmp))
        with zipfile.ZipFile(wheel) as zf:
            names = set(zf.namelist())
            for type_name in sorted(types):
                module, cls, _method = type_name.rsplit(".", 2)
                base = module.replace(".", "/")
                path = next((p for p in (f"{base}.py", f"{base}/__init__.py") if p in names), None)
                got = behaviour(zf.read(path).decode("utf-8", "replace"), cls) if path else None
                if got is None:
                    raise SystemExit(f"vllm {version}: cannot read {type_name}")
                out[type_name] = {
                    **{k: v for k, v in got.items() if k != "line"},
                    "at": f"{path}:{got['line']}",
                }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels", type=Path, default=None)
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    for version in sorted(bundled_versions("vllm", include_user=False), key=version_key):
        schema = load_schema("vllm", version)
        types = {o.type for o in schema.options if o.type and o.type.endswith(".from_cli")}
        if types:
            releases[version] = read_release(version, types, args.wheels)
            print(f"vllm {version}: {releases[version]}", file=sys.stderr)
    data = {"format": 1, "generated_by": GENERATOR, "releases": releases}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
