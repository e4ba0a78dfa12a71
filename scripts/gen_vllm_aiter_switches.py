#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_aiter_switches.json: the ROCm AITER variables a vLLM release
reads only under its master switch ``VLLM_ROCM_USE_AITER``, read from the release's wheel by AST.

``vllm/_aiter_ops.py`` copies each variable into a class attribute of ``rocm_aiter_ops``
(``_TRITON_UNIFIED_ATTN_ENABLED = envs.VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION``) and answers every question
about it as ``cls._AITER_ENABLED and cls._TRITON_UNIFIED_ATTN_ENABLED``, ``_AITER_ENABLED`` being
``envs.VLLM_ROCM_USE_AITER`` (vllm 0.33.0 ``_aiter_ops.py:2576``). A variable is kept when every read of
its attribute in that module is an operand of such an ``and`` beside ``cls._AITER_ENABLED``, and every
other module of the wheel (but ``vllm/envs.py``, which defines it) reads it only as ``envs.NAME`` beside
``envs.VLLM_ROCM_USE_AITER`` in an ``and`` (``platforms/rocm.py``), never by its string: then setting it
without the master switch changes nothing (SemiAnalysisAI/InferenceX PR#806 adds the missing
``VLLM_ROCM_USE_AITER=1``). With the line of the first gated read in ``_aiter_ops.py``.

  pip download vllm==0.33.0 --no-deps --only-binary=:all: -d /tmp/vw
  python scripts/gen_vllm_aiter_switches.py [--check] /tmp/vw/vllm-*.whl

A directory may stand for a wheel: its ``vllm/*.py`` files that name ``VLLM_ROCM_USE_AITER`` (and
``vllm/_aiter_ops.py``) as extracted from it, under ``DIR/vllm/``, with a ``WHEEL`` file naming the wheel.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/vllm_aiter_switches.json"
GENERATOR = "scripts/gen_vllm_aiter_switches.py"
OPS = "vllm/_aiter_ops.py"
ENVS = "vllm/envs.py"
MASTER = "VLLM_ROCM_USE_AITER"
_VERSION = re.compile(r"vllm-(\d+(?:\.\d+)+(?:\.post\d+)?)-")


def _env_name(node: ast.AST) -> str | None:
    """``envs.NAME`` -> NAME."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "envs":
        return node.attr
    return None


def gated(ops: str) -> dict[str, int]:
    """Variable -> the line of its first read, for the variables ``_aiter_ops.py`` reads only beside the
    master switch."""
    tree = ast.parse(ops)
    attr_of: dict[str, str] = {}  # class attribute -> variable
    master_attrs: set[str] = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for stmt in cls.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                name = _env_name(stmt.value)
                if name == MASTER:
                    master_attrs.add(stmt.targets[0].id)
                elif name is not None:
                    attr_of[stmt.targets[0].id] = name
    if not master_attrs:
        return {}
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    reads: dict[str, list[tuple[bool, int]]] = {}
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "cls"
            and node.attr in attr_of
            and isinstance(node.ctx, ast.Load)
        ):
            continue
        parent = parents.get(id(node))
        beside_master = (
            isinstance(parent, ast.BoolOp)
            and isinstance(parent.op, ast.And)
            and any(
                isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.attr in master_attrs
                for v in parent.values
            )
        )
        reads.setdefault(attr_of[node.attr], []).append((beside_master, node.lineno))
    return {
        name: min(line for _, line in found)
        for name, found in reads.items()
        if found and all(ok for ok, _ in found)
    }


def _reads_elsewhere(text: str) -> dict[str, bool]:
    """Variable -> whether every read of it in a module other than ``_aiter_ops.py`` is ``envs.NAME`` beside
    ``envs.VLLM_ROCM_USE_AITER`` in an ``and`` (vllm 0.16.0 platforms/rocm.py:345: ``if
    envs.VLLM_ROCM_USE_AITER and envs.VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION``); a name given as a string
    (``os.getenv("...")``) is a read that is not."""
    tree = ast.parse(text)
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    out: dict[str, bool] = {}
    for node in ast.walk(tree):
        name = _env_name(node)
        if name is not None and name != MASTER:
            parent = parents.get(id(node))
            beside = (
                isinstance(parent, ast.BoolOp)
                and isinstance(parent.op, ast.And)
                and any(_env_name(v) == MASTER for v in parent.values)
            )
            out[name] = out.get(name, True) and beside
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(MASTER):
            out[node.value] = False
    return out


def switches(texts: dict[str, str]) -> dict[str, str]:
    """Variable -> where it is read under the master switch, for those every other module reads only beside
    the master switch too."""
    ops = texts.get(OPS)
    if ops is None:
        return {}
    elsewhere: dict[str, bool] = {}
    for path, text in texts.items():
        if path in (OPS, ENVS):
            continue
        for name, ok in _reads_elsewhere(text).items():
            elsewhere[name] = elsewhere.get(name, True) and ok
    # only the VLLM_ROCM_USE_AITER_* names: the modules read are those that name the master switch, and a
    # module reading another variable (VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT) need not name it
    return {
        name: f"{OPS}:{line}"
        for name, line in sorted(gated(ops).items())
        if name.startswith(f"{MASTER}_") and elsewhere.get(name, True)
    }


def _texts(source: Path) -> tuple[str, str, dict[str, str]]:
    """(release, wheel name, module path -> text) of the modules that name the AITER variables."""
    if source.is_dir():
        wheel = (source / "WHEEL").read_text().strip()
        texts = {
            str(p.relative_to(source)): p.read_text() for p in (source / "vllm").rglob("*.py") if p.is_file()
        }
    else:
        wheel = source.name
        texts = {}
        with zipfile.ZipFile(source) as archive:
            for name in archive.namelist():
                if name.startswith("vllm/") and name.endswith(".py"):
                    data = archive.read(name)
                    if name == OPS or MASTER.encode() in data:
                        texts[name] = data.decode()
    found = _VERSION.match(wheel)
    if found is None:
        raise SystemExit(f"{source}: no vLLM release in the wheel name {wheel!r}")
    return found.group(1), wheel, texts


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="vLLM wheels (or trees extracted from them)")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = _texts(Path(path))
        wheels[release] = wheel
        if OPS in texts:
            releases[release] = {"master": MASTER, "gated": switches(texts)}
    data = {
        "generated_by": GENERATOR,
        "source": f"vllm wheels: {OPS} (rocm_aiter_ops) and every module that names {MASTER}",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
