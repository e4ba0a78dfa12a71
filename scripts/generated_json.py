"""What the JSON generators share: write the table, or with ``--check`` compare it with the bundled one."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def write_or_check(out: Path, data: Any, generator: str, *, check: bool) -> int:
    """Write ``data`` as the generators' JSON (1-space indent, sorted keys) to ``out``; with ``check``, exit
    status 1 and a message naming the generator when the bundled file differs from what it would write."""
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if check:
        same = out.is_file() and out.read_text() == text
        print("up to date" if same else f"{out} differs: run {generator}", file=sys.stderr)
        return 0 if same else 1
    out.write_text(text)
    return 0
