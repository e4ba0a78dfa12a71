"""CPU time, wall time and peak memory of ``argtrace why "<error text>"`` before and after the lookup file
(issue 18, ``resolver/message_lookup.py``), in one run.

Each text is a real pasted error from the ``why`` batches (tests/data/why8, why_9, why_10: the file after
its first line, which cites the report), run as a user runs it: the ``argtrace`` console script, its
bytecode compiled first, ``why TEXT`` (text output) and ``why TEXT --format json``. Per round and text, in
this order so all see the same machine: ``python -c pass`` (the floor under any Python CLI), the old code
(``git archive REV src`` into a temporary directory, first on ``PYTHONPATH``), the new code (this
checkout's ``src``), and ``argtrace check --format json examples/launch_mtp.sh`` (the shipped example: the
yardstick of issue 18's "about 3x check"). CPU is user + sys of the child (``os.wait4``), RSS its peak.
Each side has its own data cache directory, filled by a first (cold) run that is reported on its own.
On a shared machine the CPU ratio is the fair one: wall time there is mostly waiting for a core.

Every timed text's output (text and JSON) from the new code must equal the old code's, and the new code's
default path must equal its ``ARGTRACE_NO_LOOKUP=1`` path (every site loaded and scanned, the old way); a
difference is printed and makes the exit status 1; time never does.

    python bench/why_speed.py [--rounds 5] [--rev f9fc5a7] [--texts 12]
    python bench/why_speed.py --check   # the lookup against the full scan, every text (JSON; 12 as text)
    python bench/why_speed.py --check --texts 6 --check-texts 20   # CI's short version

``--check`` runs no old code (the old code's answers change as ``why`` does; the full scan path is the
same code without the lookup file) and times nothing.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# the log bench's measurement (the child's CPU and peak RSS from wait4) and its console script; a sibling
# module: bench/ is this script's directory
from log_throughput import Run, console_script, run

REPO = Path(__file__).resolve().parents[1]
BATCHES = ("why8", "why_9", "why_10")
BASE = "f9fc5a7"  # the last commit before the lookup file


def texts(limit: int | None) -> list[tuple[str, str]]:
    """(name, text) of the batches' files, sorted; ``limit``: that many, spread evenly over the list."""
    every = []
    for batch in BATCHES:
        for path in sorted((REPO / "tests" / "data" / batch).glob("*.txt")):
            lines = path.read_text(encoding="utf-8").splitlines()
            every.append((f"{batch}/{path.stem}", "\n".join(lines[1:])))
    if limit is None or limit >= len(every):
        return every
    step = len(every) / limit
    return [every[int(i * step)] for i in range(limit)]


def env_for(src: Path, cache: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(src), ARGTRACE_DATA_CACHE=str(cache), **extra)
    for name in ("PYTHONDONTWRITEBYTECODE", "ARGTRACE_NO_DATA_CACHE", "ARGTRACE_NO_LOOKUP"):
        if name not in extra:
            env.pop(name, None)
    return env


def old_src(rev: str, into: Path) -> Path | None:
    """``git archive REV src`` unpacked under ``into``; None without git or the commit."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev, "src"], capture_output=True, check=False
    )
    if archive.returncode != 0:
        print(f"no old code: git archive {rev}: {archive.stderr.decode(errors='replace').strip()}")
        return None
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "src"


def compare(
    argtrace: list[str],
    cases: list[tuple[str, str]],
    a: dict[str, str],
    b: dict[str, str],
    formats: tuple[str, ...] = ("text", "json"),
) -> int:
    """Outputs (in each of ``formats``) that differ between the environments ``a`` and ``b``, printed."""
    bad = 0
    for name, text in cases:
        for fmt in formats:
            cmd = [*argtrace, "why", text, *(["--format", "json"] if fmt == "json" else [])]
            one, two = run(cmd, a), run(cmd, b)
            if (one.status, one.stdout) != (two.status, two.stdout):
                bad += 1
                print(f"  DIFFERENT {name} ({fmt}): exit {one.status}/{two.status}")
                for i, (x, y) in enumerate(
                    zip(one.stdout.splitlines(), two.stdout.splitlines(), strict=False)
                ):
                    if x != y:
                        print(f"    line {i + 1}: {x[:120]!r}\n             {y[:120]!r}")
                        break
    return bad


def median(runs: list[Run], attr: str) -> float:
    return statistics.median(getattr(r, attr) for r in runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rev", default=BASE, help="the old code's commit (git archive REV src)")
    ap.add_argument("--texts", type=int, default=12, help="texts timed (spread over the batches)")
    ap.add_argument("--check", action="store_true", help="lookup against full scan, every text, no timing")
    ap.add_argument(
        "--check-texts",
        type=int,
        default=None,
        help="with --check: that many texts in JSON (spread over the batches), not every one",
    )
    opts = ap.parse_args()
    sys.path.insert(0, str(REPO / "src"))
    import argtrace

    package = Path(argtrace.__file__).parent
    compileall.compile_dir(str(package), quiet=1)
    argtrace_cmd = console_script()
    tmp = Path(tempfile.mkdtemp(prefix="argtrace-why-bench-"))
    src = REPO / "src"
    try:
        new = env_for(src, tmp / "new-cache")
        if opts.check:
            scan = env_for(src, tmp / "scan-cache", ARGTRACE_NO_LOOKUP="1")
            # JSON for every text (the text view is rendered from the same report), the text view for some
            cases, shown = texts(opts.check_texts), texts(opts.texts)
            bad = compare(argtrace_cmd, cases, new, scan, ("json",))
            bad += compare(argtrace_cmd, shown, new, scan, ("text",))
            same = "same answers" if not bad else f"{bad} DIFFERENT"
            print(f"{len(cases)} texts (JSON), {len(shown)} of them also as text: {same}")
            return 1 if bad else 0
        old_root = old_src(opts.rev, tmp)
        if old_root is not None:
            compileall.compile_dir(str(old_root / "argtrace"), quiet=1)
        old = env_for(old_root, tmp / "old-cache") if old_root is not None else None
        cases = texts(opts.texts)
        print(
            f"argtrace: {' '.join(argtrace_cmd)}; new: {src}; old: {opts.rev} ({old_root}); "
            f"rounds {opts.rounds}"
        )
        print(f"machine: {os.cpu_count()} cores, load {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        first = cases[0][1]
        cold_new = run([*argtrace_cmd, "why", first], new)
        cold_old = run([*argtrace_cmd, "why", first], old) if old else None
        print(
            f"cold (empty data cache, first run): new {cold_new.cpu:.3f} s CPU {cold_new.rss_mb:.0f} MB"
            + (f"; old {cold_old.cpu:.3f} s CPU {cold_old.rss_mb:.0f} MB" if cold_old else "")
        )
        bad = compare(argtrace_cmd, cases, new, old) if old else 0
        bad += compare(argtrace_cmd, cases, new, env_for(src, tmp / "new-cache", ARGTRACE_NO_LOOKUP="1"))
        example = [*argtrace_cmd, "check", "--format", "json", str(REPO / "examples" / "launch_mtp.sh")]
        floor: list[Run] = []
        checks: list[Run] = []
        rows: dict[str, tuple[list[Run], list[Run]]] = {name: ([], []) for name, _ in cases}
        for _ in range(opts.rounds):
            for name, text in cases:
                floor.append(run([sys.executable, "-c", "pass"]))
                cmd = [*argtrace_cmd, "why", text]
                if old:
                    rows[name][0].append(run(cmd, old))
                rows[name][1].append(run(cmd, new))
            checks.append(run(example, new))
        base = median(floor, "cpu")
        check_cpu = median(checks, "cpu")
        print(
            f"python -c pass: {base:.3f} s CPU; "
            f"check --format json examples/launch_mtp.sh: {check_cpu:.3f} s CPU"
        )
        print(
            f"{'text':<52} {'old cpu/wall s':>15} {'new cpu/wall s':>15} {'old/new cpu':>11} "
            f"{'new/check':>9} {'RSS old/new MB':>15}"
        )
        all_old: list[Run] = []
        all_new: list[Run] = []
        for name, (olds, news) in rows.items():
            all_old += olds
            all_new += news
            nc, nw = median(news, "cpu"), median(news, "wall")
            oc, ow = (median(olds, "cpu"), median(olds, "wall")) if olds else (float("nan"), float("nan"))
            orss = max((r.rss_mb for r in olds), default=float("nan"))
            print(
                f"{name[:52]:<52} {oc:>7.3f}/{ow:<7.3f} {nc:>7.3f}/{nw:<7.3f} {oc / nc:>11.2f} "
                f"{nc / check_cpu:>9.2f} {orss:>7.0f}/{max(r.rss_mb for r in news):<7.0f}"
            )
        nc = median(all_new, "cpu")
        oc = median(all_old, "cpu") if all_old else float("nan")
        ow = median(all_old, "wall") if all_old else float("nan")
        orss = max((r.rss_mb for r in all_old), default=float("nan"))
        print(
            f"{'all (median)':<52} {oc:>7.3f}/{ow:<7.3f} {nc:>7.3f}/{median(all_new, 'wall'):<7.3f} "
            f"{oc / nc:>11.2f} {nc / check_cpu:>9.2f} {orss:>7.0f}/{max(r.rss_mb for r in all_new):<7.0f}"
        )
        same = "yes" if not bad else f"NO ({bad})"
        print(f"new - python -c pass: {nc - base:.3f} s CPU; same answers: {same}")
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
