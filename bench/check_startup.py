#!/usr/bin/env python3
"""`argtrace check --format json` on the shipped example, against `python -c pass` and `shellcheck`.

Runs the commands interleaved, N rounds, in one process tree, and prints ratios of medians: the machines
are noisy, so only side-by-side ratios mean anything. Two measures: wall time, and the CPU time (user +
system) of the child and of the processes it waited for (shellcheck, ``bash -n``), which a loaded machine
disturbs far less. ``--compare SRC`` also times the argtrace commands with another checkout's ``src``
first on the path (the code before a change, e.g. from ``git archive``), in the same rounds.

Targets (issue 18): check <= 10x `python -c pass` (aim 5x), `--version` and `--help` <= 1.5x. The command
is timed as a user runs it, twice: run in the launcher (``ARGTRACE_WARM=0``, a first command), and served by
a warm process (``[warm]``: argtrace/warm/, every command after the first), whose CPU is the launcher's plus
the forked child's (the launcher writes the child's to ``ARGTRACE_WARM_STATS``); wall time is the
launcher's, from start to exit. The launcher is ``bin/argtrace``, the script an install puts on PATH, run by
this interpreter.
`python -c 'import re'` is timed too: pip's wrapper for a [project.scripts] entry point runs it before
argtrace, the floor the command had before it became a script file. `--help` is timed with stdout not a
terminal (80 columns: the width the static help text is generated for).
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "launch_mtp.sh"
LAUNCHER = ROOT / "bin" / "argtrace"


# Users' interpreters cache bytecode; a session that sets PYTHONDONTWRITEBYTECODE would time compiling.
# Every command runs in the launcher unless the run is a [warm] one (its own environment, below).
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "CI")}
ENV["ARGTRACE_WARM"] = "0"


# What pip (distlib) writes for a [project.scripts] entry point, after its `#!` line (pip 26.3).
PIP_WRAPPER = (
    "import re\nimport sys\nfrom argtrace.cli import main\nif __name__ == '__main__':\n"
    "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n    sys.exit(main())\n"
)


def launcher_command(launcher: Path, prelude: str) -> list[str]:
    """The launcher's own text run with ``-S`` after ``prelude``, as the script (``sys.argv[0]`` its path)."""
    code = f"sys.argv[0] = {str(launcher)!r}; " + launcher.read_text()
    return [sys.executable, "-S", "-c", prelude + code]


def timed(cmd: list[str], env: dict[str, str] = ENV) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child and of its waited-for children)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = 0  # reaped by wait4 above
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument(
        "--compare", metavar="SRC", help="also time the argtrace commands with this src directory first"
    )
    parser.add_argument(
        "--no-pth",
        action="store_true",
        help="run every interpreter without the site-packages' .pth files' code (python -S, then the "
        "site-packages directories put on sys.path): what an interpreter without this machine's "
        "start-up hooks does; an editable install's path is a .pth too, so set PYTHONPATH=src",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each Python command's instructions once under valgrind's callgrind (the process "
        "itself, not bash -n or shellcheck): exact and the same on a loaded machine",
    )
    args = parser.parse_args()
    shellcheck = shutil.which("shellcheck")
    # The `argtrace` command as a user runs it: the launcher an install writes (bin/argtrace, its `#!python`
    # line made this interpreter), not `python -m argtrace`; PYTHONPATH (if set) picks the checkout's source.
    python = [sys.executable]
    prelude = ""
    if args.no_pth:
        # A .pth file's `import` line runs at every interpreter start (a sandbox's certifi hook here costs
        # two thirds of `python -c pass`): it inflates the baseline and hides argtrace's own imports.
        prelude = "import site, sys; sys.path.extend(site.getsitepackages()); "
        python = [sys.executable, "-S", "-c", prelude + "exec(sys.argv.pop(1))"]
    argtrace = launcher_command(LAUNCHER, prelude) if args.no_pth else [sys.executable, str(LAUNCHER)]
    example = [str(EXAMPLE), "0", "30000"]
    commands = {
        "python -c pass": [*python, "pass"] if args.no_pth else [*python, "-c", "pass"],
        # what a [project.scripts] entry point would add: pip's wrapper for one runs `import re` first
        "python -c 'import re'": [*python, "import re"] if args.no_pth else [*python, "-c", "import re"],
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
    runs: dict[str, tuple[list[str], dict[str, str]]] = {name: (cmd, ENV) for name, cmd in commands.items()}
    # served by a warm process of its own (a private runtime directory, removed with its process at the end)
    runtime = tempfile.mkdtemp(prefix="aw", dir="/tmp")
    stats = os.path.join(runtime, "stats")
    warm_env = {**ENV, "XDG_RUNTIME_DIR": runtime, "ARGTRACE_WARM_STATS": stats}
    del warm_env["ARGTRACE_WARM"]
    runs["argtrace check --format json [warm]"] = (commands["argtrace check --format json"], warm_env)
    if args.compare:
        # the other tree as it was installed: its own bin/argtrace, else (older trees) pip's entry-point
        # wrapper
        src = Path(args.compare).resolve()
        other = {**ENV, "PYTHONPATH": str(src)}
        theirs = src.parent / "bin" / "argtrace"
        if theirs.exists():
            command = launcher_command(theirs, prelude) if args.no_pth else [sys.executable, str(theirs)]
        else:
            command = [sys.executable, *(["-S"] if args.no_pth else []), "-c", prelude + PIP_WRAPPER]
        for name, cmd in commands.items():
            if name.startswith("argtrace"):
                runs[f"{name} [compare]"] = ([*command, *cmd[len(argtrace) :]], other)
    wall: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    try:
        for name, (cmd, env) in runs.items():  # warm caches once (and write the bytecode)
            done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
            if name.startswith("argtrace") and not done.stdout:  # timing a failure would mean nothing
                raise SystemExit(f"{name}: printed nothing ({done.stderr.strip()[-300:]})")
        wait_for_warm(runtime, runs["argtrace check --format json [warm]"])
        for _ in range(args.rounds):
            for name, (cmd, env) in runs.items():
                w, c = timed(cmd, env)
                if name.endswith("[warm]"):
                    c += child_cpu(stats)
                wall[name].append(w)
                cpu[name].append(c)
    finally:
        stop_warm(runtime)
    base_wall = statistics.median(wall["python -c pass"])
    base_cpu = statistics.median(cpu["python -c pass"])
    what = " (no .pth code: python -S, site-packages on sys.path)" if args.no_pth else ""
    print(f"{args.rounds} rounds{what}; ratios are to `python -c pass` in the same rounds")
    print(f"{'command':<58} {'wall ms':>8} {'x':>6} {'CPU ms':>8} {'x':>6}")
    for name in runs:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"{name:<58} {w * 1000:>8.1f} {w / base_wall:>6.2f} {c * 1000:>8.1f} {c / base_cpu:>6.2f}")
    if shellcheck:
        ratio = statistics.median(wall["argtrace check --format json"]) / statistics.median(
            wall["shellcheck"]
        )
        print(f"argtrace check / shellcheck (wall): {ratio:.2f}x")
    if args.instructions:
        # a [warm] command's child is not the launcher's process: callgrind cannot count it
        counted = {
            name: instructions(cmd, env)
            for name, (cmd, env) in runs.items()
            if name != "shellcheck" and not name.endswith("[warm]")
        }
        print(f"{'command':<58} {'instructions':>14} {'x':>6}")
        for name, count in counted.items():
            print(f"{name:<58} {count:>14,} {count / counted['python -c pass']:>6.2f}")
    return 0


def wait_for_warm(runtime: str, run: tuple[list[str], dict[str, str]]) -> None:
    """The warm process the first [warm] run started is listening, and has served one command."""
    cmd, env = run
    deadline = time.monotonic() + 120
    while not glob.glob(os.path.join(runtime, "argtrace", "*.sock")):
        if time.monotonic() > deadline:
            raise SystemExit("no warm process started (is ARGTRACE_WARM or CI set?)")
        time.sleep(0.1)
    subprocess.run(cmd, capture_output=True, check=False, env=env)
    if not os.path.exists(env["ARGTRACE_WARM_STATS"]):
        raise SystemExit("the warm process served nothing")


def child_cpu(stats: str) -> float:
    """The CPU seconds of the child that served the last [warm] command (the launcher appended them)."""
    with open(stats, encoding="utf-8") as lines:
        return float(lines.read().split()[-1])


def stop_warm(runtime: str) -> None:
    """SIGTERM to the warm processes serving this run's runtime directory (their environment names it)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                if f"XDG_RUNTIME_DIR={runtime}".encode() not in environ.read().split(b"\0"):
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if b"argtrace.warm.server" not in cmdline.read():
                    continue
            os.kill(int(pid), signal.SIGTERM)
        except OSError:
            continue
    shutil.rmtree(runtime, ignore_errors=True)


def instructions(cmd: list[str], env: dict[str, str]) -> int:
    """The instructions the command's own process executes (valgrind --tool=callgrind, children not
    followed)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind")
    done = subprocess.run(
        [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    match = re.search(r"Collected : (\d+)", done.stderr)
    if match is None:
        raise SystemExit(f"callgrind counted nothing for {cmd}: {done.stderr[-300:]}")
    return int(match.group(1))


if __name__ == "__main__":
    raise SystemExit(main())
