#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_config_file.json: how each bundled vLLM release turns a YAML
mapping of its ``--config`` file into an argv word, read from the release's own ``load_config_file``.

``FlexibleArgumentParser.load_config_file`` (``vllm/utils.py`` up to 0.9, ``vllm/utils/__init__.py`` in 0.10
and 0.11, ``vllm/utils/argparse_utils.py`` from 0.12) loops over ``config.items()`` and appends ``--KEY`` and
a word per value. A release whose loop has an ``isinstance(value, dict)`` branch that calls ``json.dumps``
hands a mapping to the flag as JSON (``"json"``); one without it falls through to ``str(value)``, the
mapping's Python repr (``"repr"``: ``{'architectures': ['Qwen3ForCausalLM']}``), which a flag read with
``json.loads`` refuses (vllm PR#33196). The AST of the wheel's file decides; nothing is typed by hand.

    python scripts/gen_vllm_config_file.py [--wheels DIR] [--check]

``--wheels DIR``: reuse ``vllm-<version>-*.whl`` files there (else each wheel is downloaded with
``pip download --no-deps`` into a temporary directory and deleted after reading).
"""

from __future__ import annotations

import argparse
import ast
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test

from argtrace.frameworks.schema import bundled_versions, version_key  # noqa: E402
from argtrace.resolver import environments  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_config_file.json"
GENERATOR = "scripts/gen_vllm_config_file.py"
CANDIDATES = ("vllm/utils/argparse_utils.py", "vllm/utils/__init__.py", "vllm/utils.py")


def _calls(node: ast.AST, module: str, name: str) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == name
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == module
        for n in ast.walk(node)
    )


def _isinstance_of(test: ast.AST, type_name: str) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "isinstance"
        and len(n.args) == 2
        and isinstance(n.args[1], ast.Name)
        and n.args[1].id == type_name
        for n in ast.walk(test)
    )


def mapping_word(source: str) -> tuple[str, int] | None:
    """("json"|"repr", line) for the ``config.items()`` loop of ``load_config_file`` in ``source``; None when
    the file has no such function."""
    tree = ast.parse(source)
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and fn.name in ("load_config_file", "_load_config_file")):
            continue
        for loop in ast.walk(fn):
            if not (isinstance(loop, ast.For) and "items()" in ast.unparse(loop.iter)):
                continue
            branch: ast.If | None = next((n for n in loop.body if isinstance(n, ast.If)), None)
            while branch is not None:
                if _isinstance_of(branch.test, "dict") and _calls(branch, "json", "dumps"):
                    return "json", branch.lineno
                nxt = branch.orelse
                if len(nxt) == 1 and isinstance(nxt[0], ast.If):
                    branch = nxt[0]
                    continue
                # the final else: str(value) for every other type, a mapping included
                return "repr", (nxt[-1].lineno if nxt else branch.lineno)
    return None


def read_release(version: str, wheels: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        found = sorted(wheels.glob(f"vllm-{version}-*.whl")) if wheels else []
        wheel = found[0] if found else environments.download_wheel("vllm", version, Path(tmp))
        with zipfile.ZipFile(wheel) as zf:
            names = set(zf.namelist())
            for path in CANDIDATES:
                if path not in names:
                    continue
                got = mapping_word(zf.read(path).decode("utf-8", "replace"))
                if got is not None:
                    return {"mapping": got[0], "at": f"{path}:{got[1]}", "wheel": wheel.name}
    raise SystemExit(f"vllm {version}: no load_config_file in {', '.join(CANDIDATES)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels", type=Path, default=None)
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    releases = {}
    for version in sorted(bundled_versions("vllm", include_user=False), key=version_key):
        releases[version] = read_release(version, args.wheels)
        print(f"vllm {version}: {releases[version]['mapping']} ({releases[version]['at']})", file=sys.stderr)
    data = {"format": 1, "generated_by": GENERATOR, "releases": releases}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
