#!/usr/bin/env python3
"""`argtrace check --format json` on the shipped example, against `python -c pass` and `shellcheck`.

Runs the commands interleaved, N rounds, in one process tree, and prints ratios of medians: the machines
are noisy, so only side-by-side ratios mean anything. Targets (issue 18): check <= 10x `python -c pass`
(aim 5x), `--version` and `--help` <= 1.5x. The console script is timed as a user runs it; its own
`import re` (pip's wrapper) is timed too, as the floor no console-script command goes below. `--help` is
timed with stdout not a terminal (80 columns: the width the static help text is generated for).
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
    # The console script as a user runs it (pip's wrapper: `import re` and `from argtrace.cli import main`),
    # not `python -m argtrace`; PYTHONPATH (if set) picks the checkout's source.
    script = Path(sys.executable).with_name("argtrace")
    argtrace = [str(script)] if script.exists() else [sys.executable, "-m", "argtrace"]
    example = [str(EXAMPLE), "0", "30000"]
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        # the floor of any console-script command: pip's wrapper itself runs `import re` before argtrace
        "python -c 'import re'": [sys.executable, "-c", "import re"],
        "argtrace check --format json": [*argtrace, "check", "--format", "json", *example],
        "argtrace check --format json --no-shellcheck": [
            *argtrace,
            "check",
            "--format",
            "json",
            "--no-shellcheck",
            *example,
        ],
        "argtrace --version": [*argtrace, "--version"],
        "argtrace --help": [*argtrace, "--help"],
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
