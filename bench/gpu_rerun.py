#!/usr/bin/env python3
"""A check re-run with another ``--gpu`` in one argtrace process (issue 18): CPU seconds of the whole process
tree (argtrace, its resolver hosts, their runs, any fresh runs), for two source trees side by side.

Each round runs, in a new ``python3`` with ``PYTHONPATH=<tree>/src``, ``check --no-cache`` of the same launch
on each GPU in turn (the first check starts the hosts; the next ones are what a user re-checking on another
GPU, or a test suite, pays), and reports that child's CPU (user + system of it and every process it waited
for, ``RUSAGE_CHILDREN``). Trees alternate round by round, so load drifts hit both alike.

    python bench/gpu_rerun.py --before /work/main --after . --framework sglang --version 0.5.10.post1
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "tests" / "data" / "models" / "qwen3.6-27b"
COMMANDS = {
    "sglang": "python3 -m sglang.launch_server --model-path /workspace/models/Qwen3.6-27B --tp-size 1 "
    "--mem-fraction-static 0.80",
    "vllm": "vllm serve /workspace/models/Qwen3.6-27B --max-model-len 32768 --max-num-seqs 64",
}
CHILD = """
import sys, time
from argtrace.cli import main
from argtrace.resolver import hosts
framework, version, command, model = sys.argv[1:5]
for gpu in sys.argv[5:]:
    argv = ["check", "--no-cache", "--format", "json", "--model-config", model, "--gpu", gpu,
            "--framework", framework, "--framework-version", version, "-c", command]
    import contextlib, io
    with contextlib.redirect_stdout(io.StringIO()):
        main(argv)
pool = hosts.default_pool()
print(len(pool.spawned) if hasattr(pool, "spawned") else pool.started + pool.ahead, pool.served, pool.fresh)
pool.close()
"""


def one_round(tree: Path, framework: str, version: str, gpus: list[str]) -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), ARGTRACE_WARM="0")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, framework, version, COMMANDS[framework], str(MODEL), *gpus],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stdout.strip().splitlines()[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, default=ROOT)
    parser.add_argument("--framework", default="sglang")
    parser.add_argument("--version", default="0.5.10.post1")
    parser.add_argument("--gpus", default="h100,l4")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    gpus = args.gpus.split(",")
    results: dict[str, list[float]] = {"before": [], "after": []}
    pools: dict[str, str] = {}
    for _ in range(args.rounds):
        for name in ("before", "after"):
            tree = args.before if name == "before" else args.after
            # the first GPU alone, then all of them: the difference is the re-run's cost
            alone, _ = one_round(tree, args.framework, args.version, gpus[:1])
            every, pools[name] = one_round(tree, args.framework, args.version, gpus)
            results[name].append(every - alone)
            print(f"{name}: {gpus[0]} alone {alone:.1f} CPU s, {args.gpus} {every:.1f} CPU s", flush=True)
    load = os.getloadavg()[0]
    summary = {
        name: {
            "rerun_cpu_s": round(statistics.median(values), 1),
            "hosts_served_fresh": pools[name],
        }
        for name, values in results.items()
    }
    summary["load_1min_at_end"] = round(load, 1)  # type: ignore[assignment]
    head = {"framework": args.framework, "version": args.version, "gpus": gpus}
    print(json.dumps({**head, **summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
