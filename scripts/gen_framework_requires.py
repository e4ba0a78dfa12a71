#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/framework_requires.json: for each SGLang and vLLM release read, the
distributions its wheel requires (``Requires-Dist`` of the wheel's METADATA), each plain or under the extras
that bring it.

A server whose environment lacks one dies on import with Python's "ModuleNotFoundError: No module named
'pybase64'" (sglang#13276: MiniMax-M2 from a Python 3.14 environment, ``sglang/__init__.py`` importing its
API), words no framework prints: ``why`` said only "the installed package is broken or missing". That the
missing module is one of the framework's own requirements is what names the fix (install the framework's
requirements in that environment). Nothing is typed by hand.

    python scripts/gen_framework_requires.py [--wheels DIR] [--check]

The wheels are the resolver environments' (``~/.cache/argtrace/resolvers/wheels`` by default): every
``sglang-*.whl`` and ``vllm-*.whl`` there is read; ``--check`` regenerates from the releases the bundled file
holds and compares.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "framework_requires.json"
FRAMEWORKS = ("sglang", "vllm")
_REQUIRES = re.compile(r"^Requires-Dist:\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?P<rest>.*)$")
_EXTRA = re.compile(r"""extra\s*==\s*['"](?P<extra>[^'"]+)['"]""")


def read_release(wheel: Path) -> tuple[str, str, dict[str, list[str]]]:
    """(framework, release, distribution -> the extras that bring it, [] when plain) of one wheel."""
    framework, release = wheel.name.split("-")[:2]
    with zipfile.ZipFile(wheel) as archive:
        meta = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        lines = archive.read(meta).decode().splitlines()
    found: dict[str, list[str]] = {}
    for line in lines:
        m = _REQUIRES.match(line)
        if m is None:
            continue
        name = re.sub(r"[-_.]+", "-", m.group("name")).lower()
        extra = _EXTRA.search(m.group("rest"))
        extras = found.setdefault(name, [])
        if extra is None:
            extras.clear()
            found[name] = ["*"]  # plain: every install brings it
        elif "*" not in extras and extra.group("extra") not in extras:
            extras.append(extra.group("extra"))
    return framework, release, {n: ([] if e == ["*"] else sorted(e)) for n, e in sorted(found.items())}


def build(wheels: list[Path]) -> dict[str, Any]:
    frameworks: dict[str, dict[str, Any]] = {fw: {} for fw in FRAMEWORKS}
    for wheel in sorted(wheels):
        framework, release, requires = read_release(wheel)
        frameworks[framework][release] = {"wheel": wheel.name, "requires": requires}
    return {
        "about": "per release: the distributions the wheel's METADATA requires (Requires-Dist, names "
        "normalised), each with the extras that bring it ([] when every install does)",
        "generated_by": "scripts/gen_framework_requires.py",
        "frameworks": frameworks,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, default=Path.home() / ".cache/argtrace/resolvers/wheels")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    wheels = [p for p in args.wheels.glob("*.whl") if p.name.split("-", 1)[0] in FRAMEWORKS]
    if args.check and OUT.is_file():
        held = json.loads(OUT.read_text())["frameworks"]
        named = {r["wheel"] for fw in held.values() for r in fw.values()}
        wheels = [p for p in wheels if p.name in named]
    return write_or_check(OUT, build(wheels), "scripts/gen_framework_requires.py", check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
