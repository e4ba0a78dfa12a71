"""Peak memory of ``argtrace log`` per log size and shape, each read path side by side (issue 18).

Issue 18's target: at most 100 MB peak RSS whatever the size of the log, with the same findings on every
path. Each log is read by the ``argtrace`` console script as a user runs it (``log LOG --format json --launch
all``) three ways: the default (the in-process matcher, ``acscan.py``), the GNU grep path
(``ARGTRACE_NO_MATCHER=1``) and the pure Python scan (``ARGTRACE_NO_MATCHER=1 ARGTRACE_NO_GREP=1``). The
peak RSS is ``os.wait4``'s ``ru_maxrss`` of the child, which covers the largest of the process and every
descendant it waited for (grep, the sieve, ``wc``). The three reports must be equal (findings, timeline, the
log section less the two counters of how it was read); a difference is printed and makes the exit status 1,
and so does a peak over the bound (``--max-rss``). Time is printed (CPU s), never judged.

The shapes are the ones that hold a lot in one line: a log that is one line without a newline (a logged
prompt or a pasted blob: 10, 100, 500 MB), a real-format log with one line of ``--line-mb`` in the middle
(a request logged with a base64 image), logs made of 3 MB and of 20 MB lines; each also as ``.gz``
(``--gz``); an anchor sits far inside each long line, so a line longer than any bound must still give its
finding. And the shapes that keep a lot of lines (``--kept-mb``): a server answering every request with an
error for a long time, then crashing, and logged 45 KB prompts that each hold "error"; the scan keeps their
first and last lines within bounds (lines.Kept), so the crash at the end is still read. ``--big-mb`` adds
real-format logs of SGLang 0.5.23 and vLLM 0.33.0 of that size (needs the
resolver environments, tests/log/realformat.py) with ``grep -c`` for scale.

    python bench/log_rss.py [--sizes-mb 10,100,500] [--line-mb 200] [--gz] [--big-mb 2000]
    python bench/log_rss.py --check    # CI-sized: a 24 MB line, 12 MB of kept lines, every path, bound 100 MB
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_throughput import REPO, answer, console_script, differences, run

PATHS = {
    "matcher": {},
    "grep": {"ARGTRACE_NO_MATCHER": "1"},
    "python": {"ARGTRACE_NO_MATCHER": "1", "ARGTRACE_NO_GREP": "1"},
}
HEAD = (
    b"[2026-11-29 21:14:02] server_args=ServerArgs(model_path='/m', tp_size=1, "
    b"mamba_scheduler_strategy='extra_buffer', max_running_requests=48)\n"
    b"[2026-11-29 21:14:40] The server is fired up and ready to roll!\n"
)
DECODE = (
    b"[2026-11-29 21:16:20 TP0] Decode batch, #running-req: 12, #token: 21020, token usage: 0.51, "
    b"cuda graph: True, gen throughput (token/s): 93.51, #queue-req: 0\n"
)
# the anchor inside each long line, far from both of its ends (an error quoted inside a logged request)
INSIDE = b" ... RuntimeError: CUDA error: an illegal memory access was encountered ... "
FAILURE = (
    b"[2026-11-29 23:59:58 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    b'  File "/sgl/srt/managers/scheduler.py", line 2009, in run_scheduler_process\n'
    b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB.\n"
)


def _blob(rng: random.Random, size: int) -> Iterator[bytes]:
    """``size`` bytes of base64 (an image in a request), ``INSIDE`` at two thirds, in 1 MB pieces."""
    import base64

    at = size * 2 // 3
    done = 0
    while done < size:
        piece = base64.b64encode(rng.randbytes(3 << 18))[: min(1 << 20, size - done)]
        if done <= at < done + len(piece):
            k = at - done
            piece = (piece[:k] + INSIDE + piece[k:])[: len(piece)]
        yield piece
        done += len(piece)


def _one_line(mb: int) -> Callable[[IO[bytes], random.Random], None]:
    def write(fh: IO[bytes], rng: random.Random) -> None:
        fh.write(b"[2026-11-29 21:16:21] Receive: obj=GenerateReqInput(image_data='data:image/png;base64,")
        for piece in _blob(rng, mb << 20):
            fh.write(piece)

    return write


def _one_long_line_in_a_log(line_mb: int) -> Callable[[IO[bytes], random.Random], None]:
    def write(fh: IO[bytes], rng: random.Random) -> None:
        fh.write(HEAD)
        steady = DECODE * ((10 << 20) // len(DECODE))
        fh.write(steady)
        fh.write(b"[2026-11-29 21:16:21] Receive: obj=GenerateReqInput(image_data='data:image/png;base64,")
        for piece in _blob(rng, line_mb << 20):
            fh.write(piece)
        fh.write(b"')\n")
        fh.write(steady)
        fh.write(FAILURE)

    return write


def _lines_of(line_mb: int, total_mb: int) -> Callable[[IO[bytes], random.Random], None]:
    def write(fh: IO[bytes], rng: random.Random) -> None:
        fh.write(HEAD)
        for k in range(max(1, total_mb // line_mb)):
            fh.write(b"[2026-11-29 21:16:21] Receive: obj=GenerateReqInput(text='")
            for piece in _blob(rng, line_mb << 20):
                fh.write(piece if k % 2 else piece.replace(INSIDE, b"x" * len(INSIDE)))
            fh.write(b"')\n")
            fh.write(DECODE * 3)
        fh.write(FAILURE)

    return write


def _error_lines(total_mb: int) -> Callable[[IO[bytes], random.Random], None]:
    """A server that answers every request with an error for a long time, then crashes: every line is an
    anchor line (more than the scan keeps, lines.Kept), and the crash is the last."""

    def write(fh: IO[bytes], rng: random.Random) -> None:
        fh.write(HEAD)
        done, k = 0, 0
        while done < total_mb << 20:
            line = (
                b"[2026-11-29 21:16:%02d TP0] ERROR: request %d failed: ValueError: prompt is longer than "
                b"the model's context length\n" % (k % 60, k)
            )
            fh.write(line)
            done, k = done + len(line), k + 1
        fh.write(FAILURE)

    return write


def _prompts_holding_an_anchor(total_mb: int) -> Callable[[IO[bytes], random.Random], None]:
    """Logged requests of 45 KB whose text holds "error" (a prompt about debugging): each an anchor line."""
    words = [b"the", b"model", b"prompt", b"user", b"error", b"value", b"answer", b"token", b"request"]

    def write(fh: IO[bytes], rng: random.Random) -> None:
        fh.write(HEAD)
        for _ in range((total_mb << 20) // 45_000):
            body = b" ".join(rng.choice(words) for _ in range(7_500))[:45_000]
            fh.write(b"[2026-11-29 21:16:21] Receive: obj=GenerateReqInput(text='" + body + b"')\n")
        fh.write(FAILURE)

    return write


def cases(opts: argparse.Namespace) -> list[tuple[str, Callable[[IO[bytes], random.Random], None]]]:
    out = [(f"one line, {mb} MB, no newline", _one_line(mb)) for mb in _ints(opts.sizes_mb)]
    if opts.line_mb:
        out.append((f"20 MB log, one {opts.line_mb} MB line", _one_long_line_in_a_log(opts.line_mb)))
    for line_mb, total in ((3, 60), (20, 100)):
        if line_mb in _ints(opts.long_lines_mb):
            out.append((f"{total} MB of {line_mb} MB lines", _lines_of(line_mb, total)))
    for mb in _ints(opts.kept_mb):
        out.append((f"{mb} MB of error lines", _error_lines(mb)))
        out.append((f"{mb} MB of 45 KB prompts with 'error'", _prompts_holding_an_anchor(mb)))
    return out


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def write_log(path: Path, body: Callable[[IO[bytes], random.Random], None], compress: bool) -> None:
    rng = random.Random(18)
    opener = (lambda p: gzip.open(p, "wb", compresslevel=1)) if compress else (lambda p: p.open("wb"))
    with opener(path) as fh:
        body(fh, rng)


def measure(argtrace: list[str], log: Path, env: dict[str, str], paths: list[str]) -> dict[str, object]:
    """Per path: (peak RSS MB, CPU s, exit status, report or None)."""
    out: dict[str, object] = {}
    for name in paths:
        r = run([*argtrace, "log", str(log), "--format", "json", "--launch", "all"], dict(env, **PATHS[name]))
        try:
            report = json.loads(r.stdout)
        except json.JSONDecodeError:
            report = None
        out[name] = (r.rss_mb, r.cpu, r.status, report)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes-mb", default="10,100,500", help="single-line logs of these sizes")
    ap.add_argument("--line-mb", type=int, default=200, help="one line this long inside a real-format log")
    ap.add_argument("--long-lines-mb", default="3,20", help="logs made of lines this long (3 and/or 20)")
    ap.add_argument(
        "--kept-mb", default="50,100", help="logs of this size whose every line is kept: errors, prompts"
    )
    ap.add_argument("--gz", action="store_true", help="also each log gzip-compressed")
    ap.add_argument("--big-mb", type=int, default=0, help="also real-format SGLang and vLLM logs this big")
    ap.add_argument("--paths", default="matcher,grep,python")
    ap.add_argument("--max-rss", type=float, default=100.0, help="the bound (MB); above it: exit status 1")
    ap.add_argument("--check", action="store_true", help="CI: a 24 MB line, plain and .gz, every path")
    opts = ap.parse_args()
    if opts.check:
        opts.sizes_mb, opts.line_mb, opts.long_lines_mb, opts.gz, opts.big_mb = "24", 0, "", True, 0
        opts.kept_mb = "12"
    paths = opts.paths.split(",")
    argtrace = console_script()
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # run in the launcher, not in a warm process's forked child (docs/warm.md): wait4 then sees the work
    env["ARGTRACE_WARM"] = "0"
    print(
        f"argtrace: {' '.join(argtrace)}; bound {opts.max_rss:.0f} MB; load "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    # a child's ru_maxrss starts at this process's peak (exec records the memory it replaces): the floor
    floor = run([sys.executable, "-c", "pass"]).rss_mb
    print(f"python -c pass: {floor:.0f} MB peak RSS (the floor of every figure below)")
    header = "".join(f"{p + ' RSS MB/CPU s':>22}" for p in paths)
    print(f"{'log':<38} {'MB':>7}{header}  same answers")
    tmp = Path(tempfile.mkdtemp(prefix="argtrace-log-rss-"))
    failed = False
    try:
        todo: list[tuple[str, Path]] = []
        for name, body in cases(opts):
            for compress in (False, True) if opts.gz else (False,):
                log = tmp / f"case{len(todo)}.log{'.gz' if compress else ''}"
                write_log(log, body, compress)
                todo.append((name + (" .gz" if compress else ""), log))
        if opts.big_mb:
            sys.path.insert(0, str(REPO))
            from tests.log import realformat

            for framework, version in (("sglang", "0.5.23"), ("vllm", "0.33.0")):
                log = tmp / f"{framework}-{opts.big_mb}.log"
                if realformat.generate(log, opts.big_mb << 20, framework, version):
                    todo.append((f"{framework} {version} real format", log))
        for name, log in todo:
            got = measure(argtrace, log, env, paths)
            reports = {p: v[3] for p, v in got.items()}  # type: ignore[index]
            problems: list[str] = []
            first = reports[paths[0]]
            for p in paths:
                rss, _cpu, status, report = got[p]  # type: ignore[misc]
                if report is None:
                    problems.append(f"{p}: exit {status}, no JSON")
                elif p != paths[0] and first is not None:
                    problems += [f"{p}: {d}" for d in differences(answer(first), answer(report))]
                if rss > opts.max_rss:
                    problems.append(f"{p}: peak RSS {rss:.0f} MB over {opts.max_rss:.0f} MB")
            cells = "".join(f"{got[p][0]:>14.0f}/{got[p][1]:<7.2f}" for p in paths)  # type: ignore[index]
            same = not any(": peak RSS" not in x for x in problems)
            print(
                f"{name:<38} {log.stat().st_size / 1e6:>7.1f}{cells}  {'yes' if same else 'NO'}", flush=True
            )
            for problem in problems[:10]:
                print(f"    {problem}")
            if "real format" in name:
                grep = run(["grep", "-c", "mamba_scheduler", str(log)])
                ratio = grep.cpu / max(got[paths[0]][1], 1e-9)  # type: ignore[index]
                print(f"    grep -c {grep.cpu:.2f} s CPU: {paths[0]} at {ratio:.2f}x grep's throughput")
            failed = failed or bool(problems)
            log.unlink()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
