#!/usr/bin/env python3
"""`argtrace check --format json` on the shipped example, against `python -c pass` and `shellcheck`.

Runs the three commands interleaved, N rounds, in one process tree, and prints ratios of medians: the
machines are noisy, so only side-by-side ratios mean anything. Target: check <= 10x `python -c pass`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "launch_mtp.sh"


# Users' interpreters cache bytecode; a session that sets PYTHONDONTWRITEBYTECODE would time compiling.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    shellcheck = shutil.which("shellcheck")
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "argtrace check --format json": [
            sys.executable,
            "-m",
            "argtrace",
            "check",
            "--format",
            "json",
            str(EXAMPLE),
            "0",
            "30000",
        ],
        "argtrace check --format json --no-shellcheck": [
            sys.executable,
            "-m",
            "argtrace",
            "check",
            "--format",
            "json",
            "--no-shellcheck",
            str(EXAMPLE),
            "0",
            "30000",
        ],
        "argtrace --version": [sys.executable, "-m", "argtrace", "--version"],
    }
    if shellcheck:
        commands["shellcheck"] = [shellcheck, str(EXAMPLE)]
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for cmd in commands.values():  # warm caches once
        timed(cmd)
    for _ in range(args.rounds):
        for name, cmd in commands.items():
            samples[name].append(timed(cmd))
    base = statistics.median(samples["python -c pass"])
    print(f"{'command':<48} {'median ms':>10} {'x python -c pass':>17}")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"{name:<48} {median * 1000:>10.1f} {median / base:>17.2f}")
    if shellcheck:
        ratio = statistics.median(samples["argtrace check --format json"]) / statistics.median(
            samples["shellcheck"]
        )
        print(f"argtrace check / shellcheck: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
