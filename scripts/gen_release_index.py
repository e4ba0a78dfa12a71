#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/release_index.json from the bundled schemas (``--check``: stale?).

Run after scripts/gen_schemas.py adds or changes a release."""

from __future__ import annotations

import json
import sys

from argtrace.frameworks.release_index import INDEX_PATH, build_index


def render() -> str:
    return json.dumps(build_index(), separators=(",", ":"), sort_keys=True) + "\n"


def main() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        if not INDEX_PATH.is_file() or INDEX_PATH.read_text() != text:
            print(f"{INDEX_PATH} is stale: run python scripts/gen_release_index.py", file=sys.stderr)
            return 1
        return 0
    INDEX_PATH.write_text(text)
    print(f"wrote {INDEX_PATH} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
