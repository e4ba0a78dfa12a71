#!/usr/bin/env python3
"""Does the first screen answer the question? ``argtrace check``/``log`` on every real case of class a.

The cases are the launches the real-case tests run (``tests/test_real_cases*.py``), recorded as the tests run
them by the pytest plugin ``bench/first_screen_cases.py`` (the directory, the argument list, the codes the
test asserts) into ``bench/results/first_screen_cases.jsonl``. A case is kept when its input is under
``tests/data/``, the test asserts a code that is an error or a warning of the report (its root cause: class
a), and the test does not say the root cause is missed (see the plugin). Each case runs as a new user runs
it (``ARGTRACE_CACHE_DIR`` and ``HF_HOME`` empty temporary directories, ``COLUMNS=80``, stdout not a
terminal): once ``--format json``, once the text report, whose first 24 lines are the first screen
(an 80x24 terminal). ``--subprocess`` runs the console command (``python3 -m argtrace``) instead of its
``main`` in this process (the same code; slower).

Per case:

* root: the root cause's headline (``SEVERITY CODE``; a consequence's: its cause's) is on lines 1-24
  (``shown``), and its ``fix:`` line too (``fixed``); ``below`` when the headline is past line 24;
  ``absent`` when it is not in the text at all.
* before: the findings whose headlines come before the root's; ``findings``: every finding of the report
  (causes and their consequences), ``causes``: those the diagnosis lists.
* dup: two causes (error or warning) that name one setting, or one site (``at``), under different codes:
  one cause told twice (candidates: read them).
* wall: the lines above the first headline (the header, the diagnosis title, anything else).

    PYTHONPATH=src:. python3 bench/first_screen_audit.py [--cases FILE] [--save RUN.json]
                                                         [--before RUN.json] [--out FILE.md] [-k TEXT]
                                                         [--show] [--subprocess]

Recording the cases again (after a batch adds tests):

    PYTHONPATH=src:. python3 -m pytest -q -p no:cacheprovider -p bench.first_screen_cases \\
        tests/test_real_cases*.py --first-screen-cases bench/results/first_screen_cases.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "bench" / "results" / "first_screen_cases.jsonl"
SCREEN_LINES = 24
COLUMNS = 80
_HEADLINE = re.compile(r"^(ERROR|WARNING|INFO) ([A-Z]{2}\d{3,4}) ")
_ALARM = ("error", "warning")
# about argtrace's reach, not the launch (render/screen.py ABOUT_THE_ANALYSIS; kept here so that an older
# checkout is measured alike)
_ABOUT_THE_ANALYSIS = frozenset({"PR007", "PR008", "PR011", "RS004"})
_REACH = "INFO on what argtrace could read: "  # render/screen.py reach_line: one line for several


@dataclass
class Case:
    cwd: str
    argv: list[str]
    codes: set[str] = field(default_factory=set)
    tests: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The input's file name, or for a ``-c`` command the test that runs it."""
        for word in self.argv[1:]:
            if "\n" not in word and len(word) < 300 and (ROOT / self.cwd / word).is_file():
                return word.rsplit("/", 1)[-1]
        node = self.tests[0].split("::")[-1] if self.tests else "?"
        return "-c " + node.split("[", 1)[-1].rstrip("]") if "[" in node else "-c " + node

    @property
    def key(self) -> str:
        return json.dumps([self.cwd, self.argv])


def _in_data(row: dict[str, Any]) -> bool:
    if row["cwd"].startswith("tests/data"):
        return True
    return any(str(a).startswith("{ROOT}/tests/data/") for a in row["argv"])


# Tests that say the launch's root cause is missed or that it is a correct launch: the codes they name are
# what must NOT fire (``besides``, a misses' table), not a root cause.
_NOT_A_ROOT = re.compile(
    r"missed|the_misses|quiet|does_not_find|cannot_see|no_alarm|clean|correct|no_evidence|not_missing"
)


def _class_a(row: dict[str, Any]) -> bool:
    """Not classed other than a by the batch's table (``CLASSES``) or the row's ``after``."""
    if row.get("after") and "a" not in row["after"]:
        return False
    classes = row.get("classes") or {}
    return not classes or "a" in classes.values()


def load_cases(path: Path) -> list[Case]:
    """The recorded launches, one per directory and argument list, with every code their tests assert."""
    out: dict[str, Case] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        test = row["node"].split("::")[-1]
        if (
            row["missed"]
            or _NOT_A_ROOT.search(test)
            or not row["codes"]
            or not _in_data(row)
            or not _class_a(row)
        ):
            continue
        argv = [a.replace("{ROOT}/", f"{ROOT}/") for a in row["argv"]]
        case = out.setdefault(json.dumps([row["cwd"], argv]), Case(row["cwd"], argv))
        case.codes |= set(row["codes"])
        case.tests.append(row["node"])
    return sorted(out.values(), key=lambda c: (c.cwd, c.name, c.key))


@contextlib.contextmanager
def _new_user(directory: Path) -> Iterator[dict[str, str]]:
    with tempfile.TemporaryDirectory() as home:
        env = {
            "ARGTRACE_CACHE_DIR": f"{home}/argtrace-cache",
            "HF_HOME": f"{home}/hf",
            "COLUMNS": str(COLUMNS),
        }
        old_cwd, old_env = Path.cwd(), {k: os.environ.get(k) for k in [*env, "HF_HUB_CACHE"]}
        os.environ.pop("HF_HUB_CACHE", None)
        os.environ.update(env)
        os.chdir(directory)
        try:
            yield env
        finally:
            os.chdir(old_cwd)
            for k, v in old_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def run(case: Case, fmt: str, console: bool = False) -> str:
    """The report as ``argtrace COMMAND --format FMT ARGS`` prints it, from the case's directory."""
    argv = [case.argv[0], "--format", fmt, *case.argv[1:]]
    with _new_user(ROOT / case.cwd) as env:
        if console:
            child_env = {**os.environ, **env, "PYTHONPATH": os.pathsep.join(sys.path[1:])}
            done = subprocess.run(
                [sys.executable, "-m", "argtrace", *argv],
                capture_output=True,
                text=True,
                env=child_env,
                stdin=subprocess.DEVNULL,
                timeout=300,
            )
            return done.stdout
        from argtrace.cli import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(argv)
        return out.getvalue()


@dataclass
class Row:
    case: Case
    root: str  # fixed / shown / below / absent / not-alarm
    root_code: str
    root_line: int | None
    before: int
    causes: int
    findings: int
    dups: list[str]
    wall: int
    headlines: list[str]
    info: int = 0  # INFO lines on lines 1-24 beside an error or a warning (headlines, the reach line)
    notes: int = 0  # ``note:`` lines on lines 1-24
    header: int = 0  # lines the header takes (1 when it fits the width)
    assumed: int = 0  # error/warning causes read with an assumption (``basis: assumed``)
    assumed_said: int = 0  # of those, the ones whose first-screen lines say "rests on ..."


def _every(report: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    causes = [f for f in report.get("findings") or [] if "cause" not in f]
    return [*((f, None) for f in causes), *((c, f) for f in causes for c in f.get("consequences") or [])]


def headlines(lines: Sequence[str]) -> list[tuple[int, str, str]]:
    """(line index, severity, code) of every diagnosis headline, in the order printed."""
    out = []
    for index, line in enumerate(lines):
        m = _HEADLINE.match(line)
        if m:
            out.append((index, m.group(1).lower(), m.group(2)))
        elif line.startswith(("Details", "Server ", "Settings")):
            break
    return out


def _has_fix(lines: Sequence[str], index: int, end: int) -> int | None:
    """The line index of the ``fix:`` line under the headline at ``index`` (before ``end``)."""
    for i in range(index + 1, min(end, len(lines))):
        if lines[i].startswith("  fix: "):
            return i
    return None


def duplicates(report: dict[str, Any]) -> list[str]:
    """Pairs of error/warning causes with different codes that name one setting, or one site (``at``) without
    naming two different settings (two settings on one line of an argument dump are two causes); findings
    about argtrace's reach (PR008's stand-in release) are not about the launch."""
    causes = [
        f
        for f in report.get("findings") or []
        if "cause" not in f and f["severity"] in _ALARM and f["code"] not in _ABOUT_THE_ANALYSIS
    ]
    out = []
    for i, a in enumerate(causes):
        for b in causes[i + 1 :]:
            if a["code"] == b["code"]:
                continue
            if a.get("setting") and a.get("setting") == b.get("setting"):
                out.append(f"{a['code']}+{b['code']} (setting {a['setting']})")
            elif a.get("at") and a.get("at") == b.get("at") and not (a.get("setting") and b.get("setting")):
                out.append(f"{a['code']}+{b['code']} (site)")
    return out


def _assumptions(
    report: dict[str, Any], lines: Sequence[str], heads: Sequence[tuple[int, str, str]]
) -> tuple[int, int]:
    """The alarms read with an assumption (causes), and how many of them say so on lines 1-24: a line
    under their headline starting ``rests on``."""
    causes = [f for f in report.get("findings") or [] if "cause" not in f]
    assumed = [f for f in causes if f["severity"] in _ALARM and f.get("basis") == "assumed"]
    said = 0
    taken: set[int] = set()
    for f in assumed:
        for n, (index, severity, code) in enumerate(heads):
            if n in taken or code != f["code"] or severity != f["severity"]:
                continue
            taken.add(n)
            end = min(heads[n + 1][0] if n + 1 < len(heads) else len(lines), SCREEN_LINES)
            said += any(line.startswith("  rests on") for line in lines[index + 1 : end])
            break
    return len(assumed), said


def measure(case: Case, console: bool = False) -> Row:
    report = json.loads(run(case, "json", console))
    lines = run(case, "text", console).splitlines()
    heads = headlines(lines)
    every = _every(report)
    roots = [(f, cause) for f, cause in every if f["severity"] in _ALARM and f["code"] in case.codes]
    wall = heads[0][0] if heads else min(len(lines), SCREEN_LINES)
    common = dict(
        causes=sum(1 for f, c in every if c is None),
        findings=len(every),
        dups=duplicates(report),
        wall=wall,
        headlines=[f"{s[0].upper()}:{c}" for _, s, c in heads],
        info=sum(1 for i, s, _ in heads if s == "info" and i < SCREEN_LINES)
        + sum(1 for line in lines[:SCREEN_LINES] if line.startswith(_REACH))
        if any(s != "info" for _, s, _ in heads)
        else 0,
        notes=sum(1 for line in lines[:SCREEN_LINES] if line.startswith("note: ")),
        header=next((i for i, line in enumerate(lines) if line.startswith("Diagnosis:")), 1),
    )
    assumed, said = _assumptions(report, lines, heads)
    common.update(assumed=assumed, assumed_said=said)
    if not roots:
        return Row(case, "not-alarm", "-", None, 0, **common)  # type: ignore[arg-type]
    # the root the screen shows first: the earliest headline among the asserted codes (or their causes)
    best: tuple[int, int, str] | None = None
    for f, cause in roots:
        shown = cause or f
        for n, (index, severity, code) in enumerate(heads):
            if code == shown["code"] and severity == shown["severity"]:
                if best is None or n < best[0]:
                    best = (n, index, f["code"])
                break
    if best is None:
        return Row(case, "absent", roots[0][0]["code"], None, len(heads), **common)  # type: ignore[arg-type]
    n, index, code = best
    end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
    fix = _has_fix(lines, index, end)
    if index >= SCREEN_LINES:
        root = "below"
    elif fix is not None and fix < SCREEN_LINES:
        root = "fixed"
    else:
        root = "shown"
    return Row(case, root, code, index + 1, n, **common)  # type: ignore[arg-type]


def totals(rows: Sequence[Row]) -> dict[str, Any]:
    a = [r for r in rows if r.root != "not-alarm"]
    lines = sorted(r.root_line or 99 for r in a)
    return {
        "cases (class a, root asserted)": len(a),
        "root code and fix on the first screen": sum(r.root == "fixed" for r in a),
        "root code on the first screen, its fix not": sum(r.root == "shown" for r in a),
        "root below line 24": sum(r.root == "below" for r in a),
        "root not in the text": sum(r.root == "absent" for r in a),
        "root is the first finding": sum(r.before == 0 and r.root in ("fixed", "shown") for r in a),
        "findings before the root (sum)": sum(r.before for r in a),
        "findings before the root (most)": max((r.before for r in a), default=0),
        "root headline line (median)": lines[len(lines) // 2] if lines else 0,
        "findings in all (sum)": sum(r.findings for r in a),
        "causes listed (sum)": sum(r.causes for r in a),
        "cases with a duplicate (one setting/site, two codes)": sum(bool(r.dups) for r in a),
        "duplicate pairs (sum)": sum(len(r.dups) for r in a),
        "lines above the first finding (sum)": sum(r.wall for r in a),
        "lines above the first finding (most)": max((r.wall for r in a), default=0),
        "cases whose header takes more than one line": sum(r.header > 1 for r in a),
        "info lines on first screens beside an alarm (sum)": sum(r.info for r in a),
        "note lines on first screens (sum)": sum(r.notes for r in a),
        "alarms read with an assumption (sum)": sum(r.assumed for r in a),
        "... whose first screen says so": sum(r.assumed_said for r in a),
    }


COLUMNS_SHOWN = ("root", "code", "line", "before", "causes", "findings", "wall", "info", "dup")


def cells(r: Row) -> dict[str, str]:
    return {
        "root": r.root,
        "code": r.root_code,
        "line": str(r.root_line or "-"),
        "before": str(r.before),
        "causes": str(r.causes),
        "findings": str(r.findings),
        "wall": str(r.wall),
        "info": str(r.info),
        "dup": ", ".join(r.dups) or "-",
    }


def markdown(rows: Sequence[Row], before: dict[str, Any] | None = None) -> str:
    now = totals([r for r in rows if r.root != "not-alarm"])
    out = [
        "| measure | " + ("before | after |" if before else "value |"),
        "|---|---:|" + ("---:|" if before else ""),
    ]
    for name, value in now.items():
        out.append(
            f"| {name} | " + (f"{before['totals'].get(name, '-')} | " if before else "") + f"{value} |"
        )
    out += [
        "",
        "| case | dir | " + " | ".join(COLUMNS_SHOWN) + " |",
        "|---|---|" + "---|" * len(COLUMNS_SHOWN),
    ]
    for r in rows:
        if r.root == "not-alarm":
            continue
        now_cells = cells(r)
        old = (before or {}).get("rows", {}).get(r.case.key, {})
        shown = [
            now_cells[c] if old.get(c, now_cells[c]) == now_cells[c] else f"{old[c]} -> {now_cells[c]}"
            for c in COLUMNS_SHOWN
        ]
        out.append(
            f"| {r.case.name} | {r.case.cwd.removeprefix('tests/data/')} | " + " | ".join(shown) + " |"
        )
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=CASES, help="the recorded launches (JSON lines)")
    parser.add_argument("--save", type=Path, help="write the run as JSON (for a later --before)")
    parser.add_argument("--before", type=Path, help="a run saved with --save: the table shows both")
    parser.add_argument("--out", type=Path, help="write the tables as Markdown")
    parser.add_argument("-k", dest="name", help="only the cases whose file or directory contains TEXT")
    parser.add_argument("--show", action="store_true", help="print each case's first screen")
    parser.add_argument("--subprocess", action="store_true", help="run `python3 -m argtrace` per report")
    options = parser.parse_args(argv)
    rows = []
    for case in load_cases(options.cases):
        if options.name and options.name not in case.name and options.name not in case.cwd:
            continue
        row = measure(case, options.subprocess)
        rows.append(row)
        if options.show:
            print(f"=== {case.cwd} {case.name} {' '.join(case.codes)}")
            print("\n".join(run(case, "text", options.subprocess).splitlines()[:SCREEN_LINES]))
        if row.root != "not-alarm":
            print(
                f"{case.name[:44]:44} {row.root:6} {row.root_code} line={row.root_line or '-':>3} "
                f"before={row.before} causes={row.causes:2} findings={row.findings:2} wall={row.wall} "
                f"info={row.info} "
                f"dup={','.join(row.dups) or '-'}",
                flush=True,
            )
    kept = [r for r in rows if r.root != "not-alarm"]
    for name, value in totals(kept).items():
        print(f"- {name}: {value}")
    if options.save:
        saved = {"totals": totals(kept), "rows": {r.case.key: cells(r) for r in kept}}
        options.save.write_text(json.dumps(saved, indent=1) + "\n")
    if options.out:
        before = json.loads(options.before.read_text()) if options.before else None
        options.out.write_text(markdown(rows, before))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
