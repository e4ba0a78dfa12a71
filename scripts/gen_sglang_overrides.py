#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/sglang_overrides.json: the warnings SGLang's argument code logs where
it overrides what two or more settings ask for, from the bundled message index
(``frameworks/data/messages/sglang.json.gz``, scripts/gen_messages.py; nothing typed).

A site is kept when it is a ``warning`` log call of ``sglang/srt/server_args.py`` or
``sglang/srt/arg_groups/``, its words say the release does something else than asked
(layers/start_overrides.py's ``OVERRIDES``), it is no deprecation notice, and its if-tests read two or
more settings (``self.X``, ``cfg.X``, ``server_args.X``, ``view.X``, the last read as ``cfg.X``), each an
option of every release it is in (their bundled schemas). The table is what ``check``'s RS055 reads at
every start, so it is small: one row per site, with the line of each release that has it.

    python scripts/gen_sglang_overrides.py [--check]
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test

from argtrace.frameworks.schema import SchemaError, load_schema  # noqa: E402
from argtrace.layers.start_overrides import OVERRIDES  # noqa: E402
from argtrace.resolver.message_store import load_store  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "sglang_overrides.json"
GENERATOR = "scripts/gen_sglang_overrides.py"
MODULES = ("sglang/srt/server_args.py", "sglang/srt/arg_groups/")
BASES = frozenset({"self", "cfg", "server_args"})


def as_cfg(condition: str) -> str | None:
    """``view.X`` as ``cfg.X`` (the resolved view of the arguments, read as parsed); None when it does not
    parse."""
    try:
        tree = ast.parse(condition, mode="eval")
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "view":
            node.id = "cfg"
    return ast.unparse(tree)


def read_in(conditions: list[str]) -> set[str]:
    """The settings the tests read."""
    names: set[str] = set()
    for condition in conditions:
        for node in ast.walk(ast.parse(condition, mode="eval")):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in BASES
            ):
                names.add(node.attr)
    return names


def _options(version: str, kept: dict[str, set[str]]) -> set[str]:
    if version not in kept:
        try:
            kept[version] = {o.dest for o in load_schema("sglang", version).options}
        except (SchemaError, OSError, ValueError):
            kept[version] = set()
    return kept[version]


def table(store: dict[str, Any]) -> list[dict[str, Any]]:
    kept: dict[str, set[str]] = {}
    out = []
    for raw in store.get("sites", []):
        if raw.get("k") != "log" or raw.get("x") != "warning" or not raw.get("c"):
            continue
        if not str(raw.get("f") or "").startswith(MODULES):
            continue
        message = "".join(p if isinstance(p, str) else "{}" for p in raw.get("p") or [])
        if "deprecated" in message.lower() or not OVERRIDES.search(message):
            continue
        conditions = [as_cfg(str(c)) for c in raw["c"]]
        if any(c is None for c in conditions):
            continue
        tests = [c for c in conditions if c is not None]
        names = read_in(tests)
        at = {v: lines[0] for v, lines in sorted((raw.get("at") or {}).items()) if lines}
        if len(names) < 2 or not at or not all(names <= _options(v, kept) for v in at):
            continue
        out.append(
            {
                "message": message,
                "function": raw.get("fn"),
                "file": raw.get("f"),
                "conditions": tests,
                "named": sorted(names),
                "at": at,
            }
        )
    return sorted(out, key=lambda s: (s["file"], s["function"], s["message"], s["conditions"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    data = {"generated_by": GENERATOR, "sites": table(load_store("sglang") or {})}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
