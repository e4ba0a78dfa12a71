#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_frontend_options.json: the option strings of vLLM's OpenAI server
that are not engine arguments, read from the bundled schemas.

``vllm serve`` builds one parser from two sources: the server's own options (``make_arg_parser``: host,
port, API key, chat template, tool and reasoning parsers...) and ``AsyncEngineArgs.add_cli_args``, whose
options are ``EngineArgs``' fields (``EngineArgs.from_cli_args`` copies each field from the dest of the same
name: scripts/gen_field_names.py checks that shape). From vLLM 0.10.2 on the server's options sit in the
argparse group ``Frontend``; the older releases put both kinds in one group, and the names carried over, so
the union over every bundled release of the ``Frontend`` group's option strings is the list. ``why`` reads it
(commands/why_call.py): a keyword such as ``tool_call_parser`` handed to ``AsyncEngineArgs`` is the server's
option, which no release's engine takes with either spelling.

    python scripts/gen_frontend_options.py            # write
    python scripts/gen_frontend_options.py --check    # fail when the file differs from the schemas
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.frameworks.schema import bundled_versions, load_schema  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_frontend_options.json"
GROUP = "Frontend"


def build() -> dict[str, object]:
    releases = bundled_versions("vllm", include_user=False)
    options: set[str] = set()
    grouped = []
    for version in releases:
        found = [o for o in load_schema("vllm", version).options if o.group == GROUP]
        if found:
            grouped.append(version)
        for option in found:
            options.update(s for s in option.option_strings if s.startswith("--"))
    return {
        "generated_by": "scripts/gen_frontend_options.py",
        "group": GROUP,
        "releases_with_group": [grouped[0], grouped[-1]] if grouped else [],
        "options": sorted(options),
    }


def main() -> int:
    text = json.dumps(build(), indent=1) + "\n"
    if "--check" in sys.argv[1:]:
        if not OUT.is_file() or OUT.read_text() != text:
            print(f"{OUT} is stale: run python scripts/gen_frontend_options.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
