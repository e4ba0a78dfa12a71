"""Throughput and memory of ``argtrace log`` against ``grep -c`` on the same generated log, in one run.

Generates a realistic SGLang log (default 2 GB; mostly decode-batch lines, with prefill and HTTP access
lines, a few launches with their args dump, memory and CUDA-graph lines, warnings and a final failure) in a
temporary directory, warms the page cache, then times:

- ``grep -c mamba_scheduler LOG`` (what the engineer in the story ran), and ``grep -c '' LOG`` for reference;
- ``python -m argtrace log LOG --format json --launch all``, with its peak RSS (the process and its scan
  workers).

Targets (issue 18): at least 0.5x grep's throughput (aiming at 1.0x), at most 100 MB peak RSS. Not run by
the test suite (tests/log/test_realformat.py checks the answers on small generated logs).

    python bench/log_throughput.py [--size-gb 2] [--keep]
    python bench/log_throughput.py --real-format [--sizes-mb 10,100,300] [--gz] [--rounds 3]

``--real-format``: each release's real progress lines (``Decode batch, #running-req: ...``, ``Engine 000:
Avg prompt throughput: ...``), rendered from its own logging code by tests/log/realformat.py (needs the
resolver environments), plain and with ``--gz`` compressed, timed interleaved with ``grep -c`` (``gzip -dc |
grep -c`` for .gz); also checks the findings equal the pure-Python scan's (ARGTRACE_NO_GREP=1).
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
from typing import Any

REPO = Path(__file__).resolve().parents[1]
LOGS = REPO / "tests" / "data" / "logs"

DECODE = (
    "[2026-11-29 {t} TP0] Decode batch. #running-req: {r}, #token: {k}, token usage: 0.{u:02d}, "
    "cuda graph: True, gen throughput (token/s): {g}.{f:02d}, #queue-req: 0\n"
)
PREFILL = (
    "[2026-11-29 {t} TP0] Prefill batch. #new-seq: 1, #new-token: {k}, #cached-token: {c}, "
    "token usage: 0.{u:02d}, #running-req: {r}, #queue-req: 0\n"
)
HTTP = '[2026-11-29 {t}] INFO:     10.0.0.{r}:{p} - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
STARTUP = (
    "[2026-11-29 {t} TP0] Load weight begin. avail mem=94.50 GB\n"
    "[2026-11-29 {t} TP0] Load weight end. type=Qwen3_5ForConditionalGeneration, dtype=torch.bfloat16, "
    "avail mem=41.10 GB, mem usage=52.12 GB.\n"
    "[2026-11-29 {t} TP0] Mamba Cache is allocated. max_mamba_cache_size: 96, conv_state size: 0.37 GB, "
    "ssm_state size: 11.25 GB\n"
    "[2026-11-29 {t} TP0] KV Cache is allocated. #tokens: 412160, K size: 9.43 GB, V size: 9.43 GB\n"
    "[2026-11-29 {t} TP0] Memory pool end. avail mem=20.01 GB\n"
    "[2026-11-29 {t} TP0] Capture cuda graph end. Time elapsed: 19.80 s. mem usage=1.21 GB. "
    "avail mem=18.80 GB.\n"
    "[2026-11-29 {t} TP0] max_total_num_tokens=412160, chunked_prefill_size=8192, max_prefill_tokens=16384, "
    "max_running_requests=48, context_len=262144, available_gpu_mem=17.9 GB\n"
    "[2026-11-29 {t}] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)\n"
    "[2026-11-29 {t}] The server is fired up and ready to roll!\n"
)
WARN = "[2026-11-29 {t} TP0] WARNING: request {r} exceeded the soft watchdog; retracting 2 requests\n"
FAILURE = (
    "[2026-11-29 23:59:58 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/sgl/srt/managers/scheduler.py", line 2009, in run_scheduler_process\n'
    '  File "/sgl/srt/model_executor/cuda_graph_runner.py", line 269, in __init__\n'
    "Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 448.00 MiB.\n"
    "[2026-11-29 23:59:59] Received sigquit from a child process. It usually means the child failed.\n"
)


def _args_line() -> str:
    for line in (LOGS / "sglang_0.5.8_glm5_rocm_repr.log").read_text(encoding="utf-8").splitlines():
        if "server_args=" in line:
            return line + "\n"
    raise SystemExit("fixture with a server_args line not found")


def generate(path: Path, size: int, launches: int = 4) -> None:
    args = _args_line()
    # One block of steady-state traffic: 40 decode, 6 prefill, 6 HTTP lines (varied numbers).
    lines = []
    for i in range(52):
        t = f"21:{i % 60:02d}:{(i * 7) % 60:02d}"
        if i % 26 == 5:
            lines.append(PREFILL.format(t=t, k=800 + i, c=i * 64, u=i % 100, r=i % 48))
        elif i % 26 in (6, 9):
            lines.append(HTTP.format(t=t, r=i % 250, p=40000 + i))
        else:
            lines.append(DECODE.format(t=t, r=i % 48, k=21020 + i * 13, u=i % 100, g=90 + i % 9, f=i % 100))
    block = "".join(lines * 400).encode()
    per_launch = size // launches
    written = 0
    with path.open("wb", buffering=1 << 20) as fh:
        for n in range(launches):
            head = (args + STARTUP.format(t=f"{10 + n:02d}:00:00")).encode()
            fh.write(head)
            written += len(head)
            target = per_launch * (n + 1)
            k = 0
            while written < target:
                fh.write(block)
                written += len(block)
                k += 1
                if k % 500 == 0:
                    w = WARN.format(t="21:30:00", r=k).encode()
                    fh.write(w)
                    written += len(w)
        tail = FAILURE.encode()
        fh.write(tail)


def _timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, proc


RSS_WRAPPER = (
    "import resource, sys, json\n"
    "from argtrace.cli import main\n"
    "status = main(sys.argv[1:])\n"
    "own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
    "kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "sys.stderr.write(json.dumps({'rss_kb': own, 'children_rss_kb': kids}) + '\\n')\n"
    "raise SystemExit(status)\n"
)


def _cpu_run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, Any]:
    """(wall s, CPU s of the command and its children, the completed process). On a shared machine the
    CPU time is the fairer side-by-side measure: wall time there is mostly waiting for a core."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def _argtrace(log: Path, env: dict[str, str]) -> tuple[float, float, dict[str, Any], dict[str, Any]]:
    cmd = [sys.executable, "-c", RSS_WRAPPER, "log", str(log), "--format", "json", "--launch", "all"]
    wall, cpu, proc = _cpu_run(cmd, env)
    return wall, cpu, json.loads(proc.stderr.strip().splitlines()[-1]), json.loads(proc.stdout)


def real_format(opts: argparse.Namespace, grep: str, env: dict[str, str]) -> int:
    """Logs of each release's real progress lines (tests/log/realformat.py), plain and .gz, side by side
    with ``grep -c``: medians of interleaved runs, peak RSS, and the same findings with ARGTRACE_NO_GREP."""
    sys.path.insert(0, str(REPO))
    from tests.log import realformat

    tmp = Path(tempfile.mkdtemp(prefix="argtrace-log-bench-"))
    head = f"{'log':<30} {'MB':>5} {'grep wall/cpu s':>15} {'argtrace wall/cpu s':>19} {'ratio wall/cpu':>14}"
    print(head + " RSS MB  same-findings")
    try:
        for spec in opts.releases.split(","):
            framework, version = spec.split("==")
            for mb in (int(x) for x in opts.sizes_mb.split(",")):
                for compress in (False, True) if opts.gz else (False,):
                    log = tmp / f"{framework}-{version}-{mb}.log{'.gz' if compress else ''}"
                    if not realformat.generate(log, mb << 20, framework, version, compress=compress):
                        print(f"{spec}: no resolver environment (its format strings); skipped")
                        break
                    subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)
                    grep_cmd = (
                        ["sh", "-c", f"gzip -dc '{log}' | {grep} -c mamba_scheduler"]
                        if compress
                        else [grep, "-c", "mamba_scheduler", str(log)]
                    )
                    g: list[float] = []
                    gc: list[float] = []
                    a: list[float] = []
                    ac: list[float] = []
                    rss = 0.0
                    report: dict[str, Any] = {}
                    for _ in range(opts.rounds):  # interleaved: both see the same machine
                        wall, cpu, _ = _cpu_run(grep_cmd)
                        g.append(wall)
                        gc.append(cpu)
                        wall, cpu, usage, report = _argtrace(log, env)
                        a.append(wall)
                        ac.append(cpu)
                        rss = max(rss, usage["rss_kb"] / 1024, usage["children_rss_kb"] / 1024)
                    slow = _argtrace(log, dict(env, ARGTRACE_NO_GREP="1", ARGTRACE_NO_MATCHER="1"))[3]
                    same = slow["findings"] == report["findings"]
                    gm, am = statistics.median(g), statistics.median(a)
                    gcm, acm = statistics.median(gc), statistics.median(ac)
                    name = f"{framework}=={version}{' .gz' if compress else ''}"
                    print(
                        f"{name:<30} {mb:>5} {gm:>7.2f}/{gcm:<7.2f} {am:>9.2f}/{acm:<9.2f} "
                        f"{gm / am:>6.2f}/{gcm / max(acm, 1e-9):<7.2f} {rss:>6.0f}  {same}",
                        flush=True,
                    )
                    log.unlink()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-gb", type=float, default=2.0)
    ap.add_argument("--keep", action="store_true", help="keep the generated log")
    ap.add_argument(
        "--real-format",
        action="store_true",
        help="the releases' real progress lines (tests/log/realformat.py) at --sizes-mb, instead",
    )
    ap.add_argument("--releases", default="sglang==0.5.10.post1,sglang==0.5.23,vllm==0.33.0")
    ap.add_argument("--sizes-mb", default="10,100,300")
    ap.add_argument("--gz", action="store_true", help="also the same logs gzip-compressed")
    ap.add_argument("--rounds", type=int, default=3)
    opts = ap.parse_args()
    grep = shutil.which("grep")
    if grep is None:
        print("grep not found", file=sys.stderr)
        return 2
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if opts.real_format:
        return real_format(opts, grep, env)
    tmp = Path(tempfile.mkdtemp(prefix="argtrace-log-bench-"))
    log = tmp / "sglang_big.log"
    try:
        t0 = time.perf_counter()
        generate(log, int(opts.size_gb * (1 << 30)))
        size = log.stat().st_size
        print(f"generated {size / (1 << 30):.2f} GiB in {time.perf_counter() - t0:.1f} s: {log}")
        subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # page cache, for both

        g1, p1 = _timed([grep, "-c", "mamba_scheduler", str(log)])
        g2, p2 = _timed([grep, "-c", "", str(log)])
        cmd = [sys.executable, "-c", RSS_WRAPPER, "log", str(log), "--format", "json", "--launch", "all"]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
        a = time.perf_counter() - start
        env_py = dict(env, ARGTRACE_NO_GREP="1")
        start = time.perf_counter()
        proc_py = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env_py)
        a_py = time.perf_counter() - start
        rss_py = json.loads(proc_py.stderr.strip().splitlines()[-1])
        g3, _ = _timed([grep, "-c", "mamba_scheduler", str(log)])
        grep_time = min(g1, g3)
        rss = json.loads(proc.stderr.strip().splitlines()[-1])
        report = json.loads(proc.stdout)
        peak_mb = max(rss["rss_kb"], rss["children_rss_kb"]) / 1024
        mb = size / 1e6
        print(
            f"grep -c mamba_scheduler: {grep_time:.2f} s ({mb / grep_time:.0f} MB/s), "
            f"count {p1.stdout.strip()}"
        )
        print(f"grep -c '' (lines):      {g2:.2f} s ({mb / g2:.0f} MB/s), count {p2.stdout.strip()}")
        print(f"argtrace log:            {a:.2f} s ({mb / a:.0f} MB/s), exit {proc.returncode}")
        print(f"throughput ratio argtrace/grep -c mamba_scheduler: {grep_time / a:.2f} (target >= 0.25)")
        print(f"throughput ratio argtrace/grep -c '':              {g2 / a:.2f}")
        print(
            f"pure-Python scan (ARGTRACE_NO_GREP=1, one process per core): {a_py:.2f} s "
            f"({mb / a_py:.0f} MB/s), "
            f"ratio {grep_time / a_py:.2f}, peak RSS "
            f"{max(rss_py['rss_kb'], rss_py['children_rss_kb']) / 1024:.0f} MB"
        )
        print(
            f"peak RSS: argtrace {rss['rss_kb'] / 1024:.0f} MB, "
            f"child processes (grep or scan workers) {rss['children_rss_kb'] / 1024:.0f} MB "
            f"(max {peak_mb:.0f} MB, target <= 100 MB)"
        )
        log_section = report["log"]
        print(
            f"found {log_section['launch_count']} launches, {log_section['lines']} lines, "
            f"{log_section['scan']['kept_lines']} lines kept, "
            f"{log_section['scan']['skipped_blocks']} blocks skipped / "
            f"{log_section['scan']['searched_blocks']} searched; "
            f"findings: {sorted({f['code'] for f in report['findings']})}"
        )
        return 0
    finally:
        if opts.keep:
            print(f"kept {log}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
