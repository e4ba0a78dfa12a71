#!/usr/bin/env python3
"""Generate src/argtrace/data/server_images.json: images whose program starts the inference servers itself
(GPUStack's ``gpustack/gpustack``), which frameworks it starts, and which of the container's environment
variables reach them, per release, read from each release's real wheel on PyPI.

GPUStack's worker starts each model's server (its ``gpustack/worker/backends/*.py``: vLLM, SGLang, ...). The
environment it gives the server, read from the wheel:

* 0.4.0-0.7.1: ``get_inference_running_env`` in ``backends/base.py`` starts from ``os.environ.copy()``
  (every variable of the container) and runs ``vllm serve`` with it (``subprocess.run(..., env=env)`` in
  ``backends/vllm.py``);
* 2.x: ``_get_configured_env`` in ``backends/base.py`` starts from ``os.environ`` with some names filtered
  out (inline in 2.0.0, ``filter_env_vars`` in ``gpustack/utils/envs.py`` from 2.1.0): the prefixes, suffixes
  and names of that filter are recorded; the model's own env (set in GPUStack's UI) is added on top.

For each release: the backends (``backends/*.py``), how the environment is handed on (``copy`` or
``filtered`` with the dropped prefixes/suffixes/names, read from the filter's AST: the strings in its
``startswith``/``endswith`` calls and ``in (...)`` tuples), and the vLLM pin of its ``vllm`` extra.

  python scripts/gen_server_images.py [--wheels DIR] [--check]

``--wheels DIR`` reads wheels already downloaded there; without it the releases listed in ``RELEASES``
are downloaded (``pip download --no-deps``) to a temporary directory.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sys
import tempfile
import zipfile
from pathlib import Path

from argtrace.resolver.environments import EnvironmentError_, download_wheel, find_wheel

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/data/server_images.json"

# the last release of each minor line on PyPI (pip index versions gpustack, 2026-12-02), and the first of 2.x
RELEASES = ("0.4.0", "0.5.0", "0.5.1", "0.6.2", "0.7.1", "2.0.0", "2.1.0", "2.2.3", "2.3.0")

IMAGES = {
    "gpustack/gpustack": {
        "package": "gpustack",
        "url": "https://pypi.org/project/gpustack/",
        "source": "https://github.com/gpustack/gpustack",
    }
}

_BASE = "gpustack/worker/backends/base.py"
_ENVS = "gpustack/utils/envs.py"


def _download(package: str, version: str, into: Path) -> Path:
    try:
        return download_wheel(package, version, into)
    except EnvironmentError_ as exc:
        raise SystemExit(str(exc)) from None


def _wheel(package: str, version: str, directory: Path) -> Path:
    found = find_wheel(directory, package, version)
    if found is None:
        raise SystemExit(f"no wheel of {package} {version} in {directory}")
    return found


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _filter(tree: ast.AST) -> dict[str, list[str]]:
    """The names an environment filter drops: strings of its ``startswith``/``endswith`` calls and of the
    tuples it tests ``k in (...)`` against."""
    out: dict[str, list[str]] = {"drop_prefixes": [], "drop_suffixes": [], "drop_names": []}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            key = {"startswith": "drop_prefixes", "endswith": "drop_suffixes"}.get(node.func.attr)
            if key:
                out[key] += [s for a in node.args for s in _strings(a)]
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In) for op in node.ops):
            for comp in node.comparators:
                if isinstance(comp, (ast.Tuple, ast.List, ast.Set)):
                    out["drop_names"] += _strings(comp)
    return {k: sorted(set(v)) for k, v in out.items()}


def _function(source: str, name: str) -> ast.AST | None:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _release(wheel: Path) -> dict[str, object]:
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        base = z.read(_BASE).decode()
        envs = z.read(_ENVS).decode() if _ENVS in names else ""
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    backends = sorted(
        n.rsplit("/", 1)[1][:-3]
        for n in names
        if n.startswith("gpustack/worker/backends/") and n.endswith(".py") and n.count("/") == 3
    )
    backends = [b for b in backends if b not in ("__init__", "base")]
    pin = re.search(r"(?m)^Requires-Dist: vllm\s*\(?([^;)]*)\)?\s*;.*extra\s*==\s*['\"]vllm['\"]", meta)
    entry: dict[str, object] = {"wheel": wheel.name, "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest()}
    entry["backends"] = backends
    entry["vllm_pin"] = pin.group(1).strip() if pin else None
    if "env = os.environ.copy()" in base:
        entry["env"] = "copy"
        entry["env_from"] = f"{_BASE}: get_inference_running_env (os.environ.copy())"
        return entry
    if "filter_env_vars(os.environ)" in base:
        fn = _function(envs, "filter_env_vars")
        entry["env_from"] = f"{_BASE}: _get_configured_env (filter_env_vars in {_ENVS})"
    else:
        fn = _function(base, "_get_configured_env")
        entry["env_from"] = f"{_BASE}: _get_configured_env (os.environ, filtered)"
    if fn is None:
        raise SystemExit(f"{wheel.name}: no environment filter found")
    entry["env"] = "filtered"
    entry.update(_filter(fn))
    return entry


def generate(wheels: Path | None) -> dict[str, object]:
    images: dict[str, object] = {}
    for image, spec in IMAGES.items():
        releases: dict[str, object] = {}
        with tempfile.TemporaryDirectory() as tmp:
            for version in RELEASES:
                path = _wheel(spec["package"], version, wheels) if wheels else None
                releases[version] = _release(path or _download(spec["package"], version, Path(tmp)))
        images[image] = {**spec, "releases": releases}
    return {"generated_by": "scripts/gen_server_images.py", "images": images}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels", type=Path, help="a directory of downloaded wheels (else pip downloads them)")
    ap.add_argument("--check", action="store_true", help="fail when the file differs from a fresh reading")
    args = ap.parse_args()
    text = json.dumps(generate(args.wheels), indent=1, sort_keys=True) + "\n"
    if args.check:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is stale: run scripts/gen_server_images.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
