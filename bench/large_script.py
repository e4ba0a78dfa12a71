#!/usr/bin/env python3
"""``argtrace check`` on a generated 1 MB launch script, against ``bash -n`` on the same file.

The script is what makes the evaluator's assignment path hot (issue 18): exports, arithmetic, quoted
values with expansions, ``if`` tests, comments and secret-looking names, ~19,000 lines, then one server
start. The console script is timed as a user runs it (pip's wrapper next to this interpreter, bytecode
cached; ``PYTHONPATH``, if set, picks the checkout's source), interleaved with ``bash -n`` and with
``argtrace check`` on a one-line script (the fixed start-up cost), N rounds. Each run's CPU time (user +
system of the child and of what it waited for, such as its ``bash -n``) and peak RSS come from ``wait4``;
the machine is shared, so medians of CPU time are what to compare. Target: within 1 s for 1 MB.

The answer is checked too: the bench exits 1 when the server command argtrace reports is not the one the
script starts (a fast wrong answer is no answer).

``--shellcheck`` also times shellcheck itself (as argtrace runs it: ``-f json1 -s bash -``) on the first
16-96 KB of the script, to show where its ``MAX_BYTES`` bound (about a second of CPU) lies.

    python bench/large_script.py [--mb 1] [--rounds 5] [--shellcheck]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# bytecode is cached for users; a session with PYTHONDONTWRITEBYTECODE would time compiling
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
# the check runs in the launcher, not in a warm process's forked child (docs/warm.md), so wait4 measures it
ENV["ARGTRACE_WARM"] = "0"

SERVER = "python3 -m sglang.launch_server --model-path $MODEL_DIR_0 --port $PORT_1 --tp-size 2"
EXPECTED_ARGV = [
    "python3",
    "-m",
    "sglang.launch_server",
    "--model-path",
    "/workspace/models/m0",
    "--port",
    "30001",
    "--tp-size",
    "2",
]


def generate(path: Path, size: int) -> int:
    """Write a launch script of about ``size`` bytes; the number of lines before the server start."""
    lines = ["#!/usr/bin/env bash", "set -e"]
    total = 0
    i = 0
    while total < size:
        kind = i % 6
        if kind == 0:
            line = f"export MODEL_DIR_{i}=/workspace/models/m{i}"
        elif kind == 1:
            line = f"PORT_{i}=$((30000 + {i}))"
        elif kind == 2:
            line = f'OPTS_{i}="--tp-size 1 --mem-fraction-static 0.8${{PORT_{i - 1}:+x}}"'
        elif kind == 3:
            line = f'if [ -n "${{MODEL_DIR_{i - 3}}}" ]; then LOG_{i}=/tmp/log_{i}.txt; fi'
        elif kind == 4:
            line = f"# comment line {i} about the launch configuration and its settings"
        else:
            line = f"HF_TOKEN_{i}=hf_{i:08d}abcdef"
        lines.append(line)
        total += len(line) + 1
        i += 1
    lines.append(SERVER)
    path.write_text("\n".join(lines) + "\n")
    return i


def run(cmd: list[str], stdin: Path | None = None) -> tuple[float, float, float, bytes]:
    """(wall s, CPU s, peak RSS MB, stdout) of one run of ``cmd``."""
    start = time.perf_counter()
    with open(stdin or os.devnull, "rb") as inp:
        proc = subprocess.Popen(cmd, stdin=inp, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
        out = proc.stdout.read() if proc.stdout else b""
        _pid, _status, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0  # reaped by wait4 above
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def console_script() -> list[str]:
    script = Path(sys.executable).with_name("argtrace")
    return [str(script)] if script.exists() else [sys.executable, "-m", "argtrace"]


def check_answer(out: bytes) -> str | None:
    """Why the report is wrong, or None."""
    try:
        report = json.loads(out)
        argv = report["servers"][0]["argv"]
    except (ValueError, KeyError, IndexError, TypeError) as e:
        return f"no server in the report ({type(e).__name__}: {e})"
    return None if argv == EXPECTED_ARGV else f"wrong server argv: {argv}"


def bench_check(script: Path, tiny: Path, rounds: int) -> int:
    argtrace = [*console_script(), "check", "--no-resolve", "--format", "json"]
    commands = {
        "bash -n": ["bash", "-n", str(script)],
        "argtrace check --no-resolve --format json": [*argtrace, str(script)],
        "  the same on a one-line script": [*argtrace, str(tiny)],
    }
    big = "argtrace check --no-resolve --format json"
    wrong = check_answer(run(commands[big])[3])  # also warms the bytecode cache
    if wrong:
        print(f"WRONG ANSWER: {wrong}")
        return 1
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    rss: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, cmd in commands.items():
            wall, cpu, peak, _out = run(cmd)
            walls[name].append(wall)
            cpus[name].append(cpu)
            rss[name].append(peak)
    base = statistics.median(cpus["bash -n"])
    print(f"{'command':<44} {'wall s':>8} {'cpu s':>8} {'x bash -n':>10} {'peak MB':>8}")
    for name in commands:
        cpu = statistics.median(cpus[name])
        print(
            f"{name:<44} {statistics.median(walls[name]):>8.2f} {cpu:>8.2f} {cpu / max(base, 1e-3):>10.0f}"
            f" {max(rss[name]):>8.0f}"
        )
    per_mb = statistics.median(cpus[big]) - statistics.median(cpus["  the same on a one-line script"])
    size_mb = script.stat().st_size / 1e6
    print(f"argtrace's CPU beyond start-up: {per_mb / size_mb:.2f} s per MB; target: the whole check <= 1 s")
    return 0


def bench_shellcheck(script: Path, rounds: int) -> None:
    exe = Path(sys.executable).with_name("shellcheck")
    shellcheck = str(exe) if exe.exists() else shutil.which("shellcheck")
    if shellcheck is None:
        print("shellcheck: not installed")
        return
    data = script.read_bytes()
    print(f"{'shellcheck -f json1 -s bash - on':<32} {'cpu s':>8} {'peak MB':>8}")
    with tempfile.TemporaryDirectory(prefix="argtrace-large-script-sc-") as tmp:
        for kb in (16, 32, 48, 64, 96):
            part = Path(tmp) / f"{kb}.sh"
            cut = data[: kb * 1024]
            part.write_bytes(cut[: cut.rfind(b"\n") + 1] + SERVER.encode() + b"\n")
            samples = [run([shellcheck, "-f", "json1", "-s", "bash", "-"], stdin=part) for _ in range(rounds)]
            cpu = statistics.median(s[1] for s in samples)
            print(f"{f'the first {kb} KB':<32} {cpu:>8.2f} {max(s[2] for s in samples):>8.0f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument(
        "--shellcheck", action="store_true", help="also time shellcheck on 16-96 KB of the script"
    )
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="argtrace-large-script-") as tmp:
        script = Path(tmp) / "launch.sh"
        count = generate(script, int(opts.mb * 1_000_000))
        tiny = Path(tmp) / "one_line.sh"
        tiny.write_text(SERVER.replace("$MODEL_DIR_0", "/m").replace("$PORT_1", "30001") + "\n")
        print(f"{script.stat().st_size / 1e6:.2f} MB, {count} lines, {opts.rounds} rounds (medians)")
        status = bench_check(script, tiny, opts.rounds)
        if opts.shellcheck:
            bench_shellcheck(script, max(1, min(opts.rounds, 3)))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
