#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_model_loaders.json: which model loader class each ``--load-format``
value selects in each vLLM release read, from the release's own ``get_model_loader``
(vllm/model_executor/model_loader/__init__.py).

Two shapes are read:

- up to the 0.9 line, an if-chain ``if load_config.load_format == LoadFormat.NAME: return Loader(...)`` whose
  last ``return Loader(...)`` is what every other value (``auto`` among them) selects; ``LoadFormat.NAME``'s
  value is read from the ``LoadFormat`` enum in the release's config module;
- later, the module-level ``_LOAD_FORMAT_TO_MODEL_LOADER = {"value": Loader, ...}`` table.

``why`` uses it to rank a loader that only a non-default format selects (``BitsAndBytesModelLoader``) after
the default loader when both raise the same message. Nothing is typed by hand.

    python scripts/gen_vllm_model_loaders.py --wheels DIR [--check]
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test

from argtrace.frameworks.schema import version_key  # noqa: E402
from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_model_loaders.json"
GENERATOR = "scripts/gen_vllm_model_loaders.py"
LOADER_FILE = "vllm/model_executor/model_loader/__init__.py"
CONFIG_FILES = ("vllm/config/load.py", "vllm/config/__init__.py", "vllm/config.py")


def enum_values(source: str, name: str = "LoadFormat") -> dict[str, str]:
    """``MEMBER -> "value"`` of the class ``name`` in ``source``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == name:
            return {
                t.id: s.value.value
                for s in node.body
                if isinstance(s, ast.Assign)
                and isinstance(s.value, ast.Constant)
                and isinstance(s.value.value, str)
                for t in s.targets
                if isinstance(t, ast.Name)
            }
    return {}


def _class_of(node: ast.AST | None) -> str | None:
    """``Loader`` of ``return Loader(...)`` or of a table's ``Loader`` value."""
    if isinstance(node, ast.Call):
        node = node.func
    return node.id if isinstance(node, ast.Name) else None


def table(source: str) -> dict[str, str]:
    """The ``_LOAD_FORMAT_TO_MODEL_LOADER`` table: value -> loader class."""
    for node in ast.parse(source).body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if not (isinstance(target, ast.Name) and "LOADER" in target.id and isinstance(value, ast.Dict)):
            continue
        out = {}
        for key, cls in zip(value.keys, value.values, strict=True):
            name = _class_of(cls)
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and name:
                out[key.value] = name
        return out
    return {}


def if_chain(source: str, members: dict[str, str]) -> tuple[dict[str, str], str | None]:
    """(value -> loader class, the class the final ``return`` gives every other value) of
    ``get_model_loader``."""
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.FunctionDef) and node.name == "get_model_loader"):
            continue
        out: dict[str, str] = {}
        for stmt in node.body:
            if not isinstance(stmt, ast.If) or not isinstance(stmt.test, ast.Compare):
                continue
            right = stmt.test.comparators[0]
            returned = stmt.body[-1]
            cls = _class_of(returned.value) if isinstance(returned, ast.Return) else None
            if isinstance(right, ast.Attribute) and right.attr in members and cls:
                out[members[right.attr]] = cls
        last = node.body[-1]
        return out, _class_of(last.value) if isinstance(last, ast.Return) else None
    return {}, None


def read_release(source: Path) -> tuple[str, dict[str, Any]]:
    def wanted(m: str) -> bool:
        return m == LOADER_FILE or m in CONFIG_FILES

    version, _, texts = wheel_modules(source, wanted, "vllm")
    loader = texts.get(LOADER_FILE)
    if loader is None:
        raise SystemExit(f"vllm {version}: no {LOADER_FILE}")
    formats = table(loader)
    default = formats.get("auto")
    if not formats:
        members: dict[str, str] = {}
        for path in CONFIG_FILES:
            members |= enum_values(texts.get(path, ""))
        formats, default = if_chain(loader, members)
        if default is not None:
            formats.setdefault(members.get("AUTO", "auto"), default)
    if not formats or default is None:
        raise SystemExit(f"vllm {version}: get_model_loader read no table")
    return version, {"default": default, "formats": formats, "source": f"{LOADER_FILE}:get_model_loader"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels", type=Path, required=True, help="a directory of vllm wheels")
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    for wheel in sorted(args.wheels.glob("vllm-*.whl")):
        version, read = read_release(wheel)
        releases[version] = read
        print(f"vllm {version}: {read}", file=sys.stderr)
    releases = {v: releases[v] for v in sorted(releases, key=version_key)}
    data = {"format": 1, "generated_by": GENERATOR, "releases": releases}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
