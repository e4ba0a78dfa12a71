"""A PATH of fake server executables that record the argv and environment bash hands them.

Each recorder is a tiny bash script (``#!/bin/bash``, so it never runs through a fake ``python``) that copies
``/proc/$$/cmdline`` and ``/proc/$$/environ`` (the process's initial argv and environment, untouched by
anything the recorder does) into a record directory.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

NAMES = ("python", "python3", "python3.11", "python3.12", "sglang", "vllm", "torchrun", "numactl", "taskset")

_SCRIPT = """#!/bin/bash
n="{rec}/${{EPOCHREALTIME/./}}-$$"
/bin/cat /proc/$$/environ > "$n.environ"
/bin/cat /proc/$$/cmdline > "$n.tmp" && /bin/mv "$n.tmp" "$n.cmdline"
"""


@dataclass
class Record:
    name: str  # basename of the recorder that ran (python3, sglang, ...)
    argv: list[str]  # argv[1:] as the process got it
    env: dict[str, str]


def make_recorders(bin_dir: Path, rec_dir: Path) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    rec_dir.mkdir(parents=True, exist_ok=True)
    for name in NAMES:
        p = bin_dir / name
        p.write_text(_SCRIPT.format(rec=rec_dir))
        p.chmod(0o755)


def read_records(rec_dir: Path, settle: float = 0.3, timeout: float = 5.0) -> list[Record]:
    """Wait until background recorders have finished writing, then read every record."""
    deadline = time.monotonic() + timeout
    last: tuple[int, int] | None = None
    stable_since = time.monotonic()
    while time.monotonic() < deadline:
        names = os.listdir(rec_dir)
        state = (
            len([n for n in names if n.endswith(".cmdline")]),
            len([n for n in names if n.endswith(".environ")]),
        )
        if state != last:
            last = state
            stable_since = time.monotonic()
        elif state[0] == state[1] and time.monotonic() - stable_since >= settle:
            break
        time.sleep(0.05)
    out: list[Record] = []
    for n in sorted(os.listdir(rec_dir)):
        if not n.endswith(".cmdline"):
            continue
        base = n[: -len(".cmdline")]
        cmd = (rec_dir / n).read_bytes().split(b"\0")[:-1]
        env_raw = (rec_dir / f"{base}.environ").read_bytes().split(b"\0")
        env: dict[str, str] = {}
        for item in env_raw:
            if not item:
                continue
            k, _, v = item.partition(b"=")
            env[k.decode("utf-8", "surrogateescape")] = v.decode("utf-8", "surrogateescape")
        # cmdline: /bin/bash /path/to/recorder args...
        words = [w.decode("utf-8", "surrogateescape") for w in cmd]
        out.append(Record(Path(words[1]).name, words[2:], env))
    return out


def fold_repeats(recorded: list[str], repeated: set[str]) -> list[str]:
    """A start argtrace reports once as repeated (a loop) is recorded once per iteration by bash: keep one."""
    seen: set[str] = set()
    out = []
    for r in recorded:
        if r in repeated and r in seen:
            continue
        seen.add(r)
        out.append(r)
    return out
