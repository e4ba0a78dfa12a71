#!/usr/bin/env python3
"""What a new user sees first: `argtrace check` on every kept failure case, its first 24 lines at 80 columns.

Runs each launch of the real-case batches (``tests/test_real_cases*.py``: batches 1-10, carriers 3 and 8,
PD disaggregation) as its test runs it (the same file, ``-c`` for a ``.cmd`` case, the same
``--framework-version``/``--gpu`` options and script arguments), on a new user's machine
(``ARGTRACE_CACHE_DIR`` and ``HF_HOME`` empty temporary directories), once as ``--format json`` and once as
the default text report with ``COLUMNS=80`` (off a terminal the renderer wraps at ``COLUMNS``;
``render/screen.py:output_width``). The first screen is the text's first 24 lines. Five questions per case:

1. root: is the case's root-cause finding (the one its test asserts: class a) a headline of the first screen?
   ``shown`` when its ``SEVERITY CODE`` line is in lines 1-24, ``folded`` when it is a consequence whose
   cause's headline is there (named in "explains ..."), ``below`` when not in the first 24 lines;
   ``-`` for a case its test does not class a.
2. repeats: error/warning findings shown as causes that name one place twice: two causes with the same code
   at the same ``at`` or on the same setting, or two causes on one setting (listed for review).
3. assumed errors: an ``error`` (cause or consequence) whose ``basis`` is ``assumed`` or that lists
   ``assumed`` items, or about a flag whose value an assumed shell finding (SH026/SH007) says came from a
   variable not set here: an error must rest on evidence (docs/verdicts.md).
4. unproven "verified": a finding with ``fix_verified: true`` and no ``fix_edits``, or whose text calls a
   fix verified (``verified``) while ``fix_verified`` is not ``true`` (docs/fixes.md).
5. noise: first-screen lines a user reads past before or beside the errors and warnings: ``INFO`` causes
   and their lines when the report has an error or warning, headlines cut so short that the place fills
   most of the line (the message keeps < 20 columns), the root pushed below an info or a note.

    PYTHONPATH=src:. python3 bench/first_screens.py [--out FILE.md] [--save RUN.json] [--before RUN.json]
                                                    [-k NAME] [--show]

``PYTHONPATH`` decides which argtrace is measured: ``OLD/src:.`` with another checkout's sources (e.g. from
``git archive BASE src``) measures that one; ``.`` is needed for the tests' tables.

Prints one line per case and the totals; ``--out`` writes them as Markdown tables, ``--save`` as JSON, and
``--before`` puts a saved run beside this one (how bench/results/first_screens.md was made: the base
commit's ``src`` from ``git archive`` saved, then this one with ``--before``).
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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SCREEN_LINES = 24
COLUMNS = 80
_CODE = re.compile(r"^[A-Z]{2}\d{3}$")
# the first line of what follows the diagnosis: a server, a note, the settings, a section, Details, the counts
_NEXT_PART = re.compile(r"^(?!(ERROR|WARNING|INFO) )([A-Z]|note: |[a-z][a-z-]*:( |$)|\d+ error)")
_HEADLINE = re.compile(r"^(ERROR|WARNING|INFO) ([A-Z]{2}\d{3,4}|SC\d{4}) ")


@dataclass
class Expect:
    """The root-cause finding a test asserts: ``code`` (None: any) whose message contains ``says``."""

    code: str | None
    says: str


@dataclass
class Case:
    batch: str
    directory: Path
    file: str
    options: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    drop_all_comments: bool = (
        False  # batches 1-5 drop every `#` line of a .cmd file, the later ones its header
    )
    full_path: bool = False  # batches 1-5 and PD name the file by its full path, the others by its name
    expect: list[Expect] = field(default_factory=list)


# --- the cases, read from the tests' own tables ------------------------------------------------------------


def _expectations(value: Any) -> list[Expect]:
    """(code, severity, says, fix) / (code, [(severity, says, fix)]) / [(severity, says, fix)] shapes."""
    if isinstance(value, tuple) and value and isinstance(value[0], str) and _CODE.match(value[0]):
        code = value[0]
        if len(value) > 2 and value[1] in ("error", "warning"):
            return [Expect(code, str(value[2]))]
        return [Expect(code, e.says) for e in _expectations(value[1])]
    if isinstance(value, list):
        return [e for item in value for e in _expectations(item)]
    if isinstance(value, tuple) and len(value) >= 2 and value[0] in ("error", "warning"):
        return [Expect(None, str(value[1]))]
    return []


def _cases_of_batch_1_to_3() -> list[Case]:
    module = importlib.import_module("tests.test_real_cases")
    out: dict[tuple[str, tuple[str, ...]], Case] = {}
    for batch, found, missed in (
        ("1", "FOUND", "MISSED"),
        ("2", "FOUND_2", "MISSED_2"),
        ("3", "FOUND_3", "MISSED_3"),
    ):
        for entry in [*getattr(module, found), *getattr(module, missed)]:
            key = (entry.file, tuple(entry.options))
            case = out.setdefault(
                key,
                Case(
                    batch,
                    module.CASES,
                    entry.file,
                    tuple(entry.options),
                    drop_all_comments=True,
                    full_path=True,
                ),
            )
            if hasattr(entry, "says"):
                case.expect.append(Expect(entry.code, entry.says))
    return list(out.values())


def _cases_of_launch_tables() -> list[Case]:
    out: list[Case] = []
    for batch in ("4", "5", "6", "7", "8", "9", "10"):
        module = importlib.import_module(f"tests.test_real_cases_{batch}")
        found = getattr(module, f"FOUND_{batch}", {})
        for key, launch in module.LAUNCHES.items():
            out.append(
                Case(
                    batch,
                    module.CASES,
                    launch.file,
                    tuple(launch.options),
                    tuple(getattr(launch, "args", ())),
                    drop_all_comments=batch in ("4", "5"),
                    full_path=batch in ("4", "5"),
                    expect=_expectations(found.get(key)),
                )
            )
    return out


def _cases_of_pd_and_carriers() -> list[Case]:
    pd8 = importlib.import_module("tests.test_real_cases_pd8")
    out = [
        Case("pd", pd8.CASES, f.file, tuple(f.options), expect=[Expect(f.code, f.starts)], full_path=True)
        for f in pd8.FOUND
    ]
    out += [Case("pd", pd8.CASES, n.file, tuple(n.options), full_path=True) for n in pd8.NOTED]
    out += [Case("pd", pd8.CASES, name, full_path=True) for name in sorted(pd8.MISSED)]
    # carriers 3 and 8 assert their root causes in test bodies: the code each asserts as the one alarm
    carriers3 = DATA / "real_cases_carriers3"
    for name, code in (
        ("fail_systemd27036_bash_c_dollar_word.service", "TP061"),
        ("fail_procexp169_braced_args_one_word.service", "TP063"),
        ("fail_sky2955_tp_over_nodes.sky.yaml", "TP042"),
        ("fail_sky6920_gpus_per_node_in_setup.sky.yaml", "TP067"),
    ):
        out.append(Case("carriers3", carriers3, name, expect=[Expect(code, "")]))
    # kserve3446 and prodstack276 end in a usage error (status 2, no report): not a screen of findings
    for name, code in (
        ("c8_kserve3791_isvc_docker_options_in_args.yaml", "TP023"),
        ("c8_llmd1126_command_one_string.yaml", "TP011"),
        ("c8_routerdemo2_helm_empty_served_name.yaml", "TP022"),
    ):
        out.append(Case("carriers8", DATA / "real_cases", name, expect=[Expect(code, "")]))
    return out


def all_cases() -> list[Case]:
    return [*_cases_of_batch_1_to_3(), *_cases_of_launch_tables(), *_cases_of_pd_and_carriers()]


# --- running a case ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def _in(directory: Path, env: dict[str, str]) -> Iterator[None]:
    old_cwd, old_env = Path.cwd(), {k: os.environ.get(k) for k in env}
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


def argv_of(case: Case) -> list[str]:
    path = case.directory / case.file
    if path.suffix == ".cmd":
        lines = path.read_text().splitlines()
        if case.drop_all_comments:
            lines = [line for line in lines if not line.startswith("#")]
        else:
            while lines and lines[0].startswith("#"):
                lines.pop(0)
        return [*case.options, "-c", "\n".join(lines).strip("\n")]
    return [*case.options, str(path) if case.full_path else path.name, *case.args]


def run(case: Case, fmt: str) -> str:
    from argtrace.cli import main

    with tempfile.TemporaryDirectory() as home:
        env = {
            "ARGTRACE_CACHE_DIR": f"{home}/argtrace-cache",
            "HF_HOME": f"{home}/hf",
            "COLUMNS": str(COLUMNS),
        }
        os.environ.pop("HF_HUB_CACHE", None)
        out, err = io.StringIO(), io.StringIO()
        with _in(case.directory, env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(["check", "--format", fmt, *argv_of(case)])
    return out.getvalue()


# --- the five questions -----------------------------------------------------------------------------------


def _every(report: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """(finding, its cause or None) for every finding, consequences included."""
    causes = [f for f in report["findings"] if "cause" not in f]
    return [*((f, None) for f in causes), *((c, f) for f in causes for c in f.get("consequences") or [])]


def _headline_index(lines: Sequence[str], finding: dict[str, Any]) -> int | None:
    """The line of the finding's headline: ``SEVERITY CODE`` then its place, in full or by its file name
    (render/screen.py short_places), on that line; None when no line reads so (a headline that ran over
    several lines leaves ``SEVERITY CODE`` alone on its first)."""
    start = f"{str(finding['severity']).upper()} {finding['code']} "
    at = str(finding.get("at") or "")
    name = at.rsplit("/", 1)[-1]
    for index, line in enumerate(lines):
        if line.startswith(start) and line[len(start) :].startswith((at, name)):
            return index
    return None


def diagnosis_block(lines: Sequence[str]) -> list[str]:
    """The lines from ``Diagnosis:`` up to the first line of the next part (``Server``, ``Settings``...)."""
    out: list[str] = []
    inside = False
    for line in lines:
        if line.startswith("Diagnosis:"):
            inside = True
            continue
        if inside and _NEXT_PART.match(line):
            break
        if inside:
            out.append(line)
    return out


def overflow(lines: Sequence[str]) -> int:
    """Diagnosis lines that are neither a headline nor one of its indented lines: a headline or a line
    wider than the screen, wrapped by the terminal."""
    return sum(
        1
        for line in diagnosis_block(lines)
        if not _HEADLINE.match(line) and not line.startswith(("  ", _REACH))
    )


# render/screen.py reach_line: the info findings about argtrace's reach, one line together
_REACH = "INFO on what argtrace could read: "


def root_on_screen(report: dict[str, Any], lines: Sequence[str], expect: Sequence[Expect]) -> str:
    if not expect:
        return "-"
    verdicts = []
    for e in expect:
        hits = [
            (f, cause)
            for f, cause in _every(report)
            if f["severity"] in ("error", "warning")
            and (e.code in (None, f["code"]))
            and e.says in f["message"]
        ]
        if not hits:
            verdicts.append("missing")
            continue
        finding, cause = hits[0]
        index = _headline_index(lines, cause or finding)
        if index is None or index >= SCREEN_LINES:
            verdicts.append("below" if index is not None else "absent")
        else:
            verdicts.append("folded" if cause else "shown")
    # a case asserting two findings (batch 1's vllm22072) counts as shown when every one is
    for worst in ("missing", "absent", "below", "folded"):
        if worst in verdicts:
            return worst
    return "shown"


def root_line(report: dict[str, Any], lines: Sequence[str], expect: Sequence[Expect]) -> int | None:
    """The 1-based line of the (first asserted) root cause's headline, or of its cause's."""
    for e in expect[:1]:
        for f, cause in _every(report):
            if (
                f["severity"] in ("error", "warning")
                and e.code in (None, f["code"])
                and e.says in f["message"]
            ):
                index = _headline_index(lines, cause or f)
                return None if index is None else index + 1
    return None


def repeats(report: dict[str, Any]) -> list[str]:
    """Pairs of error/warning causes that may be one cause told twice (candidates, judged by reading them):
    one setting; one code at one place; one code with one fix; one place; a flag whose value a shell
    finding's evidence makes (``--port "$PORT"``) and a finding on that flag."""
    causes = [f for f in report["findings"] if "cause" not in f and f["severity"] in ("error", "warning")]
    flags = {s["name"]: s.get("flag") for s in report.get("settings") or []}
    out = []
    for i, a in enumerate(causes):
        for b in causes[i + 1 :]:
            made = {
                flag
                for x in (a, b)
                for e in x.get("evidence") or []
                if x.get("layer") == "shell"
                for flag in _FLAG_BEFORE_EXPANSION.findall(str(e.get("text")))
            }
            named = {flags.get(x.get("setting") or "") for x in (a, b)} | {
                m for x in (a, b) for m in _ARGUMENT.findall(x["message"])
            }
            why = (
                "setting"
                if a.get("setting") and a.get("setting") == b.get("setting")
                else "place"
                if a.get("at") and a.get("at") == b.get("at")
                else "fix"
                if a["code"] == b["code"] and a.get("fix") and a.get("fix") == b.get("fix")
                else "value"
                if made & named
                else None
            )
            if why:
                out.append(f"{a['code']}+{b['code']} ({why})")
    return out


_FLAG_BEFORE_EXPANSION = re.compile(r"(--?[\w.-]+)[ =]\"?\$")
_ARGUMENT = re.compile(r"\bargument (--[\w.-]+)")


def assumed_errors(report: dict[str, Any]) -> list[str]:
    """Errors that rest on an assumption: marked so (``basis: assumed``, ``assumed``), or about a flag whose
    value an assumed shell finding says came from a variable not set here (SH026/SH007: the caller may
    set it), the error then holding only if the caller does not."""
    flags = {s["name"]: s.get("flag") for s in report.get("settings") or []}
    unset: set[str] = set()
    for f, _ in _every(report):
        if f.get("layer") == "shell" and f.get("basis") == "assumed":
            for e in f.get("evidence") or []:
                unset |= set(_FLAG_BEFORE_EXPANSION.findall(str(e.get("text"))))
    out = []
    for f, _ in _every(report):
        if f["severity"] != "error":
            continue
        named = {flags.get(f.get("setting") or ""), *_ARGUMENT.findall(f["message"])}
        if f.get("basis") == "assumed" or f.get("assumed") or named & unset:
            out.append(f["code"])
    return out


def unproven_verified(report: dict[str, Any], text: str) -> list[str]:
    out = []
    for f, _ in _every(report):
        if f.get("fix_verified") is True and not f.get("fix_edits"):
            out.append(f"{f['code']}:no-edit")
        if "verified" in str(f.get("fix") or "").lower() and f.get("fix_verified") is not True:
            out.append(f"{f['code']}:says-verified")
    return out


def noise(report: dict[str, Any], lines: Sequence[str]) -> dict[str, int]:
    """Lines of the first screen a user reads past: info causes (and their lines) when the report has an
    error or warning, headlines cut with < 20 columns of message, notes."""
    screen = list(lines[:SCREEN_LINES])
    alarm = any(f["severity"] in ("error", "warning") for f, _ in _every(report))
    info_lines = 0
    in_info = False
    cramped = 0
    for line in screen:
        m = _HEADLINE.match(line)
        if m:
            in_info = m.group(1) == "INFO"
            rest = line[m.end() :]
            at = rest.split(" ", 1)[0]
            message = rest[len(at) + 1 :] if ":" in at else rest
            if message.endswith("…") and len(message) < 20:
                cramped += 1
        elif not line.startswith("  "):
            in_info = False
        if in_info and alarm:
            info_lines += 1
    notes = sum(1 for line in screen if line.startswith("note: "))
    return {"info": info_lines, "cramped": cramped, "notes": notes}


def full_paths(case: Case, lines: Sequence[str]) -> int:
    """First-screen lines where the case's directory starts (a launch passed by its full path, batches 1-5
    and PD): the place repeated in full, wrapped over the next line as often as not."""
    start = str(case.directory)[:20]
    return sum(1 for line in lines[:SCREEN_LINES] if start in line)


@dataclass
class Row:
    case: Case
    root: str
    root_line: int | None
    overflow: int
    first_alarm_line: int | None
    repeats: list[str]
    assumed: list[str]
    verified: list[str]
    noise: dict[str, int]
    causes: str
    paths: int = 0


def measure(case: Case) -> Row:
    report = json.loads(run(case, "json"))
    text = run(case, "text")
    lines = text.splitlines()
    first = next((i + 1 for i, line in enumerate(lines) if re.match(r"^(ERROR|WARNING) ", line)), None)
    causes = " ".join(
        f"{f['severity'][0].upper()}:{f['code']}" for f in report["findings"] if "cause" not in f
    )
    return Row(
        case,
        root_on_screen(report, lines, case.expect),
        root_line(report, lines, case.expect),
        overflow(lines),
        first,
        repeats(report),
        assumed_errors(report),
        unproven_verified(report, text),
        noise(report, lines),
        causes,
        full_paths(case, lines),
    )


def totals(rows: Sequence[Row]) -> dict[str, int]:
    a = [r for r in rows if r.root != "-"]
    return {
        "cases": len(rows),
        "class a (root asserted)": len(a),
        "root shown in 24 lines": sum(r.root == "shown" for r in a),
        "root folded under a cause shown": sum(r.root == "folded" for r in a),
        "root below line 24": sum(r.root == "below" for r in a),
        "root headline broken over lines": sum(r.root == "absent" for r in a),
        "root headline line (median)": sorted(r.root_line or 99 for r in a)[len(a) // 2] if a else 0,
        "roots after line 5 (an earlier cause above them)": sum((r.root_line or 99) > 5 for r in a),
        "cases with a diagnosis line wider than the screen": sum(r.overflow > 0 for r in rows),
        "diagnosis lines wider than the screen (sum)": sum(r.overflow for r in rows),
        "cases with a repeated cause": sum(bool(r.repeats) for r in rows),
        "cases with an error on an assumption": sum(bool(r.assumed) for r in rows),
        "cases with an unproven 'verified'": sum(bool(r.verified) for r in rows),
        "cases with info lines on screen beside an alarm": sum(r.noise["info"] > 0 for r in rows),
        "info lines on first screens (sum)": sum(r.noise["info"] for r in rows),
        "cramped headlines (sum)": sum(r.noise["cramped"] for r in rows),
        "first-screen lines with a full path (sum)": sum(r.paths for r in rows),
        "cases with a full path on the first screen": sum(r.paths > 0 for r in rows),
        "notes on first screens (sum)": sum(r.noise["notes"] for r in rows),
    }


COLUMNS_SHOWN = (
    "root",
    "root line",
    "wider lines",
    "repeats",
    "error on assumption",
    "unproven verified",
    "info lines",
    "causes",
)


def cells(r: Row) -> dict[str, str]:
    return {
        "root": r.root,
        "root line": str(r.root_line or "-"),
        "wider lines": str(r.overflow),
        "repeats": ", ".join(r.repeats) or "-",
        "error on assumption": ", ".join(r.assumed) or "-",
        "unproven verified": ", ".join(r.verified) or "-",
        "info lines": str(r.noise["info"]),
        "causes": r.causes,
    }


def key(case: Case) -> str:
    return f"{case.batch} {case.file} {' '.join(case.options)}".strip()


def markdown(rows: Sequence[Row], before: dict[str, Any] | None = None) -> str:
    """The totals (before -> after when ``before`` is a saved run), then one row per case; a cell that
    changed reads ``before -> after``."""
    now = totals(rows)
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
        "| batch | case | options | " + " | ".join(COLUMNS_SHOWN) + " |",
        "|---|---|---|" + "---|" * len(COLUMNS_SHOWN),
    ]
    for r in rows:
        now_cells = cells(r)
        old = (before or {}).get("rows", {}).get(key(r.case), {})
        shown = [
            now_cells[c] if old.get(c, now_cells[c]) == now_cells[c] else f"{old[c]} -> {now_cells[c]}"
            for c in COLUMNS_SHOWN
        ]
        out.append(
            f"| {r.case.batch} | {r.case.file} | {' '.join(r.case.options) or '-'} | "
            + " | ".join(shown)
            + " |"
        )
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the table as Markdown here")
    parser.add_argument("--save", type=Path, help="write the run as JSON here (for a later --before)")
    parser.add_argument("--before", type=Path, help="a run saved with --save: the table shows both")
    parser.add_argument("-k", dest="name", help="only the cases whose file contains NAME")
    parser.add_argument("--show", action="store_true", help="print each case's first screen")
    options = parser.parse_args(argv)
    rows = []
    for case in all_cases():
        if options.name and options.name not in case.file:
            continue
        row = measure(case)
        rows.append(row)
        if options.show:
            print(f"=== {case.batch} {case.file} {' '.join(case.options)}")
            print("\n".join(run(case, "text").splitlines()[:SCREEN_LINES]))
        print(
            f"{case.batch:9} {case.file[:48]:48} root={row.root:7} rep={len(row.repeats)} "
            f"asm={len(row.assumed)} ver={len(row.verified)} info={row.noise['info']}",
            flush=True,
        )
    for name, value in totals(rows).items():
        print(f"- {name}: {value}")
    if options.save:
        saved = {"totals": totals(rows), "rows": {key(r.case): cells(r) for r in rows}}
        options.save.write_text(json.dumps(saved, indent=1) + "\n")
    if options.out:
        before = json.loads(options.before.read_text()) if options.before else None
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text(markdown(rows, before))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
