#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/sglang_mamba_slots.json: how many Mamba state slots an SGLang
release holds per running request, and so how many requests an explicit ``--max-mamba-cache-size`` admits,
read from the release's wheel by AST (layers/mamba_slots.py uses it, RS074).

A hybrid model's scheduler caps the running requests at ``max_mamba_cache_size // ratio``
(``_resolve_max_num_reqs``/``resolve_max_num_reqs``); the ratio is ``_calculate_mamba_ratio``
(srt/model_executor/model_runner_kv_cache_mixin.py up to 0.5.15.post1, srt/mem_cache/kv_cache_configurator.py
from 0.5.16): 1 without the radix cache, else a base of ``MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO``
(less ``MAMBA_CACHE_BASE_RATIO_DROP_ON_SKIP`` under ``SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK``) plus the
extra buffer's ping-pong slots: ``MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP`` with the overlap scheduler,
``..._OVERLAP_LAZY`` for ``extra_buffer_lazy``, ``..._NO_OVERLAP`` without it (from 0.5.22
``get_mamba_tracking_slots`` in srt/mem_cache/allocation_sizing.py: 1 lazy, 2 with overlap, else 1), and
``MAMBA_CACHE_V2_ADDITIONAL_RATIO_NO_BUFFER`` for ``no_buffer`` under the skip. Recorded per release: the
constants, which of the branches its function has (``lazy``, ``skip_decode_lock``), where the function and
the cap are. A release whose function has none of these forms (before 0.5.10.post1 the ratio is computed
inline) is left out: layers/mamba_slots.py says nothing about it.

  pip download sglang==0.5.23 --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_34_x86_64 --platform any -d /tmp/sw
  python scripts/gen_sglang_mamba_slots.py [--check] /tmp/sw/sglang-*.whl
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/sglang_mamba_slots.json"
GENERATOR = "scripts/gen_sglang_mamba_slots.py"
_CONSTANTS = {
    "MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO": "base",
    "MAMBA_CACHE_BASE_RATIO_DROP_ON_SKIP": "skip_drop",
    "MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP": "overlap",
    "MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP_LAZY": "lazy",
    "MAMBA_CACHE_V2_ADDITIONAL_RATIO_NO_OVERLAP": "no_overlap",
    "MAMBA_CACHE_V2_ADDITIONAL_RATIO_NO_BUFFER": "no_buffer_skip",
}
# get_mamba_tracking_slots's body (0.5.22 on), blanks and its docstring removed
_TRACKING = "ifnotextra_buffer:return0iflazy:return1return2ifoverlapelse1"


def _squeeze(src: str) -> str:
    return re.sub(r"\s+", "", src)


def _function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _body(text: str, node: ast.FunctionDef) -> str:
    body = node.body[1:] if isinstance(node.body[0], ast.Expr) else node.body  # its docstring
    return _squeeze("".join(ast.get_source_segment(text, stmt) or "" for stmt in body))


def facts(texts: dict[str, str]) -> dict[str, Any] | None:
    """The release's ratio, from its modules (path -> text): None when no form this reading knows."""
    ratio_at = cap_at = None
    constants: dict[str, int] = {}
    tracking = False
    ratio_src = ""
    for path, text in sorted(texts.items()):
        tree = ast.parse(text)
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name) and target.id in _CONSTANTS:
                    if isinstance(node.value, ast.Constant) and isinstance(node.value.value, int):
                        constants[_CONSTANTS[target.id]] = node.value.value
        fn = _function(tree, "_calculate_mamba_ratio")
        if fn is not None:
            ratio_at, ratio_src = f"{path}:{fn.lineno}", _squeeze(ast.get_source_segment(text, fn) or "")
        slots = _function(tree, "get_mamba_tracking_slots")
        if slots is not None and _body(text, slots) == _TRACKING:
            tracking = True
        rows = text.splitlines()
        for node in ast.walk(tree):  # the cap in the function resolving the running requests
            if isinstance(node, ast.FunctionDef) and "max_num_reqs" in node.name and cap_at is None:
                for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                    if re.search(r"max_mamba_cache_size\s*//\s*ratio", rows[line - 1]):
                        cap_at = f"{path}:{line}"
                        break
    if ratio_at is None or cap_at is None or "base" not in constants:
        return None
    if "ifself.server_args.disable_radix_cache:return1" not in ratio_src and (
        "ifget_memory().disable_radix_cache:return1" not in ratio_src
    ):
        return None
    out: dict[str, Any] = {"base": constants["base"], "ratio_at": ratio_at, "cap_at": cap_at}
    if tracking and "get_mamba_tracking_slots(" in ratio_src:
        out.update(overlap=2, lazy=1, no_overlap=1)  # get_mamba_tracking_slots (module docstring)
    elif "overlap" in constants and "no_overlap" in constants:
        out.update(overlap=constants["overlap"], no_overlap=constants["no_overlap"])
        if "MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP_LAZY" in ratio_src and "lazy" in constants:
            out["lazy"] = constants["lazy"]
    else:
        return None
    if "SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK" in ratio_src and "skip_drop" in constants:
        out["skip_drop"] = constants["skip_drop"]
        if "no_buffer_skip" in constants and "MAMBA_CACHE_V2_ADDITIONAL_RATIO_NO_BUFFER" in ratio_src:
            out["no_buffer_skip"] = constants["no_buffer_skip"]
    return out


# the modules that may hold the ratio
_WANTED = re.compile(r"sglang/srt/(model_executor/model_runner\w*|mem_cache/\w+)\.py$")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="SGLang wheels")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, all_texts = wheel_modules(Path(path), _WANTED.search, "sglang")
        texts = {m: t for m, t in all_texts.items() if "mamba" in t}
        found = facts(texts)
        wheels[release] = wheel
        if found is not None:
            releases[release] = found
    data = {
        "generated_by": GENERATOR,
        "source": "sglang wheels: _calculate_mamba_ratio and its constants, get_mamba_tracking_slots, the "
        "running-request cap max_mamba_cache_size // ratio",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
