#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/flag_replacements.json: the flag a release's own deprecation message
names as the replacement of a flag, read from the bundled message indexes (``frameworks/data/messages/``,
``scripts/gen_messages.py``: every log and warning of every release's wheel) and the bundled schemas.

A pair is kept when a ``log``/``warn`` site whose words say "deprecated" or "will be removed" reads the old
flag's setting (``self.override_pooler_config``), names the old flag or its field in its message
(`` `override_pooler_config` ``, ``--rope-scaling``) and names another option some bundled release registers
(`` `pooler_config` `` -> ``--pooler-config``, ``--hf-overrides``). vLLM's ``ModelConfig.__post_init__``:
"`override_pooler_config` is deprecated and will be removed in v0.12.0 ... Please use `pooler_config`
instead." (0.11.0-0.11.2). ``check`` names it in the fix of a flag the analysed release no longer has
(PA003), where the schemas alone know no spelling (the help of a removed flag is often empty). The message
index takes seconds to load; this file is the few pairs it holds.

    python scripts/gen_flag_replacements.py [--check]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test

from argtrace.frameworks.schema import bundled_versions, load_schema, version_key  # noqa: E402
from argtrace.resolver import message_store  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "flag_replacements.json"
GENERATOR = "scripts/gen_flag_replacements.py"
DEPRECATION = re.compile(r"(?i)deprecat|will be removed")
READ = re.compile(r"(?:self|args|server_args|engine_args)\.(\w+)")
NAMED = re.compile(r"`(--[\w-]+|[a-z_]\w*)`|(?<![\w-])(--[a-z][\w-]*)")


def _options(framework: str) -> tuple[dict[str, str], dict[str, str]]:
    """Option string -> dest, and dest -> its newest long option string, over every bundled release."""
    by_flag: dict[str, str] = {}
    by_dest: dict[str, str] = {}
    for version in sorted(bundled_versions(framework, include_user=False), key=version_key):
        for spec in load_schema(framework, version).options:
            longs = [s for s in spec.option_strings if s.startswith("--")]
            for s in longs:
                by_flag[s] = spec.dest
            if longs:
                by_dest[spec.dest] = longs[0]
    return by_flag, by_dest


def pairs(framework: str) -> dict[str, dict[str, Any]]:
    by_flag, by_dest = _options(framework)
    out: dict[str, dict[str, Any]] = {}
    for site in message_store.sites(framework):
        if site.kind not in ("log", "warn") or not DEPRECATION.search(site.template):
            continue
        read = set(READ.findall(" ".join([*site.reads, *site.conditions])))
        named = [a or b for a, b in NAMED.findall(site.template)]
        flags = [n if n.startswith("--") else by_dest.get(n) for n in named]
        dests = [by_flag.get(f) if f else None for f in flags]
        old = next((i for i, d in enumerate(dests) if d in read), None)
        if old is None:
            continue
        new = next((i for i, d in enumerate(dests) if i > old and d and d != dests[old]), None)
        if new is None:
            continue
        releases = message_store.sort_releases(site.at)
        entry = {
            "use": flags[new],
            "said": f"{site.file} ({site.function}), {framework} {releases[0]}"
            + (f"-{releases[-1]}" if len(releases) > 1 else ""),
            "message": site.template,
        }
        out.setdefault(str(flags[old]), entry)
    return dict(sorted(out.items()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    data = {"format": 1, "generated_by": GENERATOR, "flags": {fw: pairs(fw) for fw in ("sglang", "vllm")}}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
