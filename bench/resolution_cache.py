#!/usr/bin/env python3
"""A repeated resolving ``check`` against a non-resolving one, and a first (uncached) run, side by side.

Runs the console script interleaved, N rounds, on the SGLang seed (tests/data/models/qwen3.6-27b, the
0.5.10.post1 resolver environment): ``check --no-resolve`` (no resolution layer), ``check`` answered from
the resolution cache (resolver/cache.py; a first run fills it), and ``check --no-cache`` (the resolver
process every time). Prints medians of wall and CPU time (the command and its children: on a shared
machine wall time is mostly waiting) and the ratios. Targets (issue 18): cached at most 3x the
non-resolving check (aim 1.2x). The cache lives in a temporary directory (ARGTRACE_RESOLUTION_CACHE).
The last row runs ``--no-cache`` with resolver hosts off (``ARGTRACE_RESOLVER_HOSTS=0``): every resolver run
a fresh process, where the row above forks the fix verification's re-resolution from the first run's host
(resolver/hosts.py). The row before it keeps every host to the moment its first run asks for it
(``ARGTRACE_HOSTS_AHEAD=0``): on a release whose memory SGLang's own code sizes (``--version 0.5.23``; not
0.5.10.post1, which argtrace's formulas follow), the sizing host's import otherwise overlaps the resolution.

    python bench/resolution_cache.py [--rounds 3] [--version 0.5.10.post1]
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

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "tests" / "data" / "models" / "qwen3.6-27b"
SG = (
    "python3 -m sglang.launch_server --model-path /workspace/models/Qwen3.6-27B --tp-size 1 "
    "--mem-fraction-static 0.80 --speculative-algorithm NEXTN --speculative-num-steps 3 "
    "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
)


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--version", default="0.5.10.post1")
    opts = ap.parse_args()
    script = Path(sys.executable).with_name("argtrace")
    argtrace = [str(script)] if script.exists() else [sys.executable, "-m", "argtrace"]
    base = [*argtrace, "check", "--format", "json", "--no-shellcheck", "--model-config", str(MODEL)]
    base += ["--gpu", "h100", "--framework", "sglang", "--framework-version", opts.version]
    commands = {
        "check --no-resolve": [*base, "--no-resolve", "-c", SG],
        "check (cached resolution)": [*base, "-c", SG],
        "check --no-cache (resolver hosts)": [*base, "--no-cache", "-c", SG],
        "check --no-cache, none started ahead": [*base, "--no-cache", "-c", SG],
        "check --no-cache, hosts off": [*base, "--no-cache", "-c", SG],
    }
    switched = {
        "check --no-cache, none started ahead": {"ARGTRACE_HOSTS_AHEAD": "0"},
        "check --no-cache, hosts off": {"ARGTRACE_RESOLVER_HOSTS": "0"},
    }
    with tempfile.TemporaryDirectory(prefix="argtrace-resolution-cache-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["ARGTRACE_RESOLUTION_CACHE"] = tmp
        first = timed(commands["check (cached resolution)"], env)  # fills the cache
        print(f"first run (fills the cache): {first[0]:.1f} s wall, {first[1]:.1f} s CPU, exit {first[2]}")
        wall: dict[str, list[float]] = {k: [] for k in commands}
        cpu: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(opts.rounds):
            for name, cmd in commands.items():
                w, c, _ = timed(cmd, {**env, **switched.get(name, {})})
                wall[name].append(w)
                cpu[name].append(c)
    ref_w = statistics.median(wall["check --no-resolve"])
    ref_c = statistics.median(cpu["check --no-resolve"])
    print(f"{'command':<38} {'wall s':>8} {'CPU s':>8} {'x no-resolve (wall/CPU)':>24}")
    for name in commands:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"{name:<38} {w:>8.2f} {c:>8.2f} {w / ref_w:>11.2f}/{c / ref_c:<11.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
