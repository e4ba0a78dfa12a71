#!/usr/bin/env python3
"""What a user sees first of `argtrace log FILE` and `argtrace why TEXT`: the first 24 lines at 80 columns.

The sibling of ``bench/first_screens.py`` (which reads ``check``). Cases come from the tests' own tables:

* ``log``: every log of the log batches (``tests/test_real_cases_logs*.py``: ``real_cases_logs``,
  ``real_logs_2``, ``logs_3``, ``logs_4``, ``logs_5``, ``logs6``, the hang batch ``real_logs_hang``; the
  working logs of ``logs_ok`` and each batch's ``ok/``; the reader's fixtures ``tests/data/logs``). The cause
  is the finding the batch's test asserts for a class-a case (``named``/``says`` in the first alarm, or
  ``cause`` in the message and ``change`` in the fix, ``names_the_cause_and_the_change``; the hang batch's
  ``says``/``fix``, a note); the other logs count for width, noise and secrets only.
* ``why``: every text of the why batches whose test names the first site (``WHY*`` of
  ``tests/test_real_cases*.py`` whose class is a, the files of ``tests/data/why8``, ``why_9``, ``why_10``
  graded a) and ``test_real_cases_logs_2``'s class-a texts (``says`` on the screen).

Each runs in-process as a new user's machine would (``ARGTRACE_CACHE_DIR``/``HF_HOME`` empty), once as
``--format json`` and twice as text at ``COLUMNS=80``: as printed (the screen) and with rich's wrapping off
(its console 1000 wide, the renderer still deciding at 80: the lines as written, to count those wider than the
screen). Questions per case:

1. cause line: the 1-based line of the cause's headline (``log``: its ``SEVERITY CODE`` headline, or its
   cause's when folded; ``why``: the first line naming the expected site's function, or ``says``); within
   24 lines? within 5?
2. change line: the line of the cause's ``fix:`` (``why``: the first site's); is the whole fix on the first
   screen (its words in order, however wrapped), or cut with an ellipsis?
3. headline on one line: the cause's headline holds the start of its message (``log``) or is one written line
   of at most 80 columns (``why``).
4. noise before the cause: first-screen lines above the cause's headline other than the command's header and
   the ``Diagnosis:`` line; info lines beside an alarm (``log``).
5. wider lines: written lines of the first screen wider than 80 columns (wrapped by the terminal).
6. basis: is what the answer rests on said on the first screen (``log``: a ``rests on``/``seen`` line, or the
   word ``assum`` for an assumed finding; ``why``: the match's strength)? Claims stronger than their basis:
   an error resting on an assumption (``basis: assumed``), an assumed finding whose screen does not say so, a
   weak ``why`` match not called a candidate on its headline or above it.
7. secrets: values ``redact.secrets_in_text`` finds unmasked on the first screen.

    PYTHONPATH=src:. python3 bench/first_screens_log_why.py [--save RUN.json] [--before RUN.json]
                                                            [--out FILE.md] [-k NAME] [--show]
                                                            [--check BASELINE.json]

``--check`` fails (status 1) when a total over the saved run's cases got worse than that run's;
``tests/log/test_first_screen.py`` runs ``--command log --check bench/results/first_screens_log_why.json``
(the 152 logs, about 15 s).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SCREEN_LINES = 24
COLUMNS = 80
WIDE = 1000
_HEADLINE = re.compile(r"^(ERROR|WARNING|INFO) ([A-Z]{2}\d{3,4}) ")

Finding = dict[str, Any]


@dataclass
class Case:
    command: str  # log / why
    batch: str
    name: str  # the log's path relative to its batch directory, or the why text's id
    directory: Path | None = None  # log: the batch directory (run from there, the file by its name)
    text: str = ""  # why: the pasted text
    # log: picks the cause among (finding, its cause or None); why: the function or the words expected
    cause: Callable[[Finding], bool] | None = None
    function: str | None = None
    says: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# --- the cases, read from the tests' own tables ------------------------------------------------------------


def _text(finding: Finding) -> str:
    return str(finding.get("message")) + " fix: " + str(finding.get("fix") or "")


def _alarm(f: Finding) -> bool:
    return f.get("severity") in ("error", "warning")


def _log_cases() -> list[Case]:
    out: list[Case] = []
    one = importlib.import_module("tests.test_real_cases_logs")
    for c in one.CASES:
        code, says = c.code, c.says
        pick = (
            (lambda f, code=code, says=says: _alarm(f) and f["code"] == code and says in _text(f))
            if c.cls == "a"
            else None
        )
        out.append(Case("log", "logs-1", c.file, one.LOGS, cause=pick))
    out += [Case("log", "logs-1", n, one.LOGS) for n in one.OK_LOGS]
    two = importlib.import_module("tests.test_real_cases_logs_2")
    for c in two.CASES:
        says = c.says
        pick = (lambda f, says=says: _alarm(f) and says in _text(f)) if c.cls not in ("b", "c") else None
        out.append(Case("log", "logs-2", c.file, two.LOGS, cause=pick))
    out += [Case("log", "logs-2", n, two.LOGS) for n in two.OK_LOGS]
    for batch in ("3", "4", "5", "6"):
        module = importlib.import_module(f"tests.test_real_cases_logs_{batch}")
        for c in module.CASES:
            cause, change = c.cause, c.change
            pick = (
                (
                    lambda f, cause=cause, change=change: (
                        _alarm(f)
                        and cause.lower() in str(f["message"]).lower()
                        and change in str(f.get("fix") or "")
                    )
                )
                if c.after == "a"
                else None
            )
            out.append(
                Case("log", f"logs-{batch}", c.file, module.LOGS, cause=pick, extra={"change": change})
            )
        out += [Case("log", f"logs-{batch}", n, module.LOGS) for n in module.OK_LOGS]
        # (the 6th batch's running servers' lines without a launch, beside its working launches)
        out += [Case("log", f"logs-{batch}", n, module.LOGS) for n in getattr(module, "NO_LAUNCH", {})]
    hang = importlib.import_module("tests.test_real_cases_logs_hang")
    for c in hang.CASES:
        says, fix = c.says, c.fix
        pick = lambda f, says=says, fix=fix: says in str(f["message"]) and fix in str(f.get("fix") or "")  # noqa: E731
        out.append(Case("log", "hang", c.file, hang.LOGS, cause=pick, extra={"change": fix}))
    out += [Case("log", "hang", n, hang.LOGS) for n in hang.OK_LOGS]
    ok = DATA / "logs_ok"
    out += [Case("log", "logs-ok", p.name, ok) for p in sorted(ok.glob("*.log"))]
    fixtures = DATA / "logs"
    out += [Case("log", "fixtures", p.name, fixtures) for p in sorted(fixtures.glob("*.log"))]
    return out


def _why_cases() -> list[Case]:
    from tests.conftest import quoted_text

    out: list[Case] = []
    for module_name, attributes in (
        ("tests.test_real_cases", ("WHY", "WHY_2", "WHY_3")),
        ("tests.test_real_cases_4", ("WHY_4",)),
        ("tests.test_real_cases_5", ("WHY_5",)),
        ("tests.test_real_cases_6", ("WHY_6",)),
        ("tests.test_real_cases_8", ("WHY_8",)),
        ("tests.test_real_cases_9", ("WHY_9",)),
        ("tests.test_real_cases_10", ("WHY_10",)),
        ("tests.test_real_cases_11", ("WHY_11",)),
    ):
        module = importlib.import_module(module_name)
        for attribute in attributes:
            for c in getattr(module, attribute, []):
                if not getattr(c, "function", None) or getattr(c, "klass", "a") != "a":
                    continue
                batch = attribute.lower().replace("_", "-")
                out.append(
                    Case(
                        "why",
                        batch,
                        c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1],
                        text=c.text,
                        function=c.function,
                    )
                )
    two = importlib.import_module("tests.test_real_cases_logs_2")
    for c in two.WHY:
        if c.cls == "a":
            out.append(Case("why", "logs-2", c.id, text=c.text, says=c.says))
    for batch, directory in (("why8", "why8"), ("why9", "why_9"), ("why10", "why_10")):
        module = importlib.import_module(f"tests.test_{directory.replace('8', '_8')}")
        for c in module.CASES:
            if c.grade != "a" or c.function is None:
                continue
            text = quoted_text(DATA / directory / f"{c.name}.txt")
            out.append(Case("why", batch, c.name, text=text, function=c.function, extra={"fix": c.fix}))
    return out


def all_cases() -> list[Case]:
    cases = _log_cases()
    for case in cases:  # a batch's working logs are named without their ``ok/`` directory by some tables
        if case.directory is not None and not (case.directory / case.name).exists():
            case.name = f"ok/{case.name}"
    return [*cases, *_why_cases()]


# --- running a case ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def _in(directory: Path | None, env: dict[str, str]) -> Iterator[None]:
    old_cwd, old_env = Path.cwd(), {k: os.environ.get(k) for k in env}
    if directory is not None:
        os.chdir(directory)
    os.environ.update(env)
    try:
        yield
    finally:
        os.chdir(old_cwd)
        for key, value in old_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.contextmanager
def _unwrapped() -> Iterator[None]:
    """The text renderer decides at ``COLUMNS`` as ever, but rich does not wrap: the lines as written."""
    from rich.console import Console

    from argtrace.render import text

    class Wide(Console):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["width"] = WIDE
            super().__init__(*args, **kwargs)

    old = text.Console
    text.Console = Wide  # type: ignore[misc]
    try:
        yield
    finally:
        text.Console = old  # type: ignore[misc]


def run(case: Case, fmt: str, unwrapped: bool = False) -> str:
    from argtrace.cli import main

    argv = (
        ["log", "--format", fmt, case.name] if case.command == "log" else ["why", "--format", fmt, case.text]
    )
    with tempfile.TemporaryDirectory() as home:
        env = {
            "ARGTRACE_CACHE_DIR": f"{home}/argtrace-cache",
            "HF_HOME": f"{home}/hf",
            "COLUMNS": str(COLUMNS),
        }
        os.environ.pop("HF_HUB_CACHE", None)
        out, err = io.StringIO(), io.StringIO()
        wide = _unwrapped() if unwrapped else contextlib.nullcontext()
        with _in(case.directory, env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            with wide, contextlib.suppress(SystemExit):
                main(argv)
    return out.getvalue()


# --- the questions ----------------------------------------------------------------------------------------


def _squeezed(text: str) -> str:
    """``text`` without whitespace: words compared however the screen wrapped them (a cut keeps its "…")."""
    return re.sub(r"\s+", "", text)


def _every(report: dict[str, Any]) -> list[tuple[Finding, Finding | None]]:
    causes = [f for f in report["findings"] if "cause" not in f]
    return [*((f, None) for f in causes), *((c, f) for f in causes for c in f.get("consequences") or [])]


def _screen_index_of_cause(report: dict[str, Any], lines: Sequence[str], cause: Finding) -> int | None:
    """The screen line of ``cause``'s headline: the diagnosis shows causes in ``diagnosis_order``, one
    ``SEVERITY CODE`` headline each."""
    from argtrace.render.screen import diagnosis_order

    causes = [f for f in report["findings"] if "cause" not in f]
    order = diagnosis_order(causes)
    position = next((n for n, i in enumerate(order) if causes[i] is cause), None)
    if position is None:
        return None
    headlines = [i for i, line in enumerate(lines) if _HEADLINE.match(line)]
    return headlines[position] if position < len(headlines) else None


def _wider(wide: Sequence[str]) -> int:
    """Written lines on the 80-column first screen wider than 80: the wide run's lines, each taking
    ceil(len/80) screen lines, until 24 are filled."""
    rows = count = 0
    for line in wide:
        if rows >= SCREEN_LINES:
            break
        rows += max(1, -(-len(line.rstrip()) // COLUMNS))
        count += len(line.rstrip()) > COLUMNS
    return count


@dataclass
class Row:
    case: Case
    known: bool  # the cause is in the output
    cause_line: int | None
    fix_line: int | None
    fix_whole: bool | None
    headline_one_line: bool | None
    noise_before: int | None
    info_lines: int
    wider: int
    basis_said: bool | None
    overclaims: list[str]
    secrets: int
    screen: list[str]


def _basis_said(block: Sequence[str], finding: Finding) -> bool:
    joined = " ".join(block).lower()
    if finding.get("basis") == "assumed" or finding.get("assumed"):
        return "assum" in joined
    return "rests on" in joined or "seen" in joined or "observed" in joined


def measure_log(case: Case) -> Row:
    report = json.loads(run(case, "json"))
    lines = run(case, "text").splitlines()
    wide = run(case, "text", unwrapped=True).splitlines()
    screen = lines[:SCREEN_LINES]
    alarm = any(_alarm(f) for f, _ in _every(report))
    info = 0
    in_info = False
    for line in screen:
        m = _HEADLINE.match(line)
        if m:
            in_info = m.group(1) == "INFO"
        elif not line.startswith("  "):
            in_info = False
        info += in_info and alarm
    overclaims = [
        f"{f['code']}:assumed-error"
        for f, _ in _every(report)
        if f["severity"] == "error" and f.get("basis") == "assumed"
    ]
    from argtrace.redact import secrets_in_text

    secrets = len(secrets_in_text("\n".join(screen)))
    hit = next(((f, c) for f, c in _every(report) if case.cause and case.cause(f)), None)
    if hit is None:
        return Row(
            case, False, None, None, None, None, None, info, _wider(wide), None, overclaims, secrets, screen
        )
    finding, cause = hit
    shown = cause or finding
    index = _screen_index_of_cause(report, lines, shown)
    fix_line = fix_whole = one = noise = basis = None
    if index is not None:
        block = [lines[index]]
        for line in lines[index + 1 :]:
            if not line.startswith("  "):
                break
            block.append(line)
        fixes = [i for i, line in enumerate(block) if line.lstrip().startswith("fix:")]
        fix_line = index + 1 + fixes[0] if fixes else None
        fix = str(shown.get("fix") or "")
        fix_whole = bool(fix) and _squeezed(fix) in _squeezed(" ".join(screen))
        start = _squeezed(str(shown["message"]))[:12]
        one = start in _squeezed(lines[index])
        noise = sum(1 for line in lines[:index] if not line.startswith(("argtrace log", "Diagnosis:")))
        basis = _basis_said(block, shown)
        if (shown.get("basis") == "assumed") and not basis:
            overclaims.append(f"{shown['code']}:assumed-unsaid")
    return Row(
        case,
        True,
        None if index is None else index + 1,
        fix_line,
        fix_whole,
        one,
        noise,
        info,
        _wider(wide),
        basis,
        overclaims,
        secrets,
        screen,
    )


def measure_why(case: Case) -> Row:
    report = json.loads(run(case, "json"))
    lines = run(case, "text").splitlines()
    wide = run(case, "text", unwrapped=True).splitlines()
    screen = lines[:SCREEN_LINES]
    section = report.get("why") or {}
    from argtrace.redact import secrets_in_text

    secrets = len(secrets_in_text("\n".join(screen)))
    first = (section.get("matches") or [None])[0]
    overclaims = []
    wanted = case.function or case.says or ""
    index = next((i for i, line in enumerate(lines) if wanted in line), None)
    if case.says is not None and index is None:
        joined = [" ".join(" ".join(lines[: n + 1]).split()) for n in range(len(lines))]
        index = next((n for n, text in enumerate(joined) if case.says in text), None)
    known = index is not None
    fix_line = fix_whole = one = noise = basis = None
    if known and index is not None:
        fix_line = next(
            (i + 1 for i in range(index, len(lines)) if lines[i].lstrip().startswith("fix:")), None
        )
        fix = str((first or {}).get("fix") or "")
        fix_whole = bool(fix) and _squeezed(fix) in _squeezed(" ".join(screen))
        head = lines[index]
        one = any(line.strip() == head.strip() and len(line.rstrip()) <= COLUMNS for line in wide)
        noise = sum(1 for line in lines[:index] if line.strip() and not line.startswith("argtrace why"))
        joined = " ".join(screen).lower()
        basis = "match" in joined or "rests on" in joined
    weak = section.get("confidence") == "weak"
    # a weak first site must read as a candidate: on its headline or above it
    if weak and not any("candidate" in line for line in lines[: (index or 0) + 1]):
        overclaims.append("weak-not-candidate")
    return Row(
        case,
        known,
        None if index is None else index + 1,
        fix_line,
        fix_whole,
        one,
        noise,
        0,
        _wider(wide),
        basis,
        overclaims,
        secrets,
        screen,
    )


def measure(case: Case) -> Row:
    return measure_log(case) if case.command == "log" else measure_why(case)


def totals(rows: Sequence[Row], command: str) -> dict[str, int]:
    mine = [r for r in rows if r.case.command == command]
    known = [r for r in mine if r.known]
    return {
        "cases": len(mine),
        "cause known (in the output)": len(known),
        "cause in the first 24 lines": sum((r.cause_line or 99) <= SCREEN_LINES for r in known),
        "cause in the first 5 lines": sum((r.cause_line or 99) <= 5 for r in known),
        "its fix line in the first 24 lines": sum((r.fix_line or 99) <= SCREEN_LINES for r in known),
        "its fix line in the first 8 lines": sum((r.fix_line or 99) <= 8 for r in known),
        "its whole fix on the first screen": sum(bool(r.fix_whole) for r in known),
        "cause headline on one line": sum(bool(r.headline_one_line) for r in known),
        "lines before the cause (sum)": sum(r.noise_before or 0 for r in known),
        "info lines beside an alarm (sum)": sum(r.info_lines for r in mine),
        "first-screen lines wider than 80 (sum)": sum(r.wider for r in mine),
        "cases with a line wider than 80": sum(r.wider > 0 for r in mine),
        "basis said on the first screen": sum(bool(r.basis_said) for r in known),
        "claims stronger than their basis": sum(len(r.overclaims) for r in mine),
        "unmasked secrets on first screens": sum(r.secrets for r in mine),
    }


COLUMNS_SHOWN = (
    "known",
    "cause line",
    "fix line",
    "fix whole",
    "one line",
    "before",
    "wider",
    "basis",
    "overclaims",
)


def cells(r: Row) -> dict[str, str]:
    def yes(value: bool | None) -> str:
        return "-" if value is None else "yes" if value else "no"

    return {
        "known": yes(r.known),
        "cause line": str(r.cause_line or "-"),
        "fix line": str(r.fix_line or "-"),
        "fix whole": yes(r.fix_whole),
        "one line": yes(r.headline_one_line),
        "before": "-" if r.noise_before is None else str(r.noise_before),
        "wider": str(r.wider),
        "basis": yes(r.basis_said),
        "overclaims": ", ".join(r.overclaims) or "-",
    }


def key(case: Case) -> str:
    return f"{case.command} {case.batch} {case.name}"


def markdown(rows: Sequence[Row], before: dict[str, Any] | None = None) -> str:
    out: list[str] = []
    for command in ("log", "why"):
        now = totals(rows, command)
        out += [
            f"### `{command}`",
            "",
            "| measure | " + ("before | after |" if before else "value |"),
            "|---|---:|" + ("---:|" if before else ""),
        ]
        for name, value in now.items():
            old = f"{before['totals'][command].get(name, '-')} | " if before else ""
            out.append(f"| {name} | {old}{value} |")
        out += [
            "",
            "| batch | case | " + " | ".join(COLUMNS_SHOWN) + " |",
            "|---|---|" + "---|" * len(COLUMNS_SHOWN),
        ]
        for r in rows:
            if r.case.command != command:
                continue
            now_cells = cells(r)
            old_cells = (before or {}).get("rows", {}).get(key(r.case), {})
            shown = [
                now_cells[c]
                if old_cells.get(c, now_cells[c]) == now_cells[c]
                else f"{old_cells[c]} -> {now_cells[c]}"
                for c in COLUMNS_SHOWN
            ]
            out.append(f"| {r.case.batch} | {r.case.name} | " + " | ".join(shown) + " |")
        out.append("")
    return "\n".join(out)


# Totals where more is better; the others are better smaller.
_MORE_IS_BETTER = {
    "cause known (in the output)",
    "cause in the first 24 lines",
    "cause in the first 5 lines",
    "its fix line in the first 24 lines",
    "its fix line in the first 8 lines",
    "its whole fix on the first screen",
    "cause headline on one line",
    "basis said on the first screen",
}


def worse(now: dict[str, dict[str, int]], saved: dict[str, dict[str, int]]) -> list[str]:
    out = []
    for command, values in now.items():
        if not values.get("cases"):
            continue  # a run of the other command only (--command)
        for name, value in values.items():
            old = saved.get(command, {}).get(name)
            if old is None or name == "cases":
                continue
            if (value < old) if name in _MORE_IS_BETTER else (value > old):
                out.append(f"{command}: {name} {old} -> {value}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the tables as Markdown here")
    parser.add_argument("--save", type=Path, help="write the run as JSON here (for a later --before)")
    parser.add_argument("--before", type=Path, help="a run saved with --save: the tables show both")
    parser.add_argument("--check", type=Path, help="a run saved with --save: status 1 if a total got worse")
    parser.add_argument("-k", dest="name", help="only the cases whose name or batch contains NAME")
    parser.add_argument("--command", choices=("log", "why"), help="only this command's cases")
    parser.add_argument("--show", action="store_true", help="print each case's first screen")
    options = parser.parse_args(argv)
    rows = []
    for case in all_cases():
        if options.name and options.name not in case.name and options.name != case.batch:
            continue
        if options.command and case.command != options.command:
            continue
        row = measure(case)
        rows.append(row)
        if options.show:
            print(f"=== {key(case)}")
            print("\n".join(row.screen))
        c = cells(row)
        print(
            f"{case.command} {case.batch:7} {case.name[:46]:46} "
            + " ".join(f"{k}={v}" for k, v in c.items()),
            flush=True,
        )
    now = {command: totals(rows, command) for command in ("log", "why")}
    for command, values in now.items():
        for name, value in values.items():
            print(f"- {command}: {name}: {value}")
    if options.save:
        saved = {"totals": now, "rows": {key(r.case): cells(r) for r in rows}}
        options.save.write_text(json.dumps(saved, indent=1) + "\n")
    if options.out:
        before = json.loads(options.before.read_text()) if options.before else None
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text(markdown(rows, before))
    if options.check:
        saved_run = json.loads(options.check.read_text())
        # only the cases the saved run measured: a batch merged since adds logs (and wide lines) of its own,
        # which are no screen getting worse
        common = [r for r in rows if key(r.case) in saved_run["rows"]]
        bad = worse({command: totals(common, command) for command in ("log", "why")}, saved_run["totals"])
        for line in bad:
            print(f"worse: {line}")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
