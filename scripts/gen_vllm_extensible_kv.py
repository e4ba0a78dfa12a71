#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_extensible_kv.json: the launch settings with which a vLLM
release refuses ``--enable-extensible-kv-cache``, read from the releases' wheels by AST.

vLLM 0.34.0 added an extensible KV cache (driver-mapped memory sized from what the start-up measures, on by
default on CUDA and ROCm). ``VllmConfig._resolve_extensible_kv_cache`` (vllm/config/vllm.py) names why it
cannot run in an if/elif chain of ``unsupported = "..."`` assignments, and refuses the flag written on::

    elif cache_config.kv_cache_memory_bytes is not None:
        unsupported = ("it sizes the KV cache from measured memory, which "
                       "kv_cache_memory_bytes overrides")
    ...
    elif requested and unsupported is not None:
        raise ValueError(f"enable_extensible_kv_cache: {unsupported}.")

where ``requested = cache_config.enable_extensible_kv_cache`` (None when not written: then the cache is only
turned off). Kept: each branch whose test is a launch setting, ``<x>_config.<field> is not None`` (the
setting is given) or ``self.<x>_config.<field>`` (it is on), with its reason and line, and the refusal's
words with ``{unsupported}`` in place. Branches on the platform or a KV connector's properties are not
settings of the launch and are left out. A release without the method holds ``{}``.

  pip download vllm==0.34.0 --no-deps --only-binary=:all: -d /tmp/vw
  python scripts/gen_vllm_extensible_kv.py [--check] /tmp/vw/vllm-*.whl

A directory may stand for a wheel: ``vllm/config/vllm.py`` as extracted from it, with a ``WHEEL`` file naming
the wheel it came from.
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

OUT = ROOT / "src/argtrace/frameworks/data/vllm_extensible_kv.json"
GENERATOR = "scripts/gen_vllm_extensible_kv.py"
CONFIG = "vllm/config/vllm.py"
METHOD = "_resolve_extensible_kv_cache"


def _setting(test: ast.expr) -> dict[str, str] | None:
    """The launch setting a branch's test reads: ``<x>.<field> is not None`` -> given; ``self.<x>.<field>``
    -> on. None for anything else (the platform, a connector's access mode)."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
        and isinstance(test.left, ast.Attribute)
        and isinstance(test.left.value, (ast.Name, ast.Attribute))
    ):
        return {"setting": test.left.attr, "when": "given"}
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Attribute):
        owner = test.value
        if isinstance(owner.value, ast.Name) and owner.value.id == "self" and owner.attr.endswith("_config"):
            return {"setting": test.attr, "when": "on"}
    return None


def _text(node: ast.expr) -> str | None:
    """A string constant, or an f-string with each field as ``{name}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
                parts.append("{" + value.value.id + "}")
            else:
                return None
        return "".join(parts)
    return None


def _chain(node: ast.If) -> list[ast.If]:
    out = [node]
    while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
        node = node.orelse[0]
        out.append(node)
    return out


def facts(text: str) -> dict[str, Any]:
    """What one release's ``VllmConfig._resolve_extensible_kv_cache`` says ({} without the method)."""
    method = next(
        (n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef) and n.name == METHOD),
        None,
    )
    if method is None:
        return {}
    flag = None
    blockers: list[dict[str, Any]] = []
    refusal = None
    seen: set[int] = set()
    for node in ast.walk(method):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "requested"
            and isinstance(node.value, ast.Attribute)
        ):
            flag = node.value.attr
        if not isinstance(node, ast.If) or id(node) in seen:
            continue
        for branch in _chain(node):
            seen.add(id(branch))
            body = branch.body
            if (
                len(body) == 1
                and isinstance(body[0], ast.Assign)
                and isinstance(body[0].targets[0], ast.Name)
                and body[0].targets[0].id == "unsupported"
            ):
                reason = _text(body[0].value)
                setting = _setting(branch.test)
                if reason is not None and setting is not None:
                    blockers.append({**setting, "reason": reason, "where": f"{CONFIG}:{branch.test.lineno}"})
            test = ast.unparse(branch.test)
            if test == "requested and unsupported is not None" and body and isinstance(body[0], ast.Raise):
                exc = body[0].exc
                if isinstance(exc, ast.Call) and exc.args:
                    words = _text(exc.args[0])
                    if words is not None:
                        refusal = {"message": words, "where": f"{CONFIG}:{body[0].lineno}"}
    if flag is None or refusal is None:
        raise SystemExit(f"{METHOD}: no `requested = ...` or no refusal found; the generator needs a look")
    return {"flag": flag, "blockers": blockers, "refusal": refusal}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="vLLM wheels (or trees extracted from them)")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), lambda m: m == CONFIG, "vllm")
        releases[release] = facts(texts.get(CONFIG, ""))
        wheels[release] = wheel
    data = {
        "generated_by": GENERATOR,
        "source": f"vllm wheels: {CONFIG} (VllmConfig.{METHOD})",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
