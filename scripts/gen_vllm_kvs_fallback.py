#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_kvs_fallback.json: the vLLM releases whose JSON converter also
reads ``KEY=VALUE,...`` (``--limit-mm-per-prompt image=10``), from each release's own
``vllm/engine/arg_utils.py`` (``ast``, never imported).

vLLM 0.8.5 and 0.9.x convert a JSON-typed flag with a closure that hands a value not written as a JSON
object to ``nullable_kvs`` (0.9.2 ``arg_utils.py:57``, ``parse_type``: ``if return_type is json.loads and not
re.match("^{.*}$", val): return cast(T, nullable_kvs(val))``; 0.8.5.post1 in ``optional_type``), which
makes ``{"image": 10}`` of ``image=10``; 0.8.4 and older had no such fallback in the closure (vllm#17250) and
0.10.0 removed it (vllm#21615: "Can't set limit-mm-per-prompt in 0.10.0"). argtrace's converters
(``frameworks/vllm.py``) take the fallback for exactly the releases listed here; the generator checks that
``nullable_kvs`` is the function argtrace follows (its statements, by ``ast.dump``, are those of 0.9.2's), and
fails otherwise. Nothing is typed by hand.

    python scripts/gen_vllm_kvs_fallback.py [--check] [RELEASE ...]   # default: every bundled vLLM release

Each release's wheel is downloaded from PyPI (``pip download --no-deps``), its one file read and the wheel
deleted.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from argtrace.frameworks.schema import bundled_versions  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_kvs_fallback.json"
GENERATOR = "scripts/gen_vllm_kvs_fallback.py"
FILE = "vllm/engine/arg_utils.py"
# 0.9.2's nullable_kvs without its docstring, as ast.dump prints it: what frameworks/vllm.py follows
REFERENCE = "0.9.2"
# the releases before and after the fallback that the bundled ones do not show (the family's other patches)
EXTRA = ("0.8.4", "0.9.0", "0.9.0.1", "0.9.1")


def _source(release: str, work: Path) -> str:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--only-binary=:all:",
            f"vllm=={release}",
            "-d",
            str(work),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = work.glob(f"vllm-{release}-*.whl")
    try:
        with zipfile.ZipFile(wheel) as z:
            return z.read(FILE).decode()
    finally:
        wheel.unlink()


def _body(fn: ast.FunctionDef) -> str:
    """The function's statements without its docstring, as ``ast.dump`` prints them."""
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return "\n".join(ast.dump(s) for s in body)


def read_release(text: str) -> dict[str, Any]:
    """``fallback``: the closure that calls ``nullable_kvs(val)`` for a value the pattern does not match
    (``in``: which one, ``at``: the call's line, ``pattern``); None when no closure does."""
    tree = ast.parse(text)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    kvs = functions.get("nullable_kvs")
    for name in ("parse_type", "optional_type"):
        outer = functions.get(name)
        if outer is None:
            continue
        for node in ast.walk(outer):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "nullable_kvs"
            ):
                continue
            patterns = [
                n.args[0].value
                for n in ast.walk(outer)
                if isinstance(n, ast.Call)
                and ast.unparse(n.func) == "re.match"
                and n.args
                and isinstance(n.args[0], ast.Constant)
            ]
            if kvs is None or len(patterns) != 1:
                raise SystemExit(f"{name} calls nullable_kvs in a shape this generator does not know")
            return {
                "fallback": {"in": name, "at": f"{FILE}:{node.lineno}", "pattern": patterns[0]},
                "nullable_kvs": f"{FILE}:{kvs.lineno}",
                "_body": _body(kvs),
            }
    return {"fallback": None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("releases", nargs="*")
    args = parser.parse_args()
    releases = args.releases or sorted({*bundled_versions("vllm"), *EXTRA}, key=_key)
    read: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for release in [REFERENCE, *releases]:
            if release not in read:
                read[release] = read_release(_source(release, Path(tmp)))
                print(release, read[release]["fallback"], file=sys.stderr)
    reference = read[REFERENCE]["_body"]
    out: dict[str, Any] = {}
    for release in releases:
        entry = read[release]
        if entry.pop("_body", reference) != reference:
            raise SystemExit(
                f"vllm {release}: nullable_kvs is not 0.9.2's: frameworks/vllm.py must follow it"
            )
        out[release] = entry
    data = {
        "generated_by": GENERATOR,
        "source": f"each release's {FILE} (pip download vllm==RELEASE --no-deps), read with ast",
        "releases": out,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


def _key(release: str) -> tuple[int, ...]:
    from argtrace.frameworks.schema import version_key

    return version_key(release)


if __name__ == "__main__":
    raise SystemExit(main())
