#!/usr/bin/env python3
"""Generate src/argtrace/data/wrapper_options.json: the options of the programs that run a server for the
user (``env``, ``timeout``, ``stdbuf``, ``setsid``, ``nohup``, ``nice``, ``taskset``, ``chrt``, ``ionice``,
``numactl``, GNU ``time``, ``systemd-run``, ``uv``/``uv run``, ``pipx run``, ``poetry run``), read from each
installed program's own ``--help`` text, with the program's version.

An option "takes a value" when its help line shows one (``--kill-after=DURATION``, ``--class <class>``,
``-i <nodes>``, ``--spec SPEC``); ``[=ARG]`` is an optional value (only after ``=``). The parsing rules of
each program family are recorded too: getopt_long (coreutils, util-linux, GNU time, numactl: unambiguous
long prefixes, short flags cluster, ``-kVALUE``; numactl 2.0.16 reads ``-physcpubind 0`` as ``-p hyscpubind``,
tried here), clap (uv: no prefixes, ``--with=x`` or ``--with x``), argparse (pipx: prefixes allowed), cleo
(poetry: no prefixes; ``poetry help run``, each ``--poetry`` given read and their options joined: Debian's
python3-poetry 1.3.2 and PyPI's poetry 2.5.1 for the shipped file).

Programs that do not install here are taken from their documentation, the URL kept in ``source``: conda
(PyPI has only conda 4.3.16 and older, from before ``conda run``, none installable on this Python; not in
Debian), micromamba (neither on PyPI nor in Debian), pixi (PyPI's and npm's ``pixi`` are other projects; not
in Debian). ``--check`` compares the file with what the installed programs print now.

  python scripts/gen_wrapper_options.py [--uv PATH] [--pipx PATH] [--poetry PATH ...] [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/data/wrapper_options.json"

# "-k, --kill-after=DURATION", "--preserve-status", "-c, --class <class>", "-p, --python <PYTHON>",
# "-m, --module", "-q, --quiet..." (one help line, its option part)
_GNU_LINE = re.compile(
    r"^\s{1,8}(?:-(?P<short>[A-Za-z0-9]),\s+)?(?:--(?P<long>[A-Za-z0-9][\w-]*))?"
    r"(?P<value>\[=[^\]]+\]|=\S+|\s<[^>]+>(?:\.\.\.)?)?(?:\.\.\.)?(?:\s|$)"
)
_SHORT_ONLY = re.compile(r"^\s{1,8}-(?P<short>[A-Za-z0-9])(?P<value>\s<[^>]+>)?(?:,|\s\s|$)")


def _run(argv: list[str]) -> str:
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    return p.stdout + p.stderr


def _gnu(text: str) -> dict[str, object]:
    """Options of a getopt_long or clap help text."""
    short_value: set[str] = set()
    short_flag: set[str] = set()
    long: dict[str, str] = {}
    for line in text.splitlines():
        m = _GNU_LINE.match(line)
        if not m or not (m.group("short") or m.group("long")):
            m2 = _SHORT_ONLY.match(line)
            if not m2:
                continue
            (short_value if m2.group("value") else short_flag).add(m2.group("short"))
            continue
        value = m.group("value") or ""
        kind = "optional" if value.startswith("[=") else "required" if value else "none"
        if m.group("short"):
            (short_value if kind == "required" else short_flag).add(m.group("short"))
        if m.group("long"):
            long[m.group("long")] = kind
    return {
        "short_value": "".join(sorted(short_value)),
        "short_flag": "".join(sorted(short_flag)),
        "long": dict(sorted(long.items())),
    }


def _numactl(text: str) -> dict[str, object]:
    """numactl's usage lines: ``[--interleave= | -i <nodes>]``, ``[--all | -a]``, ``--shm | -S <file>``."""
    short_value: set[str] = set()
    short_flag: set[str] = set()
    long: dict[str, str] = {}
    usage = text.split("memory policy is", 1)[0]  # the line after it repeats names without their values
    for m in re.finditer(r"--([a-z][a-z-]*)(=?)[ \t]*\|[ \t]*-([A-Za-z])([ \t]*<[^>]+>)?", usage):
        name, eq, short, value = m.groups()
        takes = bool(eq or value)
        long[name] = "required" if takes else "none"
        (short_value if takes else short_flag).add(short)
    return {
        "short_value": "".join(sorted(short_value)),
        "short_flag": "".join(sorted(short_flag)),
        "long": dict(sorted(long.items())),
    }


def _argparse(text: str) -> dict[str, object]:
    """An argparse help's options section: ``--spec SPEC``, ``--quiet, -q``, ``--fetch-python {a,b}``."""
    short_value: set[str] = set()
    short_flag: set[str] = set()
    long: dict[str, str] = {}
    section = text.split("\noptions:", 1)[-1]
    for line in section.splitlines():
        m = re.match(r"^\s{2}(-\S.*?)(?:\s{2,}|$)", line)
        if not m:
            continue
        for part in m.group(1).split(", "):
            name, _, value = part.partition(" ")
            if name.startswith("--"):
                long[name[2:]] = "required" if value else "none"
            elif name.startswith("-") and len(name) == 2:
                (short_value if value else short_flag).add(name[1])
    return {
        "short_value": "".join(sorted(short_value)),
        "short_flag": "".join(sorted(short_flag)),
        "long": dict(sorted(long.items())),
    }


_CLEO_LINE = re.compile(
    r"^\s{2,8}(?:-(?P<short>[A-Za-z])(?:\|[A-Za-z]+)*,\s+)?--(?P<long>[\w-]+)(?P<value>=\S+)?"
)


def _long_equals_lines(lines: list[str], line: re.Pattern[str]) -> dict[str, object]:
    """The options of help lines ``line`` matches, with groups ``short``, ``long`` and ``value`` (the
    ``=VALUE`` after a long name that takes one: cleo's and systemd's help both write it so)."""
    short_value: set[str] = set()
    short_flag: set[str] = set()
    long: dict[str, str] = {}
    for text in lines:
        m = line.match(text)
        if not m:
            continue
        kind = "required" if m.group("value") else "none"
        long[m.group("long")] = kind
        if m.group("short"):
            (short_value if kind == "required" else short_flag).add(m.group("short"))
    return {
        "short_value": "".join(sorted(short_value)),
        "short_flag": "".join(sorted(short_flag)),
        "long": dict(sorted(long.items())),
    }


def _cleo(text: str) -> dict[str, object]:
    """A cleo help's options: ``-C, --directory=DIRECTORY``, ``--ansi``, ``-v|vv|vvv, --verbose``."""
    return _long_equals_lines(text.split("\nOptions:", 1)[-1].splitlines(), _CLEO_LINE)


def _poetry(paths: list[str]) -> dict[str, object]:
    """``poetry run``'s options, joined over the poetry installs given (an option of any of them is real)."""
    short_value: set[str] = set()
    short_flag: set[str] = set()
    long: dict[str, str] = {}
    versions = []
    for path in paths:
        # ``help run`` in an empty directory: ``run`` itself would look for a project
        with tempfile.TemporaryDirectory() as tmp:
            got = _cleo(subprocess.run([path, "help", "run"], capture_output=True, text=True, cwd=tmp).stdout)
            versions.append(_run([path, "--version"]).strip().splitlines()[-1])
        short_value |= set(str(got["short_value"]))
        short_flag |= set(str(got["short_flag"]))
        for name, kind in dict(got["long"]).items():  # type: ignore[call-overload]
            if long.setdefault(name, kind) != kind:
                sys.exit(f"poetry versions disagree on --{name}")
    return {
        "source": "`poetry help run`",
        "version": "; ".join(versions),
        "family": "cleo",
        "short_value": "".join(sorted(short_value)),
        "short_flag": "".join(sorted(short_flag)),
        "long": dict(sorted(long.items())),
    }


_SYSTEMD_LINE = re.compile(
    r"^\s{2,8}(?:-(?P<short>[A-Za-z0-9])\s+)?--(?P<long>[A-Za-z0-9][\w-]*)(?P<value>=\S+)?"
)


def _systemd(text: str) -> dict[str, object]:
    """A systemd tool's help: ``-p --property=NAME=VALUE``, ``   --scope``, ``-E --setenv=NAME[=VALUE]`` (the
    short and long names are separated by blanks, not a comma; every value follows ``=`` in the help)."""
    return _long_equals_lines(text.splitlines(), _SYSTEMD_LINE)


def _version(argv: list[str]) -> str:
    return _run(argv).strip().splitlines()[0] if shutil.which(argv[0]) or Path(argv[0]).exists() else ""


# program -> (help argv, parser, version argv, family)
_DPKG = ["dpkg-query", "-W", "-f"]
GETOPT = "getopt_long"  # glibc getopt_long with "+": options end at the first operand
PROGRAMS: dict[str, tuple[list[str], str, list[str], str]] = {
    "env": (["env", "--help"], "gnu", ["env", "--version"], GETOPT),
    "timeout": (["timeout", "--help"], "gnu", ["timeout", "--version"], GETOPT),
    "stdbuf": (["stdbuf", "--help"], "gnu", ["stdbuf", "--version"], GETOPT),
    "nohup": (["nohup", "--help"], "gnu", ["nohup", "--version"], GETOPT),
    "nice": (["nice", "--help"], "gnu", ["nice", "--version"], GETOPT),
    "setsid": (["setsid", "--help"], "gnu", ["setsid", "--version"], GETOPT),
    "taskset": (["taskset", "--help"], "gnu", ["taskset", "--version"], GETOPT),
    "chrt": (["chrt", "--help"], "gnu", ["chrt", "--version"], GETOPT),
    "ionice": (["ionice", "--help"], "gnu", ["ionice", "--version"], GETOPT),
    "numactl": (["numactl", "--help"], "numactl", [*_DPKG, "numactl ${Version}", "numactl"], GETOPT),
    # Debian's GNU time prints "UNKNOWN" for its --version: the package's version instead
    "time": (["/usr/bin/time", "--help"], "gnu", [*_DPKG, "GNU time ${Version}", "time"], GETOPT),
    # systemd-run.c parses with getopt_long("+hrH:M:E:p:tPqGdSu:"): options end at the command
    "systemd-run": (["systemd-run", "--help"], "systemd",
                    [*_DPKG, "systemd-run (systemd ${Version})", "systemd"], GETOPT),
}  # fmt: skip

# Not installable here: from the documentation (each URL in "source"); value-taking options only, since
# every other option is a flag and the command follows the options.
DOCUMENTED: dict[str, dict[str, object]] = {
    "conda run": {
        "source": "https://docs.conda.io/projects/conda/en/stable/commands/run.html",
        "family": "argparse",
        "short_value": "np",
        "short_flag": "v",
        "long": {"name": "required", "prefix": "required", "cwd": "required", "verbose": "none",
                 "dev": "none", "debug-wrapper-scripts": "none", "no-capture-output": "none",
                 "live-stream": "none"},
    },
    "micromamba run": {
        "source": "https://mamba.readthedocs.io/en/latest/user_guide/micromamba.html (micromamba run --help)",
        "family": "cli11",
        "short_value": "npae",
        "short_flag": "d",
        "long": {"name": "required", "prefix": "required", "attach": "required", "env": "required",
                 "cwd": "required", "label": "required", "detach": "none", "clean-env": "none",
                 "root-prefix": "required"},
    },
    "pixi run": {
        "source": "https://pixi.sh/latest/reference/cli/pixi/run/",
        "family": "clap",
        "short_value": "me",
        "short_flag": "",
        "long": {"manifest-path": "required", "environment": "required", "frozen": "none",
                 "locked": "none", "no-install": "none", "clean-env": "none", "force-activate": "none",
                 "revalidate": "none", "executable": "none", "skip": "required", "skip-deps": "none",
                 "concurrent-downloads": "required", "concurrent-solves": "required", "tls-no-verify": "none",
                 "tls-root-certs": "required", "auth-file": "required", "pypi-keyring-provider": "required",
                 "no-progress": "none"},
    },
}  # fmt: skip


def generate(uv: str | None, pipx: str | None, poetry: list[str]) -> dict[str, object]:
    parsers = {"gnu": _gnu, "numactl": _numactl, "systemd": _systemd}
    out: dict[str, object] = {}
    for name, (help_argv, parser, version_argv, family) in PROGRAMS.items():
        if shutil.which(help_argv[0]) is None:
            sys.exit(f"{help_argv[0]} is not installed (scripts/ci_apt installs numactl and time)")
        entry = parsers[parser](_run(help_argv))
        source = f"`{' '.join(help_argv)}`"
        out[name] = {"source": source, "version": _version(version_argv), "family": family, **entry}
    if uv:
        run = _gnu(_run([uv, "run", "--help"]))
        top = _gnu(_run([uv, "--help"]))
        version = _run([uv, "--version"]).strip()
        out["uv"] = {"source": "`uv --help`", "version": version, "family": "clap", **top}
        out["uv run"] = {"source": "`uv run --help`", "version": version, "family": "clap", **run}
        # uvx is `uv tool run` (its help: "Use `uvx` as a shortcut for `uv tool run`"), plus -V/--version
        uvx = shutil.which("uvx", path=os.path.dirname(uv)) or "uvx"
        out["uvx"] = {
            "source": "`uvx --help`",
            "version": version,
            "family": "clap",
            **_gnu(_run([uvx, "--help"])),
        }
    if pipx:
        out["pipx run"] = {
            "source": "`pipx run --help`",
            "version": f"pipx {_run([pipx, '--version']).strip()}",
            "family": "argparse",
            **_argparse(_run([pipx, "run", "--help"])),
        }
    if poetry:
        out["poetry run"] = _poetry(poetry)
    out.update({k: dict(v) for k, v in DOCUMENTED.items()})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--uv", default=shutil.which("uv"))
    ap.add_argument("--pipx", default=shutil.which("pipx"))
    ap.add_argument("--poetry", action="append", default=[], help="a poetry executable (repeatable)")
    ap.add_argument("--only", action="append", default=[], help="update only this entry (repeatable)")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    data = generate(a.uv, a.pipx, a.poetry or ([shutil.which("poetry")] if shutil.which("poetry") else []))
    if a.only:  # the other entries as the file has them (their programs may not be installed here now)
        data = {**json.loads(OUT.read_text()), **{k: data[k] for k in a.only}}
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if a.check:
        old = json.loads(OUT.read_text())
        diff = sorted(k for k in data if data[k] != old.get(k))
        print("differs: " + ", ".join(diff) if diff else "equal")
        return 1 if diff else 0
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(data)} programs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
