#!/usr/bin/env python3
"""Write docs/rules.md from the rule catalog in src/argtrace/rules/ (``--check`` fails when stale)."""

from __future__ import annotations

import sys
from pathlib import Path

from argtrace.rules.docs import catalog_markdown

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def main() -> int:
    text = catalog_markdown()
    if "--check" in sys.argv[1:]:
        if not DOC.exists() or DOC.read_text() != text:
            print(f"{DOC} is stale: run python scripts/gen_rules_doc.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text)
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
