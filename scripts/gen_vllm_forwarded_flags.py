#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_forwarded_flags.json: the deprecated vLLM flags whose value a
release passed on into a field of another option's configuration, read from the releases' wheels by AST.

vLLM 0.10.2-0.11.0 kept ``--num-redundant-experts``, ``--eplb-window-size``, ``--eplb-step-interval`` and
``--eplb-log-balancedness`` as deprecated flags ("[DEPRECATED] --num-redundant-experts will be removed in
v0.12.0.", no replacement named) and forwarded each into ``--eplb-config`` in ``EngineArgs``::

    # Forward the deprecated CLI args to the EPLB config.
    if self.num_redundant_experts is not None:
        self.eplb_config.num_redundant_experts = self.num_redundant_experts

(vllm/engine/arg_utils.py:1303 in 0.10.2). A launch written for them fails on the releases that dropped
the flag ("unrecognized arguments", vllm PR#54880's elastic-EP example), and the release that still took it
names no replacement: the forwarding is where the value went. Kept: an ``if self.<old> is not None:`` whose
body assigns ``self.<old>`` to ``self.<config>.<key>``, where ``<old>``'s option is registered with
``deprecated=True`` or a help starting "[DEPRECATED]" in the same file, and ``<config>`` is another
``EngineArgs`` field. ``check`` names ``--<config>.<key>`` in the fix of the removed flag (PA003).

  pip download vllm==0.10.2 --no-deps --only-binary=:all: -d /tmp/vw
  python scripts/gen_vllm_forwarded_flags.py [--check] /tmp/vw/vllm-*.whl

A directory may stand for a wheel: ``vllm/engine/arg_utils.py`` as extracted from it, with a ``WHEEL`` file
naming the wheel it came from.
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
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/vllm_forwarded_flags.json"
GENERATOR = "scripts/gen_vllm_forwarded_flags.py"
ARG_UTILS = "vllm/engine/arg_utils.py"
_VERSION = re.compile(r"vllm-(\d+(?:\.\d+)+(?:\.post\d+)?)-")


def _self_attr(node: ast.AST) -> list[str] | None:
    """``self.a.b`` -> ["a", "b"]."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id == "self" and parts:
        return parts[::-1]
    return None


def _deprecated_flags(tree: ast.AST) -> set[str]:
    """The option strings ``add_argument`` registers as deprecated."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument"):
            continue
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        words = {k.arg: k.value for k in node.keywords}
        marked = isinstance(words.get("deprecated"), ast.Constant) and words["deprecated"].value is True
        text = words.get("help")
        if isinstance(text, ast.Constant) and isinstance(text.value, str):
            marked = marked or text.value.lstrip().startswith("[DEPRECATED]")
        if marked:
            found.update(f for f in flags if f.startswith("--"))
    return found


def forwarded(text: str) -> dict[str, dict[str, Any]]:
    """Deprecated flag -> {"into": "--<config>", "key": field, "line": N, "function": name}."""
    tree = ast.parse(text)
    deprecated = _deprecated_flags(tree)
    out: dict[str, dict[str, Any]] = {}
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef):
            continue
        for node in ast.walk(func):
            if not isinstance(node, ast.If) or len(node.body) != 1:
                continue
            test, body = node.test, node.body[0]
            if not (
                isinstance(test, ast.Compare)
                and len(test.ops) == 1
                and isinstance(test.ops[0], ast.IsNot)
                and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value is None
                and isinstance(body, ast.Assign)
                and len(body.targets) == 1
            ):
                continue
            old = _self_attr(test.left)
            target = _self_attr(body.targets[0])
            if old is None or len(old) != 1 or _self_attr(body.value) != old:
                continue
            if target is None or len(target) != 2 or target[0] == old[0]:
                continue
            flag = "--" + old[0].replace("_", "-")
            if flag not in deprecated:
                continue
            out[flag] = {
                "into": "--" + target[0].replace("_", "-"),
                "key": target[1],
                "line": body.lineno,
                "function": func.name,
            }
    return out


def _arg_utils(source: Path) -> tuple[str, str, str | None]:
    """(release, wheel name, arg_utils.py's text) of a wheel or an extracted tree."""
    if source.is_dir():
        wheel = (source / "WHEEL").read_text().strip()
        path = source / ARG_UTILS
        text = path.read_text() if path.is_file() else None
    else:
        wheel = source.name
        with zipfile.ZipFile(source) as archive:
            text = archive.read(ARG_UTILS).decode() if ARG_UTILS in archive.namelist() else None
    found = _VERSION.match(wheel)
    if found is None:
        raise SystemExit(f"{source}: no vLLM release in the wheel name {wheel!r}")
    return found.group(1), wheel, text


def _span(releases: list[str]) -> str:
    return releases[0] if len(releases) == 1 else f"{releases[0]}-{releases[-1]}"


def main(argv: list[str]) -> int:
    from argtrace.frameworks.schema import version_key

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="vLLM wheels (or trees extracted from them)")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    per_flag: dict[str, dict[str, Any]] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, text = _arg_utils(Path(path))
        wheels[release] = wheel
        for flag, entry in forwarded(text or "").items():
            per_flag.setdefault(flag, {})[release] = entry
    flags: dict[str, Any] = {}
    for flag, by_release in sorted(per_flag.items()):
        releases = sorted(by_release, key=version_key)
        last = by_release[releases[-1]]
        flags[flag] = {
            "into": last["into"],
            "key": last["key"],
            "releases": releases,
            "said": f"EngineArgs.{last['function']}, {ARG_UTILS}:{last['line']} in {releases[-1]}; "
            f"vllm {_span(releases)}",
        }
    data = {
        "generated_by": GENERATOR,
        "source": f"vllm wheels: {ARG_UTILS}",
        "wheels": wheels,
        "flags": flags,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
