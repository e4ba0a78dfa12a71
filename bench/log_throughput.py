"""Throughput and memory of ``argtrace log`` against ``grep -c`` on the same real-format log, in one run.

Logs are made of each release's real progress lines, rendered from its own logging code by
tests/log/realformat.py (SGLang's ``Decode batch, #running-req: ...`` / ``Prefill batch, #new-seq: ...`` and
uvicorn's access lines; vLLM's ``Engine 000: Avg prompt throughput: ...``; needs the resolver environments),
with a real start-up head, a warning in the middle and a traceback at the end. Each log is timed as a user
runs the program: the ``argtrace`` console script (its bytecode compiled first, so no run pays for compiling)
``log LOG --format json --launch all``, in rounds interleaved with ``grep -c mamba_scheduler LOG`` (``gzip -dc
LOG | grep -c mamba_scheduler`` for ``.gz``), so both see the same machine. Per round: the CPU time (user +
sys of the child and everything it waited for, ``os.wait4``), the wall time and argtrace's peak RSS; the
table gives medians and the ratios grep/argtrace (1.0 = grep's throughput; the target of issue 18 is at least
0.5, aiming at 1.0, and at most 100 MB RSS). On a shared machine the CPU-time ratio is the fair one: wall
time there is mostly waiting for a core.

Every log is also analysed by the slow path (the pure Python scan: ``ARGTRACE_NO_MATCHER=1
ARGTRACE_NO_GREP=1``) and by the GNU grep path (``ARGTRACE_NO_MATCHER=1``); their JSON must equal the fast
path's (findings, timeline and the log section, less the two counters that say how it was read). A
difference is printed and makes the exit status 1; time never does.

    python bench/log_throughput.py [--sizes-mb 10,100,300,1000] [--gz] [--rounds 5] [--baseline DIR]
    python bench/log_throughput.py --check     # CI: a 16 MB log per release, plain and .gz, answers only

``--baseline DIR`` also times the ``src`` of an older checkout in the same rounds (``git archive 82d5b55
src | tar -x -C DIR``), a row ``old`` under each log: before and after, on the same machine at the same time.
``--real-format`` is accepted for old command lines (the real formats are the only ones).

``--warm`` also times the same command served by a warm process (docs/warm.md: from a user's second command
on, ``log`` runs in a child forked from a process that has imported argtrace), a row ``warm`` under each log:
its CPU time is the launcher's (``wait4``) plus the serving child's (``ARGTRACE_WARM_STATS``); the child's
memory is not the launcher's, so its RSS column is empty.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# the warm process's helpers, shared with the start-up bench (this directory is on sys.path as a script's)
from check_startup import child_cpu, stop_warm, wait_for_warm

REPO = Path(__file__).resolve().parents[1]
RELEASES = "sglang==0.5.10.post1,sglang==0.5.23,vllm==0.33.0"
# how the log was read, not what it says: these two differ between the paths by design
READ_COUNTERS = ("skipped_blocks", "searched_blocks")


@dataclass
class Run:
    cpu: float  # user + sys, the child and what it waited for
    wall: float
    rss_mb: float  # peak resident set of the child (or of its largest waited-for descendant)
    status: int
    stdout: str


def run(cmd: list[str], env: dict[str, str] | None = None) -> Run:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    return Run(
        cpu=usage.ru_utime + usage.ru_stime,
        wall=wall,
        rss_mb=usage.ru_maxrss / 1024,
        status=proc.returncode,
        stdout=out.decode("utf-8", "replace"),
    )


def console_script() -> list[str]:
    """The ``argtrace`` a user runs: the console script beside this interpreter, else the one on PATH."""
    beside = Path(sys.executable).parent / "argtrace"
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("argtrace")
    if found is None:
        raise SystemExit("the argtrace console script is not installed (pip install -e .)")
    return [found]


def answer(report: dict[str, Any]) -> dict[str, Any]:
    """What the report says about the log: all of it but the counters of how it was read."""
    out = dict(report)
    log = dict(out.get("log") or {})
    scan = dict(log.get("scan") or {})
    for key in READ_COUNTERS:
        scan.pop(key, None)
    log["scan"] = scan
    out["log"] = log
    return out


def differences(a: Any, b: Any, where: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += differences(a.get(key), b.get(key), f"{where}.{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, f"{where}[{i}]")]
    return [] if a == b else [f"{where or '.'}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"]


def same_answers(argtrace: list[str], log: Path, env: dict[str, str], fast: dict[str, Any]) -> list[str]:
    """The slow (pure Python) path's and the grep path's answers against the fast path's."""
    problems = []
    for name, extra in (
        ("python", {"ARGTRACE_NO_MATCHER": "1", "ARGTRACE_NO_GREP": "1"}),
        ("grep", {"ARGTRACE_NO_MATCHER": "1"}),
    ):
        other = run([*argtrace, "log", str(log), "--format", "json", "--launch", "all"], dict(env, **extra))
        try:
            report = json.loads(other.stdout)
        except json.JSONDecodeError:
            problems.append(f"{name} path: exit {other.status}, no JSON")
            continue
        problems += [f"{name} path: {d}" for d in differences(answer(fast), answer(report))]
    return problems


def sample(log: Path, framework: str) -> str:
    """One steady-state line of the log, to show the format the bench used."""
    import gzip

    opener = gzip.open if log.suffix == ".gz" else open
    want = "Decode batch" if framework == "sglang" else "Avg prompt throughput"
    with opener(log, "rt", encoding="utf-8", errors="replace") as fh:  # type: ignore[operator]
        for _, line in zip(range(100_000), fh, strict=False):
            if want in line:
                return line.rstrip("\n")
    return "(none)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--releases", default=RELEASES)
    ap.add_argument("--sizes-mb", default="10,100,300,1000")
    ap.add_argument("--gz", action="store_true", help="also the same logs gzip-compressed")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--check", action="store_true", help="CI: small logs, plain and .gz, answers only")
    ap.add_argument(
        "--baseline", metavar="DIR", help="also time DIR/src (an older checkout) in the same rounds"
    )
    ap.add_argument("--real-format", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--warm", action="store_true", help="also time the command served by a warm process")
    opts = ap.parse_args()
    if opts.check:  # big enough that the .gz (counted at 8x its size) takes a fast path too
        opts.sizes_mb, opts.gz, opts.rounds = "16", True, 1
    grep = shutil.which("grep")
    if grep is None:
        print("grep not found", file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "src"))
    from tests.log import realformat

    import argtrace

    # The package the console script will import (this checkout's, first on its path), compiled once.
    package = Path(argtrace.__file__).parent
    compileall.compile_dir(str(package), quiet=1)
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # The command runs in the launcher, not in a warm process's forked child (docs/warm.md): wait4's CPU time
    # and peak RSS are then the command's, not only the launcher's request to the warm process.
    env["ARGTRACE_WARM"] = "0"
    # Each tree its own data cache (the error catalog's, the dataclass and regex stores' copies), as a user's
    # one install has: a copy is keyed by its sources' paths and a newer key replaces the older copy, so two
    # trees (or other checkouts on the machine) sharing one made every run of each parse them again (log36).
    caches = tempfile.mkdtemp(prefix="argtrace-bench-data-")
    env["ARGTRACE_DATA_CACHE"] = os.path.join(caches, "new")
    argtrace_cmd = console_script()
    old_env = None
    if opts.baseline:
        old_src = Path(opts.baseline).resolve() / "src"
        compileall.compile_dir(str(old_src / "argtrace"), quiet=1)
        old_env = dict(env, PYTHONPATH=str(old_src) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        old_env["ARGTRACE_DATA_CACHE"] = os.path.join(caches, "old")
        print(f"baseline: {old_src}")
    warm_env: dict[str, str] | None = None
    runtime = ""
    if opts.warm:
        # a warm process of this run's own (a private runtime directory, stopped at the end)
        runtime = tempfile.mkdtemp(prefix="aw", dir="/tmp")
        warm_env = {k: v for k, v in env.items() if k not in ("ARGTRACE_WARM", "CI")}
        warm_env.update(XDG_RUNTIME_DIR=runtime, ARGTRACE_WARM_STATS=os.path.join(runtime, "stats"))
    print(f"argtrace: {' '.join(argtrace_cmd)} (package {package}); grep: {grep}; rounds {opts.rounds}")
    print(f"machine: {os.cpu_count()} cores, load {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    # the floor under any Python CLI: the interpreter's own start-up (site hooks included) on this machine
    floor = statistics.median(run([sys.executable, "-c", "pass"]).cpu for _ in range(5))
    print(f"python -c pass: {floor:.3f} s CPU (median of 5)")
    print(
        f"{'log':<26} {'MB':>6} {'grep cpu/wall s':>16} {'argtrace cpu/wall s':>20} "
        f"{'ratio cpu/wall':>15} {'RSS MB':>7}  same answers"
    )
    tmp = Path(tempfile.mkdtemp(prefix="argtrace-log-bench-"))
    failed = False
    ran = 0
    try:
        for spec in opts.releases.split(","):
            framework, version = spec.split("==")
            for mb in (int(x) for x in opts.sizes_mb.split(",")):
                for compress in (False, True) if opts.gz else (False,):
                    log = tmp / f"{framework}-{version}-{mb}.log{'.gz' if compress else ''}"
                    if not realformat.generate(log, mb << 20, framework, version, compress=compress):
                        print(f"{spec}: no resolver environment (its format strings); skipped")
                        break
                    if mb == int(opts.sizes_mb.split(",")[0]) and not compress:
                        print(f"  {spec} steady-state line: {sample(log, framework)[:150]}")
                    subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # page cache
                    grep_cmd = (
                        ["sh", "-c", f"gzip -dc '{log}' | {grep} -c mamba_scheduler"]
                        if compress
                        else [grep, "-c", "mamba_scheduler", str(log)]
                    )
                    cmd = [*argtrace_cmd, "log", str(log), "--format", "json", "--launch", "all"]
                    greps: list[Run] = []
                    ours: list[Run] = []
                    olds: list[Run] = []
                    warms: list[Run] = []
                    if warm_env is not None:
                        run(cmd, warm_env)  # starts the warm process (or is served by it)
                        wait_for_warm(runtime, (cmd, warm_env))
                    for _ in range(opts.rounds):  # interleaved: all see the same machine
                        greps.append(run(grep_cmd))
                        ours.append(run(cmd, env))
                        if old_env is not None:
                            olds.append(run(cmd, old_env))
                        if warm_env is not None:
                            served = run(cmd, warm_env)
                            served.cpu += child_cpu(warm_env["ARGTRACE_WARM_STATS"])
                            warms.append(served)
                    report = json.loads(ours[-1].stdout)
                    problems = same_answers(argtrace_cmd, log, env, report)
                    scan = report["log"]["scan"]
                    if (scan["searched_blocks"], scan["skipped_blocks"]) != (1, 0):
                        problems.append(f"the default run did not take a fast path: {scan}")
                    failed = failed or bool(problems)
                    ran += 1
                    gc, gw = statistics.median(r.cpu for r in greps), statistics.median(r.wall for r in greps)
                    ac, aw = statistics.median(r.cpu for r in ours), statistics.median(r.wall for r in ours)
                    rss = max(r.rss_mb for r in ours)
                    name = f"{framework}=={version}{' .gz' if compress else ''}"
                    print(
                        f"{name:<26} {log.stat().st_size / 1e6:>6.1f} {gc:>7.3f}/{gw:<8.3f} "
                        f"{ac:>9.3f}/{aw:<10.3f} {gc / max(ac, 1e-9):>6.2f}/{gw / max(aw, 1e-9):<8.2f} "
                        f"{rss:>7.0f}  {'yes' if not problems else 'NO'}",
                        flush=True,
                    )
                    if olds:
                        oc, ow = (
                            statistics.median(r.cpu for r in olds),
                            statistics.median(r.wall for r in olds),
                        )
                        print(
                            f"{'  old':<26} {'':>6} {'':>16} {oc:>9.3f}/{ow:<10.3f} "
                            f"{gc / max(oc, 1e-9):>6.2f}/{gw / max(ow, 1e-9):<8.2f} "
                            f"{max(r.rss_mb for r in olds):>7.0f}",
                            flush=True,
                        )
                    if warms:
                        if answer(json.loads(warms[-1].stdout)) != answer(report):
                            problems.append("the warm-served report differs from the launcher's")
                            failed = True
                        wc = statistics.median(r.cpu for r in warms)
                        ww = statistics.median(r.wall for r in warms)
                        print(
                            f"{'  warm':<26} {'':>6} {'':>16} {wc:>9.3f}/{ww:<10.3f} "
                            f"{gc / max(wc, 1e-9):>6.2f}/{gw / max(ww, 1e-9):<8.2f}",
                            flush=True,
                        )
                    for problem in problems[:20]:
                        print(f"    {problem}")
                    log.unlink()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(caches, ignore_errors=True)
        if runtime:
            stop_warm(runtime)
            shutil.rmtree(runtime, ignore_errors=True)
    if not ran:
        print("no release could be rendered (no resolver environment): nothing was compared")
        return 1 if opts.check else 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
