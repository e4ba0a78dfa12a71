#!/usr/bin/env python3
"""Write docs/rules/ (a page per code and README.md, the index) from src/argtrace/rules/.

``--check`` fails when a page is stale, missing, or left over from a code that no longer exists.
"""

from __future__ import annotations

import sys
from pathlib import Path

from argtrace.rules.docs import catalog_pages

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"


def main() -> int:
    pages = catalog_pages()
    present = {p.name for p in DOCS.glob("*.md")} if DOCS.is_dir() else set()
    if "--check" in sys.argv[1:]:
        stale = sorted(
            n for n, text in pages.items() if not (DOCS / n).is_file() or (DOCS / n).read_text() != text
        )
        extra = sorted(present - set(pages))
        if stale or extra:
            print(
                f"{DOCS} is stale (changed or missing: {', '.join(stale) or '-'}; left over: "
                f"{', '.join(extra) or '-'}): run python scripts/gen_rules_doc.py",
                file=sys.stderr,
            )
            return 1
        return 0
    DOCS.mkdir(parents=True, exist_ok=True)
    for name in present - set(pages):
        (DOCS / name).unlink()
    for name, text in pages.items():
        (DOCS / name).write_text(text)
    print(f"wrote {len(pages)} pages to {DOCS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
