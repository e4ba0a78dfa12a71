#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/field_names.json: per bundled SGLang release, the argparse dests that
``ServerArgs.from_cli_args`` renames to configuration fields (SGLang 0.5.10.post1: ``args.tp_size =
args.tensor_parallel_size``, so ``--tp-size`` is the field ``tp_size`` that the args log line and
/server_info report).

Read by AST from ``sglang/srt/server_args.py`` inside the release's wheel (the resolver wheel cache, else
``pip download --no-deps``); nothing is typed by hand. vLLM's ``EngineArgs.from_cli_args``
(``vllm/engine/arg_utils.py``) builds the dataclass as ``cls(**{attr: getattr(args, attr) for attr in
dataclasses.fields(cls) ...})``: each field is read from the dest of the same name, so its entry per
release is the renames found there (none in 0.11.0 and 0.33.0). The generator checks that shape by AST and
fails when a release builds EngineArgs another way, so a rename can never go unnoticed.

    python scripts/gen_field_names.py            # write
    python scripts/gen_field_names.py --check    # fail when the file differs from what the wheels say
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.frameworks.schema import bundled_versions  # noqa: E402
from argtrace.resolver.environments import cache_dir  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "field_names.json"
SOURCE = "sglang/srt/server_args.py"


def renames(source: str) -> dict[str, str]:
    """``{dest: field}`` for each ``args.FIELD = args.DEST`` in ``ServerArgs.from_cli_args``."""
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ClassDef) and node.name == "ServerArgs"):
            continue
        for item in node.body:
            if not (isinstance(item, ast.FunctionDef) and item.name == "from_cli_args"):
                continue
            out.update(_args_renames(item))
    return dict(sorted(out.items()))


def _args_renames(function: ast.FunctionDef) -> dict[str, str]:
    """``{DEST: FIELD}`` for each ``args.FIELD = args.DEST`` anywhere in ``function``."""
    out: dict[str, str] = {}
    for stmt in ast.walk(function):
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(target := stmt.targets[0], ast.Attribute)
            and isinstance(stmt.value, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and isinstance(stmt.value.value, ast.Name)
            and target.value.id == stmt.value.value.id == "args"
        ):
            out[stmt.value.attr] = target.attr
    return out


VLLM_SOURCE = "vllm/engine/arg_utils.py"


def vllm_renames(source: str) -> dict[str, str]:
    """``{dest: field}`` for vLLM's ``EngineArgs.from_cli_args``: ``{}`` when it reads every dataclass field
    from the dest of the same name (``getattr(args, attr)`` over ``dataclasses.fields(cls)``), plus any
    ``args.FIELD = args.DEST`` rename before that; SystemExit when it does neither (read it by hand)."""
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ClassDef) and node.name == "EngineArgs"):
            continue
        for item in node.body:
            if not (isinstance(item, ast.FunctionDef) and item.name == "from_cli_args"):
                continue
            text = ast.unparse(item)
            if "dataclasses.fields(cls)" not in text or "getattr(args, attr)" not in text:
                raise SystemExit(f"{VLLM_SOURCE}: EngineArgs.from_cli_args no longer copies fields by name")
            return dict(sorted(_args_renames(item).items()))
    raise SystemExit(f"{VLLM_SOURCE}: no EngineArgs.from_cli_args")


def engine_args_fields(source: str) -> list[str]:
    """The field names of vLLM's ``EngineArgs`` dataclass (its annotated class attributes)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == "EngineArgs":
            return [
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            ]
    return []


WHEEL_DIRS: list[Path] = []  # --wheels DIR: more places with downloaded wheels


def wheel_for(version: str, scratch: Path, framework: str = "sglang") -> Path:
    cached = [
        p
        for d in (cache_dir() / "wheels", *WHEEL_DIRS)
        for p in sorted(d.glob(f"{framework}-{version}-*.whl"))
    ]
    if cached:
        return cached[0]
    pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"{framework}=={version}"]
    subprocess.run([*pip, "-d", str(scratch)], check=True)
    return next(scratch.glob(f"{framework}-{version}-*.whl"))


def build() -> dict[str, dict[str, dict[str, str]]]:
    out: dict[str, dict[str, dict[str, str]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for framework, source, read in (("sglang", SOURCE, renames), ("vllm", VLLM_SOURCE, vllm_renames)):
            releases: dict[str, dict[str, str]] = {}
            for version in bundled_versions(framework, include_user=False):
                with zipfile.ZipFile(wheel_for(version, Path(tmp), framework)) as wheel:
                    releases[version] = read(wheel.read(source).decode("utf-8"))
            out[framework] = releases
    return out


def main() -> int:
    if "--wheels" in sys.argv:
        WHEEL_DIRS.append(Path(sys.argv[sys.argv.index("--wheels") + 1]))
    text = json.dumps(build(), indent=1, sort_keys=True) + "\n"
    if "--check" in sys.argv[1:]:
        if not OUT.is_file() or OUT.read_text() != text:
            print(f"{OUT} is stale: run python scripts/gen_field_names.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
