#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_mamba_cache.json: what a vLLM release does with the Mamba cache
mode a launch writes (``--mamba-cache-mode``), read from the release's wheel by AST (layers/mamba_cache.py
uses it):

- ``reaches_cache``: ``EngineArgs.create_engine_config`` passes the flag on to ``CacheConfig``
  (``mamba_cache_mode=self.mamba_cache_mode``, vllm/engine/arg_utils.py); vLLM 0.33.0 only warns that the flag
  is deprecated and has no effect (PA016 says so), and a release without it is left out.
- ``off_without_prefix_caching``: ``MambaModelConfig.verify_and_update_config`` (vllm/model_executor/models/
  config.py) sets ``cache_config.mamba_cache_mode = "none"`` in the ``else`` of ``if
  cache_config.enable_prefix_caching:``, with a warning: the line and the warning's words.
- ``prefix_caching_requires``: the asserts of that ``if``'s body, each with the mode it is read under
  (``"align"`` inside ``if cache_config.mamba_cache_mode == "align":``, ``"any"`` at the body's level), the
  setting it needs in the forms this reading knows (``chunked_prefill``: ``vllm_config.scheduler_config.
  enable_chunked_prefill``; ``no_speculative``: ``not vllm_config.speculative_config``), its line and message.

  pip download vllm==0.28.0 --no-deps --only-binary=:all: -d /tmp/vw
  python scripts/gen_vllm_mamba_cache.py [--check] /tmp/vw/vllm-*.whl

A directory may stand for a wheel: the two modules as extracted from it, with a ``WHEEL`` file naming the
wheel they came from. Only the wheels given are read; layers/mamba_cache.py says nothing about another
release.
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

OUT = ROOT / "src/argtrace/frameworks/data/vllm_mamba_cache.json"
GENERATOR = "scripts/gen_vllm_mamba_cache.py"
MODELS_CONFIG = "vllm/model_executor/models/config.py"
ARG_UTILS = "vllm/engine/arg_utils.py"

# the assert conditions this reading knows, by their source text with blanks removed
_NEEDS = {
    "vllm_config.scheduler_config.enable_chunked_prefill": "chunked_prefill",
    "notvllm_config.speculative_config": "no_speculative",
}


def _squeeze(node: ast.AST) -> str:
    return re.sub(r"\s+", "", ast.unparse(node))


def _verify(text: str) -> ast.FunctionDef | None:
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef) and node.name == "MambaModelConfig":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "verify_and_update_config":
                    return item
    return None


def _warning(body: list[ast.stmt]) -> str | None:
    """The literal first argument of a ``logger.warning`` call among ``body``'s statements."""
    for sub in body:
        call = sub.value if isinstance(sub, ast.Expr) else None
        if isinstance(call, ast.Call) and _squeeze(call.func) in ("logger.warning", "logger.warning_once"):
            first = call.args[0] if call.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                return first.value
    return None


def _requires(body: list[ast.stmt], mode: str) -> list[dict[str, Any]]:
    """The known asserts of ``body``, and of the ``if cache_config.mamba_cache_mode == "align":`` in it."""
    out: list[dict[str, Any]] = []
    for sub in body:
        if isinstance(sub, ast.Assert) and _squeeze(sub.test) in _NEEDS:
            message = sub.msg.value if isinstance(sub.msg, ast.Constant) else None
            out.append(
                {
                    "mode": mode,
                    "needs": _NEEDS[_squeeze(sub.test)],
                    "message": message,
                    "where": f"{MODELS_CONFIG}:{sub.lineno}",
                }
            )
        if isinstance(sub, ast.If) and _squeeze(sub.test) == "cache_config.mamba_cache_mode=='align'":
            out.extend(_requires(sub.body, "align"))
    return out


def models_config(text: str) -> dict[str, Any]:
    """What ``MambaModelConfig.verify_and_update_config`` does with the mode and prefix caching."""
    fn = _verify(text)
    out: dict[str, Any] = {}
    if fn is None:
        return out
    for node in ast.walk(fn):
        if not (isinstance(node, ast.If) and _squeeze(node.test) == "cache_config.enable_prefix_caching"):
            continue
        for sub in node.orelse:
            if not (
                isinstance(sub, ast.If) and _squeeze(sub.test) == "cache_config.mamba_cache_mode!='none'"
            ):
                continue
            sets_none = next(
                (
                    s
                    for s in sub.body
                    if isinstance(s, ast.Assign)
                    and _squeeze(s.targets[0]) == "cache_config.mamba_cache_mode"
                    and isinstance(s.value, ast.Constant)
                    and s.value.value == "none"
                ),
                None,
            )
            if sets_none is not None:
                out["off_without_prefix_caching"] = {
                    "where": f"{MODELS_CONFIG}:{sets_none.lineno}",
                    "warning": _warning(sub.body),
                }
        requires = _requires(node.body, "any")
        if requires:
            out["prefix_caching_requires"] = requires
        break
    return out


def reaches_cache(text: str) -> bool:
    """``mamba_cache_mode=self.mamba_cache_mode`` among a call's keywords in arg_utils.py."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.keyword) and node.arg == "mamba_cache_mode":
            if _squeeze(node.value) == "self.mamba_cache_mode":
                return True
    return False


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """What one release's modules say (a module it lacks says nothing)."""
    out: dict[str, Any] = {}
    if ARG_UTILS in texts:
        out["reaches_cache"] = reaches_cache(texts[ARG_UTILS])
    if MODELS_CONFIG in texts:
        out.update(models_config(texts[MODELS_CONFIG]))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="vLLM wheels (or trees extracted from them)")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), (MODELS_CONFIG, ARG_UTILS).__contains__, "vllm")
        releases[release] = facts(texts)
        wheels[release] = wheel
    data = {
        "generated_by": GENERATOR,
        "source": f"vllm wheels: {ARG_UTILS} (EngineArgs: the flag passed on to CacheConfig), "
        f"{MODELS_CONFIG} (MambaModelConfig.verify_and_update_config)",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
