#!/usr/bin/env python3
"""The recorder's overhead: the same resolution, recorded and bare, in the same resolver environment.

Runs ``argtrace/resolver/record.py`` alternately with ``record: true`` (every field write, declaration, log
record and environment write captured with its caller) and ``record: false`` (the framework's resolution
alone), N rounds each, and prints the ratio of the medians of the resolution's CPU time in the recorder's
process (wall time on a shared machine is mostly noise; import time is identical and excluded).
Target: at most 1.2x.

    python bench/resolver_overhead.py                       # SGLang 0.5.10.post1, the hybrid MTP seed
    python bench/resolver_overhead.py --framework vllm --version 0.33.0 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.gpus import parse_gpu_spec  # noqa: E402
from argtrace.layers.resolution import ResolverTarget, run_recorder  # noqa: E402
from argtrace.resolver import environments  # noqa: E402
from argtrace.resolver.fake_gpu import fake_gpu_env  # noqa: E402

MODEL = ROOT / "tests" / "data" / "models" / "qwen3.6-27b"
# CPU time of the resolution in the recorder's process: on a shared machine wall time is mostly noise.
TIMING = "resolve_cpu"
ARGV = {
    "sglang": [
        "--model-path",
        str(MODEL),
        "--speculative-algorithm",
        "EAGLE",
        "--speculative-num-steps",
        "3",
        "--speculative-eagle-topk",
        "1",
        "--speculative-num-draft-tokens",
        "4",
        "--mamba-scheduler-strategy",
        "extra_buffer",
    ],
    "vllm": [str(MODEL), "--max-model-len", "32768"],
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--framework", default="sglang", choices=sorted(ARGV))
    ap.add_argument("--version", default="0.5.10.post1")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    manifest = environments.find_environment(args.framework, args.version)
    if manifest is None:
        print(
            f"no resolver environment for {args.framework}=={args.version}: "
            f"argtrace resolver add {args.framework}=={args.version}",
            file=sys.stderr,
        )
        return 2
    target = ResolverTarget(str(environments.env_python(Path(manifest.path))), "bench")
    env = environments.runtime_env_for(
        {"PATH": "/usr/bin:/bin", "HOME": str(Path.home())},
        {"ARGTRACE_FAKE_GPU": fake_gpu_env(parse_gpu_spec("h100"))},
    )
    if args.framework == "sglang" and args.version.startswith("0.5.23"):
        ARGV["sglang"] = [
            a for a in ARGV["sglang"] if a not in ("--mamba-scheduler-strategy", "extra_buffer")
        ]
    times: dict[bool, list[float]] = {True: [], False: []}
    imports: dict[bool, list[float]] = {True: [], False: []}
    writes = 0
    # warm-up (bytecode caches, the model-inspection cache of vLLM), then alternate
    run_recorder(target, {"framework": args.framework, "argv": ARGV[args.framework], "record": False}, env)
    for _ in range(args.rounds):
        for record in (True, False):
            status, data, tail = run_recorder(
                target, {"framework": args.framework, "argv": ARGV[args.framework], "record": record}, env
            )
            if data is None or data.get("status") != "ok":
                print(f"resolution failed ({status}): {tail}", file=sys.stderr)
                return 1
            times[record].append(data["timings"].get(TIMING, data["timings"]["resolve"]))
            imports[record].append(data["timings"]["import"])
            if record:
                writes = len(data["writes"]) + len(data["declarations"])
    rec, bare = statistics.median(times[True]), statistics.median(times[False])
    print(f"{args.framework}=={args.version}, {args.rounds} rounds, {writes} writes/declarations recorded")
    print(f"  import (both):     {statistics.median(imports[True] + imports[False]):.3f} s")
    print(f"  resolution bare:   {bare:.3f} s CPU")
    print(f"  resolution record: {rec:.3f} s CPU")
    best = min(times[True]) / min(times[False])
    print(f"  overhead ratio:    {rec / bare:.2f}x (target <= 1.2x); min/min {best:.2f}x")
    print(f"  runs: record {[round(t, 2) for t in times[True]]} bare {[round(t, 2) for t in times[False]]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
