#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/sglang_helpers.json: for each SGLang release read, the settings its
argument helpers read, from the release's own source (``ast``, never imported).

From 0.5.22 SGLang's argument checks test settings through helpers instead of reading them
(``attn_dp_enabled_of(view)`` where earlier releases read ``self.enable_dp_attention``), and its memory
components read derived fields (``params.enable_mamba_extra_buffer``, declared in ``arg_groups/fields/`` as
``Derived(fn="...mamba_extra_buffer_of")``). A raise or log site whose condition calls a helper reads no
setting by name, so ``why`` named no flag (sglang PR#28616's "Currently ngram speculative decoding does not
support dp attention.") or only the other one (PR#35297's MambaComponent assertion: --page-size, not the
strategy). Two tables per release:

- ``functions``: each module-level ``*_of(cfg)`` helper of ``sglang/srt/runtime_context.py`` and
  ``sglang/srt/arg_groups/`` with the settings it reads of its first parameter, helpers it calls followed
  (``attn_dp_enabled_of`` -> ``attn_dp_size`` and what ``ep_scale_joiner_of`` reads);
- ``derived``: each field declared ``Derived(fn=...)`` with the settings of the helper it names.

Only settings that are options of the release (its bundled schema) are kept. Nothing is typed by hand.

    python scripts/gen_sglang_helpers.py [--wheels DIR] [--releases V ...] [--check]

Without ``--releases`` the releases the bundled file holds are read from the wheels in ``--wheels`` (the
resolver environments' wheel directory by default); ``--check`` regenerates them and compares.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test

from argtrace.frameworks.schema import load_schema  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "sglang_helpers.json"
GENERATOR = "scripts/gen_sglang_helpers.py"
DEPTH = 4  # helpers followed through helpers
_MODULES = re.compile(r"sglang/srt/(?:runtime_context\.py|arg_groups/(?:[\w/]+/)?\w+\.py)")


def _helpers(tree: ast.Module) -> dict[str, tuple[set[str], set[str]]]:
    """``{name: (attributes read of the first parameter, functions called)}`` of a module's ``*_of``
    functions."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or not node.name.endswith("_of") or not node.args.args:
            continue
        param = node.args.args[0].arg
        reads: set[str] = set()
        calls: set[str] = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == param:
                reads.add(sub.attr)
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
                calls.add(sub.func.id)
        out[node.name] = (reads, calls)
    return out


def _derived(tree: ast.Module) -> dict[str, str]:
    """``{field: helper}`` of the ``field = Derived(fn="module.helper")`` declarations of a module."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if not (isinstance(target, ast.Name) and isinstance(value, ast.Call)):
            continue
        if not (isinstance(value.func, ast.Name) and value.func.id == "Derived"):
            continue
        for kw in value.keywords:
            if kw.arg == "fn" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                out[target.id] = kw.value.value.rsplit(".", 1)[-1]
    return out


def read_release(wheel: Path, version: str) -> dict[str, Any]:
    """The two tables of one release, from its wheel."""
    helpers: dict[str, tuple[set[str], set[str]]] = {}
    derived: dict[str, str] = {}
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(n for n in zf.namelist() if _MODULES.fullmatch(n)):
            tree = ast.parse(zf.read(name).decode("utf-8"), filename=name)
            helpers.update(_helpers(tree))
            derived.update(_derived(tree))
    options = {o.dest for o in load_schema("sglang", version).options}

    def settings(name: str, depth: int = 0) -> set[str]:
        if name not in helpers or depth > DEPTH:
            return set()
        reads, calls = helpers[name]
        out = reads & options
        for call in sorted(calls):
            out |= settings(call, depth + 1)
        return out

    functions = {name: sorted(s) for name in sorted(helpers) if (s := settings(name))}
    fields = {field: sorted(s) for field, fn in sorted(derived.items()) if (s := settings(fn))}
    return {"functions": functions, "derived": fields}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, default=Path.home() / ".cache/argtrace/resolvers/wheels")
    parser.add_argument("--releases", nargs="*")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    bundled = json.loads(OUT.read_text())["releases"] if OUT.is_file() else {}
    releases = args.releases or sorted(bundled)
    out: dict[str, Any] = {}
    for version in releases:
        wheels = sorted(args.wheels.glob(f"sglang-{version}-*.whl"))
        if not wheels:
            print(f"no wheel of sglang {version} in {args.wheels}", file=sys.stderr)
            return 2
        out[version] = read_release(wheels[0], version)
    return write_or_check(OUT, {"generated_by": GENERATOR, "releases": out}, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
