#!/usr/bin/env python3
"""``argtrace check`` on a generated 1 MB launch script, against ``bash -n`` on the same file.

The script is what makes the evaluator's assignment path hot (issue 18): exports, arithmetic, quoted
values with expansions, ``if`` tests, comments and secret-looking names, ~19,000 lines, then one server
start. Commands run interleaved, N rounds, in one process tree; prints medians of wall and CPU time (user +
system of the child: on a shared machine the wall time is mostly waiting). Target: within 1 s for 1 MB.

    python bench/large_script.py [--mb 1] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# bytecode is cached for users; a session with PYTHONDONTWRITEBYTECODE would time compiling
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


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
    lines.append("python3 -m sglang.launch_server --model-path $MODEL_DIR_0 --port $PORT_1 --tp-size 2")
    path.write_text("\n".join(lines) + "\n")
    return i


def _run(cmd: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=5)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="argtrace-large-script-") as tmp:
        script = Path(tmp) / "launch.sh"
        count = generate(script, int(opts.mb * 1_000_000))
        commands = {
            "bash -n": ["bash", "-n", str(script)],
            "argtrace check --no-resolve --format json": [
                sys.executable,
                "-m",
                "argtrace",
                "check",
                "--no-resolve",
                "--format",
                "json",
                str(script),
            ],
        }
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(opts.rounds):
            for name, cmd in commands.items():
                wall, cpu = _run(cmd)
                walls[name].append(wall)
                cpus[name].append(cpu)
        print(f"{script.stat().st_size / 1e6:.2f} MB, {count} lines, {opts.rounds} rounds (medians)")
        print(f"{'command':<44} {'wall s':>8} {'cpu s':>8}")
        for name in commands:
            print(f"{name:<44} {statistics.median(walls[name]):>8.2f} {statistics.median(cpus[name]):>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
