"""Run fuzz cases through the real CLI in subprocesses and classify what happened.

Long run (documented in docs/reliability.md)::

    PYTHONPATH=$PWD/src:$PWD python -m tests.fuzz.harness --seed 1 --cases 5000 --out /tmp/fuzz/run1

Each case runs ``python -m argtrace ...`` in a fresh temporary directory with a CI-like environment (no
terminal, ``CI=true``, ``HOME`` inside the directory so no resolver environment or user configuration is
found) and a per-case timeout. A run is classified as one of :data:`CLASSES`; every failing case is kept
under ``OUT/CLASS/CASE/`` with its files, the command line (``cmd.sh``), stdout and stderr.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import dataclasses
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzz.generators import DIR, KINDS, REPO, Case, make_case

# Failures, worst first: a run that shows several is filed under the first.
FAILURES = ("HANG", "INTERNAL", "EXECUTED", "LEAK", "ESCAPE", "BADJSON", "BADEXIT", "HUGE")
# Not failures: the run ended as argtrace intends.
PASSES = ("ok", "usage-error")
CLASSES = FAILURES + PASSES
# Classes the CI run asserts never happen (the list); the others are reported.
MUST_NOT = ("INTERNAL", "HANG", "LEAK", "EXECUTED")

MAX_OUTPUT = 4 * 1024 * 1024  # bytes of stdout+stderr; a report bigger than this nobody reads
DEFAULT_TIMEOUT = 30.0
# C0 control characters other than newline and tab, and C1 ones (UTF-8 encoded): an ESC, BEL, CR or CSI
# in argtrace's text output reaches the user's terminal as a command (title change, screen clear, a line
# overwritten). DEL is left out: terminals ignore it.
_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f]|\xc2[\x80-\x9f]")
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|internal error", re.IGNORECASE)
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')


@dataclass
class Outcome:
    case: Case
    cls: str
    classes: list[str]
    signature: str
    status: int | None
    seconds: float
    stdout: bytes
    stderr: bytes
    detail: str = ""
    dir: Path | None = field(default=None, repr=False)


def case_env(workdir: Path, debug: bool = False, data_cache: Path | None = None) -> dict[str, str]:
    """A CI runner's environment: no terminal, no colour, a HOME with nothing in it. ``debug`` sets
    ARGTRACE_DEBUG=1, which turns an internal error into its traceback (used to sign INTERNAL runs).
    ``data_cache``: argtrace's parsed-data and compiled-code cache (``cache_dirs.data_cache_dir``) in that
    directory, shared by the runs, instead of one built anew in each run's empty HOME: the runs after the
    first read it as a user's second run does (the first runs build it, two at a time), and a run costs a
    third of the CPU (a `why` run: 0.3 s against 2.3 s). Nothing else of HOME is shared."""
    home = workdir / ".home"
    home.mkdir(exist_ok=True)
    pythonpath = str(REPO / "src")
    return (
        {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "CI": "true",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
            "PYTHONPATH": pythonpath,
            "PYTHONDONTWRITEBYTECODE": "1",
            "TMPDIR": str(workdir / ".tmp"),
        }
        | ({"ARGTRACE_DEBUG": "1"} if debug else {})
        | ({"ARGTRACE_DATA_CACHE": str(data_cache)} if data_cache else {})
    )


def write_case(case: Case, workdir: Path) -> None:
    for rel, data in case.files.items():
        path = workdir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.replace(DIR.encode(), str(workdir).encode()))
    for rel in case.executables:
        (workdir / rel).chmod(0o755)
    for rel in case.fifos:
        # A FIFO nobody writes to: a reader that opens it blocks forever.
        (workdir / rel).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(workdir / rel)
    (workdir / ".tmp").mkdir(exist_ok=True)


_DUMP_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<func>\S+)')


def _stuck_at(dump: str) -> str:
    """The innermost argtrace frame of a faulthandler dump (most recent call first), with its caller."""
    frames = [(f, ln, fn) for f, ln, fn in _DUMP_FRAME.findall(dump) if "/argtrace/" in f]
    return " < ".join(f"{f.split('/argtrace/', 1)[1]}:{ln} {fn}" for f, ln, fn in frames[:2])


def _signature_internal(stderr: str) -> str:
    frames = _FRAME.findall(stderr)
    last_line = next((ln.strip() for ln in reversed(stderr.strip().splitlines()) if ln.strip()), "")
    exc = last_line.split(":", 1)[0][:80]
    where = ""
    for file, line, func in reversed(frames):
        if "/argtrace/" in file:
            where = f"{file.split('/argtrace/', 1)[1]}:{line} {func}"
            break
    return f"{exc} at {where or '?'}"


def classify(
    case: Case, workdir: Path, status: int | None, stdout: bytes, stderr: bytes
) -> tuple[list[str], str]:
    """Every class the run shows (worst first) and a signature that groups runs failing the same way."""
    found: list[tuple[str, str]] = []
    err = stderr.decode("utf-8", "replace")
    if status is None:
        found.append(("HANG", f"HANG {case.kind} {' '.join(a for a in case.argv if a.startswith('-'))}"))
    if _TRACEBACK.search(err):
        found.append(("INTERNAL", f"INTERNAL {_signature_internal(err)}"))
    ran = [m for m in case.markers if (workdir / m).exists()]
    if ran:
        how = sorted({m.split("_")[1] for m in ran})
        found.append(("EXECUTED", f"EXECUTED {case.kind} via {','.join(how)}"))
    blob = stdout + stderr
    leaked = [(s, part) for s in case.secrets if (part := leaked_part(s, blob)) is not None]
    if leaked:
        secret, part = leaked[0]
        where = "stdout" if part.encode() in stdout else "stderr"
        whole = "" if part == secret else " (partly)"
        found.append(("LEAK", f"LEAK {case.kind} {leak_context(part, blob)} in {where}{whole}"))
    if output_format(case.argv) is None and _CONTROL.search(stdout + stderr):
        ch = _CONTROL.search(stdout + stderr)
        assert ch is not None
        found.append(("ESCAPE", f"ESCAPE {case.kind} {ch.group(0)!r}"))
    fmt = output_format(case.argv)
    if fmt in ("json", "sarif") and status in (0, 1):
        try:
            json.loads(stdout)
        except ValueError as e:
            found.append(("BADJSON", f"BADJSON {case.kind} {type(e).__name__}"))
    if status is not None and status not in (0, 1, 2):
        found.append(("BADEXIT", f"BADEXIT {case.kind} exit {status}"))
    if status == 2 and not _one_line_usage(err):
        found.append(("BADEXIT", f"BADEXIT {case.kind} exit 2 message is not one 'argtrace...: ' line"))
    if len(stdout) + len(stderr) > MAX_OUTPUT:
        found.append(("HUGE", f"HUGE {case.kind} {case.argv[0]}"))
    if found:
        found.sort(key=lambda f: FAILURES.index(f[0]))
        return [c for c, _ in found], found[0][1]
    if status == 2:
        return ["usage-error"], "usage-error " + err.strip().splitlines()[-1][:60]
    return ["ok"], "ok"


def output_format(argv: list[str]) -> str | None:
    """The format a run prints in: the last ``--format X`` or ``--format=X`` before a ``--`` (argparse keeps
    the last; the first was taken before, and ``--format json --format gcc`` was judged as JSON)."""
    fmt = None
    for i, word in enumerate(argv):
        if word == "--":
            break
        if word == "--format" and i + 1 < len(argv):
            fmt = argv[i + 1]
        elif word.startswith("--format="):
            fmt = word.split("=", 1)[1]
    return fmt


def _one_line_usage(err: str) -> bool:
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    if len(lines) == 1:
        return lines[0].startswith("argtrace") and ": " in lines[0]
    # argparse's own errors: "usage: ..." lines, then "argtrace check: error: ..."
    return (
        bool(lines)
        and lines[0].startswith("usage:")
        and lines[-1].startswith("argtrace")
        and "error:" in lines[-1]
    )


LEAK_WINDOW = 12  # characters of a planted secret that count as leaking it (its random part is 24 long)


def leaked_part(secret: str, out: bytes) -> str | None:
    """The secret if it appears whole, else its first piece of LEAK_WINDOW characters that appears (an error
    message quoting a truncated line leaks a prefix), else None."""
    if secret.encode() in out:
        return secret
    for i in range(len(secret) - LEAK_WINDOW + 1):
        piece = secret[i : i + LEAK_WINDOW]
        if piece.encode() in out:
            return piece
    return None


def leak_context(secret: str, out: bytes) -> str:
    """What precedes the leaked secret (its label), secret-free, so leaks group by where they happen."""
    i = out.find(secret.encode())
    before = out[max(0, i - 30) : i].decode("utf-8", "replace").replace("\n", "\\n")
    before = re.sub(r"[A-Za-z0-9]{12,}", "*", before)
    return f"after {before!r}"


def _run(
    case: Case,
    workdir: Path,
    timeout: float,
    debug: bool,
    dump_on_timeout: bool = False,
    data_cache: Path | None = None,
) -> tuple[int | None, bytes, bytes]:
    """Run argtrace on the case. ``dump_on_timeout``: at the timeout, SIGABRT with PYTHONFAULTHANDLER=1
    first, so stderr ends with the stack the process was stuck in."""
    cmd = [sys.executable, "-m", "argtrace", *case.argv]
    env = case_env(workdir, debug, data_cache) | ({"PYTHONFAULTHANDLER": "1"} if dump_on_timeout else {})
    proc = subprocess.Popen(
        cmd,
        cwd=workdir,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        return proc.returncode, stdout, stderr
    except subprocess.TimeoutExpired:
        if dump_on_timeout:
            os.kill(proc.pid, signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(5)
        # The whole session: argtrace's own children (shellcheck, bash -n) go with it.
        with contextlib.suppress(ProcessLookupError):  # gone already (the SIGABRT ended it)
            os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        return None, stdout, stderr


def run_case(
    case: Case,
    timeout: float = DEFAULT_TIMEOUT,
    keep: Path | None = None,
    sign_hangs: bool = True,
    data_cache: Path | None = None,
) -> Outcome:
    """Run one case in a fresh temp directory; with ``keep``, a failing case is copied there.
    ``sign_hangs=False`` skips the second run that finds where a hang was stuck (it costs the timeout);
    ``data_cache``: see :func:`case_env`."""
    with tempfile.TemporaryDirectory(prefix="argtrace-fuzz-") as tmp:
        workdir = Path(tmp)
        write_case(case, workdir)
        start = time.monotonic()
        status, stdout, stderr = _run(case, workdir, timeout, debug=False, data_cache=data_cache)
        seconds = time.monotonic() - start
        classes, signature = classify(case, workdir, status, stdout, stderr)
        if classes[0] == "INTERNAL":
            # Again with ARGTRACE_DEBUG=1, only for the traceback's innermost argtrace frame.
            _, _, debug_err = _run(case, workdir, timeout, debug=True, data_cache=data_cache)
            if "Traceback" in debug_err.decode("utf-8", "replace"):
                signature = f"INTERNAL {_signature_internal(debug_err.decode('utf-8', 'replace'))}"
        elif classes[0] == "HANG" and sign_hangs:
            # Again, with the stack dumped at the timeout: where it was stuck signs the hang.
            _, _, dump = _run(
                case, workdir, timeout, debug=False, dump_on_timeout=True, data_cache=data_cache
            )
            site = _stuck_at(dump.decode("utf-8", "replace"))
            if site:
                signature = f"HANG {case.kind} in {site}"
        out = Outcome(
            case, classes[0], classes, signature, status, seconds, stdout[:MAX_OUTPUT], stderr[:MAX_OUTPUT]
        )
        if keep is not None and out.cls in FAILURES:
            out.dir = save_case(out, keep)
        return out


def save_case(out: Outcome, root: Path) -> Path:
    dest = root / out.cls / out.case.name
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    write_case(out.case, dest)
    # The files as generated (with @DIR@ unexpanded): what a regression test under tests/fuzz/reproducers
    # is made of.
    for rel, data in out.case.files.items():
        (dest / "template" / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / "template" / rel).write_bytes(data)
    argv = " ".join(shlex.quote(a) for a in out.case.argv)
    (dest / "cmd.sh").write_text(
        f'#!/bin/sh\n# {out.signature}\ncd "$(dirname "$0")" && PYTHONPATH={shlex.quote(str(REPO / "src"))} '
        f"CI=true HOME=$PWD/.home {shlex.quote(sys.executable)} -m argtrace {argv}\n"
    )
    (dest / "cmd.sh").chmod(0o755)
    (dest / "stdout").write_bytes(out.stdout)
    (dest / "stderr").write_bytes(out.stderr)
    meta = {
        "class": out.cls,
        "classes": out.classes,
        "signature": out.signature,
        "status": out.status,
        "seconds": round(out.seconds, 2),
        "argv": out.case.argv,
        "secrets": out.case.secrets,
        "markers": out.case.markers,
        "executables": out.case.executables,
        "kind": out.case.kind,
        "fifos": out.case.fifos,
    }
    (dest / "case.json").write_text(json.dumps(meta, indent=1) + "\n")
    return dest


def cases(seed: int, count: int, kinds: Iterable[str] = KINDS) -> list[Case]:
    """``count`` cases of the given kinds in turn (so any prefix of a campaign covers every kind)."""
    kinds = list(kinds)
    return [make_case(seed, i // len(kinds), kinds[i % len(kinds)]) for i in range(count)]


def campaign(
    all_cases: list[Case],
    out: Path | None,
    jobs: int,
    timeout: float,
    progress: Callable[[Outcome], None] | None = None,
    data_cache: Path | None = None,
) -> list[Outcome]:
    results: list[Outcome] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for res in pool.map(lambda c: run_case(c, timeout, out, data_cache=data_cache), all_cases):
            results.append(res)
            if progress is not None:
                progress(res)
    return results


def summary(results: list[Outcome]) -> dict[str, object]:
    by_class = Counter(r.cls for r in results)
    signatures: dict[str, dict[str, object]] = {}
    for r in results:
        if r.cls in FAILURES:
            entry = signatures.setdefault(
                r.signature, {"class": r.cls, "count": 0, "example": str(r.dir or r.case.name)}
            )
            entry["count"] = int(str(entry["count"])) + 1
    slowest = sorted(results, key=lambda r: r.seconds, reverse=True)[:5]
    return {
        "cases": len(results),
        "classes": dict(by_class),
        "signatures": signatures,
        "slowest": [{"case": r.case.name, "seconds": round(r.seconds, 2), "class": r.cls} for r in slowest],
        "seconds_total": round(sum(r.seconds for r in results), 1),
    }


# ---------------------------------------------------------------- minimising a reproducer


def minimise(case: Case, main_file: str, signature: str, timeout: float, budget: int = 150) -> Case:
    """Delta-debug ``main_file`` of a failing case, lines first then bytes, keeping the same signature.
    At most ``budget`` runs (each is a real CLI run of about a second)."""
    runs = 0

    def still_fails(data: bytes) -> bool:
        nonlocal runs
        runs += 1
        trial = dataclasses.replace(case, files={**case.files, main_file: data})
        return run_case(trial, timeout).signature == signature

    def ddmin(parts: list[bytes], joiner: bytes) -> list[bytes]:
        n = 2
        while len(parts) >= 2 and runs < budget:
            chunk = max(1, len(parts) // n)
            reduced = False
            for start in range(0, len(parts), chunk):
                if runs >= budget:
                    break
                trial = parts[:start] + parts[start + chunk :]
                if trial and still_fails(joiner.join(trial)):
                    parts, n, reduced = trial, max(n - 1, 2), True
                    break
            if not reduced:
                if chunk == 1:
                    break
                n = min(len(parts), n * 2)
        return parts

    data = case.files[main_file]
    lines = ddmin(data.split(b"\n"), b"\n")
    data = b"\n".join(lines)
    if len(data) < 4000:
        data = b"".join(ddmin([bytes([b]) for b in data], b""))
    return dataclasses.replace(case, name=case.name + "-min", files={**case.files, main_file: data})


def signatures_of(path: Path) -> dict[str, dict[str, object]]:
    """Failure signatures of an earlier run: from its summary.json, or rebuilt from the case.json files
    its --out directory holds (a run stopped early writes no summary)."""
    if path.is_file():
        return dict(json.loads(path.read_text())["signatures"])
    found: dict[str, dict[str, object]] = {}
    for meta_path in sorted(path.glob("*/*/case.json")):
        meta = json.loads(meta_path.read_text())
        entry = found.setdefault(
            meta["signature"], {"class": meta["class"], "count": 0, "example": str(meta_path.parent)}
        )
        entry["count"] = int(str(entry["count"])) + 1
    return found


def case_named(name: str) -> Case:
    """The case a name such as ``script-mut-7-12`` stands for (kind, seed, index)."""
    kind, seed, index = name.rsplit("-", 2)
    return make_case(int(seed), int(index), kind)


def minimise_all(
    firsts: dict[str, Case], out: Path, jobs: int, timeout: float, budget: int
) -> dict[str, dict[str, object]]:
    """Minimise one case per signature, ``jobs`` at a time; each result is kept under ``out/minimised``."""

    def one(item: tuple[str, Case]) -> tuple[str, dict[str, object]]:
        found_as, case = item
        main_file = main_file_of(case)
        # The signature today: the code (or the harness's signing) may have changed since the campaign.
        now = run_case(case, timeout)
        if now.cls not in FAILURES:
            return found_as, {"case": case.name, "now": now.signature}
        sig = now.signature
        # A hang costs the whole timeout per trial: fewer trials for it.
        small = minimise(case, main_file, sig, timeout, budget if not sig.startswith("HANG") else budget // 5)
        res = run_case(small, timeout, out / "minimised")
        return found_as, {
            "case": case.name,
            "now": sig,
            "bytes": [len(case.files[main_file]), len(small.files[main_file])],
            "still": res.signature == sig,
            "dir": str(res.dir) if res.dir else None,
        }

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(pool.map(one, firsts.items()))


def main_file_of(case: Case) -> str:
    return next(f for f in case.files if f in case.argv)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.harness", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated subset of {','.join(KINDS)}")
    ap.add_argument("--out", type=Path, required=True, help="directory for failing cases and summary.json")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per case (then HANG)")
    ap.add_argument("--minimise", action="store_true", help="minimise one case per failure signature")
    ap.add_argument("--budget", type=int, default=150, help="runs per signature when minimising")
    ap.add_argument(
        "--minimise-from",
        type=Path,
        metavar="SUMMARY|DIR",
        help="no campaign: minimise the example of each signature of an earlier run (its summary.json, or "
        "its --out directory when it was stopped before writing one)",
    )
    args = ap.parse_args(argv)
    if args.minimise_from is not None:
        earlier = signatures_of(args.minimise_from)
        todo_min = {sig: case_named(Path(str(e["example"])).name) for sig, e in earlier.items()}
        result = minimise_all(todo_min, args.out, args.jobs, args.timeout, args.budget)
        (args.out / "minimised.json").write_text(json.dumps(result, indent=1) + "\n")
        print(json.dumps(result, indent=1))
        return 0
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        ap.error(f"unknown kinds: {', '.join(sorted(unknown))}")
    args.out.mkdir(parents=True, exist_ok=True)
    todo = cases(args.seed, args.cases, kinds)
    done = 0

    def progress(r: Outcome) -> None:
        nonlocal done
        done += 1
        if r.cls in FAILURES or done % 50 == 0:
            print(f"[{done}/{len(todo)}] {r.case.name} {r.cls} {r.seconds:.1f}s {r.signature}", flush=True)

    results = campaign(todo, args.out, args.jobs, args.timeout, progress)
    report = summary(results)
    if args.minimise:
        firsts: dict[str, Case] = {}
        for r in results:
            if r.cls in FAILURES:
                firsts.setdefault(r.signature, r.case)
        report["minimised"] = minimise_all(firsts, args.out, args.jobs, args.timeout, args.budget)
    (args.out / "summary.json").write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    return 1 if any(r.cls in MUST_NOT for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
