#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/sglang_hicache_mamba_host.json: the host size an SGLang release
gives the Mamba host pool of a hybrid model under HiCache, read from the release's wheel by AST
(layers/hicache_host.py uses it, MM014).

With ``--enable-hierarchical-cache`` a hybrid (Mamba / linear-attention) model gets two host pools per
rank: the KV host pool and a ``MambaPoolHost`` for the recurrent states. Each sizes itself as ``host_size``
GB when that is positive (``HostKVCache.__init__``/``MambaPoolHost.__init__``, srt/mem_cache/
memory_pool_host.py: ``int(host_size * 1e9 // self.size_per_token)``). Up to 0.5.16 the caller passes
``server_args.hicache_size`` itself to the Mamba pool (srt/mem_cache/hi_mamba_radix_cache.py in 0.5.10.post1,
build_hybrid_mamba_stack in srt/mem_cache/hybrid_cache/hybrid_pool_assembler.py from 0.5.11), as it does to
the KV pool: ``--hicache-size N`` pins 2N GB per rank (sglang#29034, fixed by PR 32915); from 0.5.17 the
size is split between the pools (``_split_hicache_size``). Recorded per release: each ``MambaPoolHost(...)``
call (module:line) with its host-size argument, and ``unscaled`` when every call passes
``server_args.hicache_size``. A release without the call (no HiCache for hybrid models) is recorded empty.

  pip download sglang==0.5.14 --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_34_x86_64 --platform any -d /tmp/sw
  python scripts/gen_sglang_hicache_mamba_host.py [--check] /tmp/sw/sglang-*.whl
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

OUT = ROOT / "src/argtrace/frameworks/data/sglang_hicache_mamba_host.json"
GENERATOR = "scripts/gen_sglang_hicache_mamba_host.py"
UNSCALED = "server_args.hicache_size"


def _wanted(module: str) -> bool:
    return module.startswith("sglang/srt/mem_cache/") and module.endswith(".py")


def _host_size(call: ast.Call) -> ast.expr | None:
    # MambaPoolHost(device_pool, host_to_device_ratio, host_size, ...): the third positional or the keyword
    for keyword in call.keywords:
        if keyword.arg == "host_size":
            return keyword.value
    return call.args[2] if len(call.args) > 2 else None


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """The ``MambaPoolHost`` calls of one release's mem_cache modules and whether each passes the unscaled
    ``--hicache-size``; empty without a call."""
    calls: list[dict[str, str]] = []
    for module, text in sorted(texts.items()):
        if "MambaPoolHost(" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            size = _host_size(node) if name == "MambaPoolHost" else None
            if size is not None:
                where = module.removeprefix("sglang/")
                calls.append({"at": f"{where}:{node.lineno}", "host_size": ast.unparse(size)})
    if not calls:
        return {}
    calls.sort(key=lambda c: (c["at"].split(":")[0], int(c["at"].split(":")[1])))
    return {"calls": calls, "unscaled": all(c["host_size"] == UNSCALED for c in calls)}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="SGLang wheels")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), _wanted, "sglang")
        wheels[release] = wheel
        releases[release] = facts(texts)
    data = {
        "generated_by": GENERATOR,
        "source": "sglang wheels: the host_size argument of each MambaPoolHost(...) call under "
        "srt/mem_cache/ "
        "(hi_mamba_radix_cache.py, hybrid_cache/hybrid_pool_assembler.py)",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
