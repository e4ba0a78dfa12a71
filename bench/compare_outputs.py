#!/usr/bin/env python3
"""`argtrace check` output of two source trees, byte for byte, on the repository's inputs.

A speed change must not change a report: this runs ``check --format json`` and ``--format text`` with
``PYTHONPATH=OLD`` and ``PYTHONPATH=NEW`` on every script, command, compose file and manifest under
``examples/``, ``tests/data/shell``, ``tests/data/multinode`` and ``tests/data/false_alarms`` and prints
each input whose exit status, stdout or stderr differ. The report quotes the caller's environment, so each
tree's own path is replaced by ``SRC`` before comparing. OLD is typically ``git archive REV src | tar -x``.
``--warm`` compares instead one tree's command run in the launcher (``bin/argtrace``, ``ARGTRACE_WARM=0``)
with the same command served by a warm process (argtrace/warm/), and counts the commands it served.
``--log`` compares ``log LOG --format json|text --launch all`` instead, on every ``*.log`` under
``tests/data``, each run twice: as a user runs it (a log under 128 KiB is read by the Python scan) and with
the fast paths' size bars at 0 (``reader.MATCHER_MIN``, ``GREP_MIN``: the matcher reads every log);
``--formats json`` compares the JSON alone, ``--jobs N`` runs N comparisons at once.
Exit status 1 when any output differs.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIRECTORIES = ("examples", "tests/data/shell", "tests/data/multinode", "tests/data/false_alarms")
SUFFIXES = (".sh", ".yaml", ".yml", ".cmd", "")


def inputs() -> list[tuple[str, list[str]]]:
    """(label, the words after ``check --format F``) for every input."""
    out = []
    for directory in DIRECTORIES:
        for path in sorted((ROOT / directory).rglob("*")):
            if not path.is_file() or path.suffix not in SUFFIXES or path.name == "README.md":
                continue
            label = str(path.relative_to(ROOT))
            if path.suffix == ".cmd":  # the command after the header (tests/test_false_alarms.py)
                lines = path.read_text().splitlines()
                while lines and lines[0].startswith("#"):
                    lines.pop(0)
                words = ["-c", "\n".join(lines).strip("\n")]
            elif label == "examples/launch_mtp.sh":
                words = [label, "0", "30000"]  # the example's usage line
            else:
                words = [label]
            out.append((label, words))
    return out


def run(src: str, words: list[str]) -> tuple[int, bytes, bytes]:
    env = {**os.environ, "PYTHONPATH": src}
    cmd = [sys.executable, "-m", "argtrace", "check", *words]
    done = subprocess.run(cmd, capture_output=True, env=env, cwd=ROOT, timeout=300)
    mine = src.encode()
    return done.returncode, done.stdout.replace(mine, b"SRC"), done.stderr.replace(mine, b"SRC")


# ``argtrace log`` with the fast paths' size bars at 0 (as tests/log sets them): the matcher reads every log
FAST_PATH = (
    "import sys; from argtrace.layers.log import reader; reader.MATCHER_MIN = reader.GREP_MIN = 0; "
    "from argtrace.cli import main; sys.exit(main(sys.argv[1:]))"
)


def log_inputs() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "data").rglob("*.log") if p.is_file())


def run_log(src: str, words: list[str], fast: bool) -> tuple[int, bytes, bytes]:
    env = {**os.environ, "PYTHONPATH": src, "ARGTRACE_WARM": "0"}
    cmd = [sys.executable, *(["-c", FAST_PATH] if fast else ["-m", "argtrace"]), "log", *words]
    done = subprocess.run(cmd, capture_output=True, env=env, cwd=ROOT, timeout=300)
    mine = src.encode()
    return done.returncode, done.stdout.replace(mine, b"SRC"), done.stderr.replace(mine, b"SRC")


def compare_logs(old: str, new: str, formats: list[str], jobs: int) -> int:
    from concurrent.futures import ThreadPoolExecutor

    def one(case: tuple[str, str, bool]) -> tuple[str, str, bool, bool, int, int]:
        label, fmt, fast = case
        words = [label, "--format", fmt, "--launch", "all"]
        before, after = run_log(old, words, fast), run_log(new, words, fast)
        return label, fmt, fast, before != after, before[0], after[0]

    cases = [(label, fmt, fast) for label in log_inputs() for fmt in formats for fast in (False, True)]
    differ = 0
    with ThreadPoolExecutor(jobs) as pool:  # each case runs two processes; the threads only wait for them
        for label, fmt, fast, differs, was, now in pool.map(one, cases):
            if differs:
                differ += 1
                where = " (fast path)" if fast else ""
                print(f"DIFFERS: log --format {fmt} {label}{where} (exit {was} -> {now})", flush=True)
    logs = len(cases) // (2 * len(formats))
    print(
        f"{len(cases)} runs ({logs} logs, {'/'.join(formats)}, as run and on the fast path), {differ} differ"
    )
    return 1 if differ else 0


def launch(src: str, words: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """The command through the launcher an install puts on PATH (``bin/argtrace``)."""
    cmd = [sys.executable, str(ROOT / "bin" / "argtrace"), "check", *words]
    done = subprocess.run(cmd, capture_output=True, env={**env, "PYTHONPATH": src}, cwd=ROOT, timeout=300)
    mine = src.encode()
    return done.returncode, done.stdout.replace(mine, b"SRC"), done.stderr.replace(mine, b"SRC")


def compare_warm(src: str) -> int:
    runtime = tempfile.mkdtemp(prefix="aw", dir="/tmp")
    stats = os.path.join(runtime, "stats")
    base = {
        k: v for k, v in os.environ.items() if k not in ("ARGTRACE_WARM", "CI", "PYTHONDONTWRITEBYTECODE")
    }
    warm = {**base, "XDG_RUNTIME_DIR": runtime, "ARGTRACE_WARM_STATS": stats}
    cold = {**base, "ARGTRACE_WARM": "0"}
    launch(src, ["--format", "json", "examples/launch_mtp.sh", "0", "30000"], warm)  # starts the warm process
    deadline = time.monotonic() + 120
    while not any(name.endswith(".sock") for name in os.listdir(os.path.join(runtime, "argtrace"))):
        if time.monotonic() > deadline:
            raise SystemExit("no warm process started")
        time.sleep(0.1)
    runs = differ = 0
    try:
        for label, words in inputs():
            for fmt in ("json", "text"):
                runs += 1
                before, after = (
                    launch(src, ["--format", fmt, *words], cold),
                    launch(src, ["--format", fmt, *words], warm),
                )
                if before != after:
                    differ += 1
                    print(f"DIFFERS: --format {fmt} {label} (exit {before[0]} -> {after[0]})", flush=True)
    finally:
        for pid in os.listdir("/proc"):
            try:
                with open(f"/proc/{pid}/environ", "rb") as environ:
                    if f"XDG_RUNTIME_DIR={runtime}".encode() in environ.read().split(b"\0"):
                        os.kill(int(pid), signal.SIGTERM)
            except (OSError, ValueError):
                continue
    served = len(open(stats).read().split()) if os.path.exists(stats) else 0
    print(f"{runs} runs ({runs // 2} inputs, json and text), {differ} differ; {served} served warm")
    return 1 if differ or served < runs else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old", nargs="?", help="the src directory of the code before the change")
    parser.add_argument("new", nargs="?", default=str(ROOT / "src"), help="default: this checkout's src")
    parser.add_argument("--warm", action="store_true", help="NEW in the launcher against NEW served warm")
    parser.add_argument("--log", action="store_true", help="argtrace log on every log under tests/data")
    parser.add_argument("--formats", default="json,text", help="--log: the formats compared (json,text)")
    parser.add_argument("--jobs", type=int, default=1, help="--log: comparisons run at once")
    args = parser.parse_args()
    if args.warm:
        return compare_warm(str(Path(args.new).resolve()))
    if args.old is None:
        parser.error("OLD is needed without --warm")
    old, new = str(Path(args.old).resolve()), str(Path(args.new).resolve())
    if args.log:
        return compare_logs(old, new, args.formats.split(","), args.jobs)
    runs = differ = 0
    for label, words in inputs():
        for fmt in ("json", "text"):
            runs += 1
            before, after = run(old, ["--format", fmt, *words]), run(new, ["--format", fmt, *words])
            if before != after:
                differ += 1
                print(f"DIFFERS: --format {fmt} {label} (exit {before[0]} -> {after[0]})", flush=True)
    print(f"{runs} runs ({runs // 2} inputs, json and text), {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
