#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_field_bounds.json: the numeric bounds a vLLM release's
configuration classes put on the fields its command-line flags set, read from the release's own source
(``ast``, never imported).

vLLM's configuration classes are pydantic dataclasses; a field declared ``Field(default=1, ge=1)``
(``ParallelConfig.pipeline_parallel_size`` in 0.33.0) makes pydantic refuse a value outside the bound when
``EngineArgs.create_engine_config`` builds the object, so the server stops at start-up with a
ValidationError; releases without the bound take the value and fail later (vllm#54667: a pipeline parallel
size of 0 "selects no executor backend"). Kept: each ``Field(...)`` of ``vllm/config/*.py`` with a literal
``ge``/``gt``/``le``/``lt``, whose field ``EngineArgs`` declares with the class's default
(``pipeline_parallel_size: int = ParallelConfig.pipeline_parallel_size`` or ``get_field(CacheConfig,
"x")``) and passes on unchanged (``ParallelConfig(..., pipeline_parallel_size=self.pipeline_parallel_size)``
in ``vllm/engine/arg_utils.py``): the flag whose dest is that field reaches the bound as written. Nothing is
typed by hand.

    python scripts/gen_vllm_field_bounds.py [--sources DIR] [--check]

``--sources DIR`` reads unpacked releases (``DIR/<version>/vllm/...``); by default each release whose
resolver environment is built is read from it. Releases not read keep what the bundled file holds.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from argtrace.resolver.environments import find_environment, framework_environments  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_field_bounds.json"
GENERATOR = "scripts/gen_vllm_field_bounds.py"
BOUNDS = ("ge", "gt", "le", "lt")


def _number(node: ast.expr) -> float | int | None:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return -inner if inner is not None else None
    return None


def _field_bounds(config_dir: Path) -> dict[str, dict[str, Any]]:
    """``Class.field`` -> its literal bounds and ``file:line``, for every ``Field(...)`` with one."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(config_dir.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            for stmt in cls.body:
                if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                    continue
                call = stmt.value
                if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Field"):
                    continue
                bounds = {
                    k.arg: value
                    for k in call.keywords
                    if k.arg in BOUNDS and (value := _number(k.value)) is not None
                }
                if bounds:
                    where = f"vllm/config/{path.name}:{stmt.lineno}"
                    out[f"{cls.name}.{stmt.target.id}"] = {"bounds": bounds, "at": where}
    return out


def _engine_args_fields(arg_utils: Path) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """EngineArgs' fields declared with a config class's default (``field`` -> ``Class.field``), and the
    (class, field) pairs ``EngineArgs`` passes as ``Class(..., field=self.field)``."""
    tree = ast.parse(arg_utils.read_text(encoding="utf-8"))
    declared: dict[str, str] = {}
    passed: set[tuple[str, str]] = set()
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "EngineArgs"):
        for stmt in cls.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value):
                continue
            value = stmt.value
            name = stmt.target.id
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.attr == name:
                declared[name] = f"{value.value.id}.{name}"
            elif (
                isinstance(value, ast.Call)
                and getattr(value.func, "id", None) == "get_field"
                and len(value.args) == 2
                and isinstance(value.args[0], ast.Name)
                and isinstance(value.args[1], ast.Constant)
                and value.args[1].value == name
            ):
                declared[name] = f"{value.args[0].id}.{name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for k in node.keywords:
                v = k.value
                if (
                    k.arg
                    and isinstance(v, ast.Attribute)
                    and isinstance(v.value, ast.Name)
                    and v.value.id == "self"
                    and v.attr == k.arg
                ):
                    passed.add((node.func.id, k.arg))
    return declared, passed


def read_release(root: Path) -> dict[str, Any]:
    """The bounded fields of the release unpacked at ``root`` (``root/vllm/...``), by EngineArgs field."""
    bounds = _field_bounds(root / "vllm" / "config")
    declared, passed = _engine_args_fields(root / "vllm" / "engine" / "arg_utils.py")
    fields: dict[str, Any] = {}
    for name, owner in sorted(declared.items()):
        cls = owner.split(".", 1)[0]
        if owner in bounds and (cls, name) in passed:
            fields[name] = {"field": owner, **bounds[owner]}
    return {"fields": fields}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sources", type=Path, default=None, help="unpacked releases: DIR/<version>/vllm/...")
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    bundled: dict[str, Any] = json.loads(OUT.read_text()) if OUT.is_file() else {}
    releases: dict[str, Any] = dict(bundled.get("releases") or {})
    roots: dict[str, Path] = {}
    if args.sources is not None:
        roots = {d.name: d for d in sorted(args.sources.iterdir()) if (d / "vllm").is_dir()}
    else:
        for manifest in framework_environments("vllm"):
            if not manifest.version or find_environment("vllm", manifest.version) is None:
                continue
            site = next(Path(manifest.path).glob("lib/python*/site-packages"), None)
            if site is not None and (site / "vllm").is_dir():
                roots[manifest.version] = site
    for version, root in roots.items():
        releases[version] = read_release(root)
        print(f"vllm {version}: {len(releases[version]['fields'])} bounded fields", file=sys.stderr)
    data = {"format": 1, "generated_by": GENERATOR, "releases": releases}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
