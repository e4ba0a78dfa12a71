"""End-to-end audit of the fixes argtrace offers as verified (docs/fixes.md, "Audit of verified fixes").

The promise audited: a fix is offered as verified (``fix_verified: true``) only when re-checking proves it.
Each real case (``tests/data/real_cases*/``), each correct launch (``tests/data/false_alarms/``) and the
shipped example is checked as its test checks it (the options its test module gives; a new user's machine:
``ARGTRACE_CACHE_DIR`` and ``HF_HOME`` empty temporary directories), in a copy of its directory. When a
finding has a verified fix, the fix is applied as a user applies it: ``argtrace fix ... > p.diff`` and
``patch -p0 < p.diff`` in one copy, ``argtrace fix --write`` in another (``-c``: the fixed command
``argtrace fix -c`` prints). The patched launch is checked again and five questions are answered:

1. ``gone``: every verified finding's code (with its setting) is gone from the errors and warnings;
2. ``no_new``: no error or warning appeared that the launch lacked before;
3. ``valid``: the patched file still parses for its carrier (``bash -n``; YAML; ``systemd-analyze verify``
   for units);
4. ``scoped``: the diff changes only lines the applied findings' ``fix_edits`` name;
5. ``secrets``: with a secret planted next to the edit (as tests/security plants them: ``export
   HF_TOKEN=hf_...``), ``argtrace fix`` prints it masked, ``--write`` writes it back unmasked.

Besides: the edits that fail to apply (``patch`` refuses the diff, ``--write`` and ``patch`` disagree), the
findings whose fix is ``fix_verified: false`` though its edits, applied alone by this script's own code
(not argtrace's), would have passed 1 and 2 (a missed verification), and any fix on a correct launch.

Run: ``PYTHONPATH=src python3 bench/fix_audit.py [--json OUT] [--only SUBSTRING ...]`` (33 s to 4 min on
this shared machine for all 389 launches, in one process, by its load). The test module
tests/fixes/test_fix_audit.py runs :func:`audit_case` on a fixed subset.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
PLANTED = "fxAuditPlanted93q"  # no token shape: only its name can mark it (as tests/security's MY_PAT)
ALARMS = ("error", "warning")
FALSE_ALARM_KINDS = {
    "commands": ".cmd",
    "scripts": ".sh",
    "compose": ".yaml",
    "k8s": ".yaml",
    "recipes": ".cmd",
}
# files in the case directories that are no launch of their own (logs; an env file a unit reads)
NOT_LAUNCHES = (".log", ".ok", ".env", ".md", ".txt", ".json")


@dataclass(frozen=True)
class Case:
    """One launch as its test checks it: ``file`` in ``directory`` (a ``.cmd`` file's command is run with
    ``-c``), the options and script arguments the test passes, and whether it is a correct launch."""

    directory: str  # relative to the repository
    file: str
    options: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    correct: bool = False

    @property
    def name(self) -> str:
        extra = " ".join((*self.options, *self.args))
        return f"{self.directory}/{self.file}" + (f" [{extra}]" if extra else "")


@dataclass
class Outcome:
    """What the audit found for one case; the five answers are None when there was no verified fix."""

    case: str
    verified: list[str] = field(default_factory=list)  # "CODE setting" of each verified finding
    unverified: list[str] = field(default_factory=list)  # fix_verified false
    fix_on_correct: list[str] = field(default_factory=list)  # a verified fix, or `fix` prints an edit
    info_edits: list[str] = field(default_factory=list)  # notes with an edit (applied only by --unverified)
    no_report: str = ""  # a usage error (no launch to check): its first line
    masked: bool = False  # the diff held a secret, so it is masked and only --write applies (documented)
    planted_applies: bool | None = None  # with the planted secret, the printed diff still applies
    masked_note_right: bool | None = None  # printed masked: the note names a diff (--write) or a command
    applies: bool | None = None  # patch -p0 applied the diff and it equals --write's file
    gone: bool | None = None
    no_new: bool | None = None
    valid: bool | None = None
    scoped: bool | None = None
    secrets: bool | None = None
    missed_verification: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


# --- the cases, with their tests' options ---------------------------------------------------------------

_CALL = re.compile(r"""check(?:_file)?\(\s*(?:CASES\s*/\s*)?"([\w.\-]+\.\w+)"((?:\s*,\s*"[^"]*")*)\s*\)""")


def _launches(value: Any, seen: set[int]) -> Iterator[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """Every (file, options, args) a test module's tables hold (Launch, Found, Missed ... objects)."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, dict):
        for item in value.values():
            yield from _launches(item, seen)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _launches(item, seen)
    elif isinstance(getattr(value, "file", None), str) and hasattr(value, "options"):
        yield value.file, tuple(value.options), tuple(getattr(value, "args", ()))
    elif hasattr(value, "launch"):
        yield from _launches(value.launch, seen)


def _module_cases() -> dict[str, list[Case]]:
    """Cases named by the real-case test modules, by directory."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    found: dict[str, list[Case]] = {}
    for path in sorted((REPO / "tests").glob("test_real_cases*.py")):
        module = importlib.import_module(f"tests.{path.stem}")
        cases_dir = getattr(module, "CASES", None)
        if not isinstance(cases_dir, Path):
            continue
        directory = cases_dir.relative_to(REPO).as_posix()
        # CORRECT maps names to launches with a `file`, or lists the correct launches' file names
        named = getattr(module, "CORRECT", {})
        listed = named.values() if isinstance(named, dict) else named
        correct = {v if isinstance(v, str) else getattr(v, "file", None) for v in listed}
        seen: set[int] = set()
        entries = list(_launches([v for k, v in vars(module).items() if k.isupper()], seen))
        # modules that call check("NAME", "OPT", ...) inline (carriers, pd8)
        for match in _CALL.finditer(path.read_text()):
            options = tuple(re.findall(r'"([^"]*)"', match.group(2)))
            entries.append((match.group(1), options, ()))
        for file, options, args in entries:
            if not (cases_dir / file).is_file():
                continue
            case = Case(directory, file, options, args, correct=file in correct)
            if case not in found.setdefault(directory, []):
                found[directory].append(case)
    return found


def all_cases() -> list[Case]:
    """Every real case (each option set its tests use; a file no table names, with none), every correct
    launch of the false-alarm corpus (with no options) and the shipped example."""
    named = _module_cases()
    cases: list[Case] = []
    for directory in sorted(DATA.glob("real_cases*")):
        rel = directory.relative_to(REPO).as_posix()
        listed = named.get(rel, [])
        cases += listed
        files = {c.file for c in listed}
        for path in sorted(directory.iterdir()):
            if path.is_file() and path.suffix not in NOT_LAUNCHES and path.name not in files:
                cases.append(Case(rel, path.name, correct=path.name.startswith("ok_")))
    for kind, ext in FALSE_ALARM_KINDS.items():
        for path in sorted((DATA / "false_alarms" / kind).glob(f"*{ext}")):
            cases.append(Case(path.parent.relative_to(REPO).as_posix(), path.name, correct=True))
    cases.append(Case("examples", "launch_mtp.sh", args=("0", "30000")))
    return cases


# --- running argtrace as a user does ------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    status: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _new_user(cwd: Path) -> Iterator[None]:
    """A new user's machine (empty argtrace cache and Hugging Face home), working in ``cwd``."""
    saved = {k: os.environ.get(k) for k in ("ARGTRACE_CACHE_DIR", "HF_HOME", "HF_HUB_CACHE")}
    old = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="fixaudit-home-") as home:
        os.environ["ARGTRACE_CACHE_DIR"] = str(Path(home) / "argtrace-cache")
        os.environ["HF_HOME"] = str(Path(home) / "hf")
        os.environ.pop("HF_HUB_CACHE", None)
        os.chdir(cwd)
        try:
            yield
        finally:
            os.chdir(old)
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def argtrace(argv: Sequence[str], cwd: Path) -> Run:
    """``argtrace ARGV`` in-process (as tests/conftest.run_cli), on a new user's machine."""
    from argtrace.cli import main

    out, err = io.StringIO(), io.StringIO()
    with _new_user(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return Run(status, out.getvalue(), err.getvalue())


def command_of(path: Path) -> str:
    """A ``.cmd`` file's command: its lines after the leading ``#`` header (tests/conftest.check_launch)."""
    lines = path.read_text().splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def target(case: Case, command: str | None = None) -> list[str]:
    if command is not None:
        return [*case.options, "-c", command]
    return [*case.options, case.file, *case.args]


def check_stderr(case: Case, cwd: Path, command: str | None = None) -> str:
    return argtrace(["check", "--format", "json", *target(case, command)], cwd).stderr or "(nothing)"


def check(case: Case, cwd: Path, command: str | None = None) -> dict[str, Any] | None:
    run = argtrace(["check", "--format", "json", *target(case, command)], cwd)
    if not run.stdout.startswith("{"):
        return None
    report: dict[str, Any] = json.loads(run.stdout)
    return report


def every_finding(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [*report["findings"], *(c for f in report["findings"] for c in f.get("consequences", []))]


def key(finding: dict[str, Any]) -> str:
    return finding["code"] + (f" {finding['setting']}" if finding.get("setting") else "")


def alarm_keys(report: dict[str, Any]) -> list[str]:
    return [key(f) for f in every_finding(report) if f["severity"] in ALARMS]


# --- the checks on a patched launch ------------------------------------------------------------------


def carrier_valid(path: Path) -> tuple[bool, str]:
    """Whether the file still parses for what runs it (bash -n; YAML; systemd-analyze verify)."""
    text = path.read_text()
    if path.suffix in (".yaml", ".yml"):
        import yaml

        try:
            list(yaml.safe_load_all(text))
        except yaml.YAMLError as error:
            return False, f"YAML: {error}"
        return True, ""
    if path.suffix == ".service":
        tool = shutil.which("systemd-analyze")
        if tool is None:
            return True, ""
        done = subprocess.run([tool, "verify", str(path)], capture_output=True, text=True, check=False)
        bad = [line for line in done.stderr.splitlines() if "Unknown key" in line or "Invalid" in line]
        return not bad, "; ".join(bad)
    done = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, check=False)
    return done.returncode == 0, done.stderr.strip()


def _line(position: str) -> tuple[int, int]:
    line, col = position.split(":")
    return int(line), int(col)


def allowed_lines(edits: Sequence[dict[str, Any]]) -> dict[str, set[int]]:
    """The old-file lines each file's edits may change (an insertion: the line it goes before)."""
    allowed: dict[str, set[int]] = {}
    for edit in edits:
        if "file" not in edit:
            continue
        (sl, _), (el, ec) = _line(edit["start"]), _line(edit["end"])
        last = el if ec > 1 or el == sl else el - 1
        allowed.setdefault(edit["file"], set()).update(range(sl, max(last, sl) + 1))
    return allowed


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def diff_lines(diff: str) -> dict[str, set[int]]:
    """The old-file lines a unified diff removes or inserts before, by file."""
    touched: dict[str, set[int]] = {}
    name = ""
    old = 0
    removed = False
    for line in diff.splitlines():
        if line.startswith("--- "):
            name = line[4:].split("\t")[0]
            continue
        if line.startswith("+++ "):
            continue
        hunk = _HUNK.match(line)
        if hunk:
            old = int(hunk.group(1)) if hunk.group(2) != "0" else int(hunk.group(1)) + 1
            continue
        if line.startswith("-"):
            touched.setdefault(name, set()).add(old)
            old += 1
            removed = True
        elif line.startswith("+"):
            # lines added in place of removed ones change those; others are inserted before ``old``
            if not removed:
                touched.setdefault(name, set()).add(old)
        elif line.startswith(" ") or line == "":
            old += 1
            removed = False
    return touched


def apply_own(text: str, edits: Sequence[dict[str, Any]]) -> str:
    """``fix_edits`` of one file applied by this script's own code (positions are 1-based LINE:COL in
    characters, end exclusive, all on the text as read), from the last to the first."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: str) -> int:
        line, col = _line(position)
        return starts[min(line - 1, len(lines))] + col - 1

    for edit in sorted(edits, key=lambda e: offset(e["start"]), reverse=True):
        text = text[: offset(edit["start"])] + edit["replacement"] + text[offset(edit["end"]) :]
    return text


def _copy(case: Case, into: Path) -> Path:
    """The case's directory copied into ``into`` (the example under examples/); the cwd to run in."""
    source = REPO / case.directory
    if case.directory == "examples":
        shutil.copytree(source, into / "examples")
        return into
    shutil.copytree(source, into / "case", ignore=shutil.ignore_patterns("*.log"))
    return into / "case"


def _launch_path(case: Case, cwd: Path) -> Path:
    return cwd / case.directory / case.file if case.directory == "examples" else cwd / case.file


def _case_target(case: Case) -> Case:
    return (
        Case(case.directory, f"{case.directory}/{case.file}", case.options, case.args, case.correct)
        if (case.directory == "examples")
        else case
    )


_SECRET_ASSIGNMENT = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)=([\"']?)([^\"'\s]+)\2")


def _plant(case: Case, text: str, first_line: int) -> str:
    """The launch with a secret planted as tests/security plants them: every value the launch already
    assigns to a secret name (``HF_TOKEN="key"``) becomes the planted one, quotes kept, and an ``export
    HF_TOKEN=...`` goes just before the command the first edit is in (a script; a ``-c`` command: first;
    YAML and units: a comment at the top)."""
    from argtrace.redact import is_secret_name

    text = _SECRET_ASSIGNMENT.sub(
        lambda m: f"{m[1]}={m[2]}{PLANTED}{m[2]}" if is_secret_name(m[1]) else m[0], text
    )
    lines = text.splitlines(keepends=True)
    if case.file.endswith((".yaml", ".yml", ".service")):
        return f"# HF_TOKEN={PLANTED}\n" + text
    at = max(first_line - 1, 0)
    while at > 0 and lines[at - 1].rstrip("\r\n").endswith("\\"):
        at -= 1
    if case.file.endswith(".cmd"):
        at = 0
    return "".join(lines[:at]) + f"export HF_TOKEN={PLANTED}\n" + "".join(lines[at:])


def audit_case(case: Case, *, secrets: bool = True) -> Outcome:
    """The audit of one case: see the module's docstring."""
    outcome = Outcome(case.name)
    run_as = _case_target(case)
    with tempfile.TemporaryDirectory(prefix="fixaudit-") as tmp:
        work = _copy(case, Path(tmp) / "a")
        command = command_of(work / case.file) if case.file.endswith(".cmd") else None
        before = check(run_as, work, command)
        if before is None:
            outcome.no_report = check_stderr(run_as, work, command).splitlines()[0][:200]
            return outcome
        findings = every_finding(before)
        verified = [f for f in findings if f.get("fix_verified") is True]
        outcome.verified = [key(f) for f in verified]
        outcome.unverified = [key(f) for f in findings if f.get("fix_verified") is False]
        outcome.info_edits = [key(f) for f in findings if f.get("fix_edits") and f["severity"] == "info"]
        if case.correct:
            outcome.fix_on_correct = outcome.verified[:]
            printed = argtrace(["fix", *target(run_as, command)], work)
            if printed.stdout or printed.status != 0:
                outcome.fix_on_correct.append(
                    f"fix printed: {printed.stdout[:200]!r} (status {printed.status})"
                )
        for finding in findings:
            if finding.get("fix_verified") is False and _would_work(run_as, work, command, before, finding):
                outcome.missed_verification.append(key(finding))
        if verified:
            _audit_fix(case, run_as, Path(tmp), command, before, verified, outcome, secrets=secrets)
    return outcome


def _would_work(
    case: Case, work: Path, command: str | None, before: dict[str, Any], finding: dict[str, Any]
) -> bool:
    """Whether a finding's edits, applied alone by this script, lose it with no new error or warning
    (environment items are passed as ``--env``; an unset is not tried)."""
    edits = finding["fix_edits"]
    if any("env" in e and e["value"] is None for e in edits):
        return False
    with tempfile.TemporaryDirectory(prefix="fixaudit-own-") as tmp:
        copy = Path(tmp) / "w"
        shutil.copytree(work, copy)
        new_command = command
        by_file: dict[str, list[dict[str, Any]]] = {}
        for edit in edits:
            if "file" in edit:
                by_file.setdefault(edit["file"], []).append(edit)
        for name, items in by_file.items():
            if name == "<-c>":
                new_command = apply_own(command or "", items)
            else:
                path = copy / name
                path.write_text(apply_own(path.read_text(), items))
        env = [x for e in edits if "env" in e for x in ("--env", f"{e['env']}={e['value']}")]
        after = check(Case(case.directory, case.file, (*env, *case.options), case.args), copy, new_command)
    if after is None:
        return False
    return _gone(before, after, [finding]) and not _new(before, after)


def _gone(before: dict[str, Any], after: dict[str, Any], verified: list[dict[str, Any]]) -> bool:
    """Each verified finding's key is at least that many fewer times among the errors and warnings."""
    was, now = alarm_keys(before), alarm_keys(after)
    fixed = [key(f) for f in verified if f["severity"] in ALARMS]
    return all(now.count(k) <= was.count(k) - fixed.count(k) for k in set(fixed))


def _new(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The errors and warnings (code and setting) the patched launch has more of than the launch had."""
    was, now = alarm_keys(before), alarm_keys(after)
    return sorted({k for k in now if now.count(k) > was.count(k)})


def _audit_fix(
    case: Case,
    run_as: Case,
    tmp: Path,
    command: str | None,
    before: dict[str, Any],
    verified: list[dict[str, Any]],
    outcome: Outcome,
    *,
    secrets: bool,
) -> None:
    patched_dir = _copy(case, tmp / "p")
    written_dir = _copy(case, tmp / "w")
    fix = argtrace(["fix", *target(run_as, command)], patched_dir)
    launch = _launch_path(case, patched_dir)
    new_command: str | None = None
    if command is not None:
        new_command = fix.stdout.rstrip("\n") if fix.stdout else None
        outcome.applies = bool(new_command)
        if not new_command:
            outcome.problems.append(f"fix -c printed no command: {fix.stderr.strip()[:300]}")
            return
    else:
        (patched_dir / "p.diff").write_text(fix.stdout)
        done = subprocess.run(
            ["patch", "-p0", "--batch", "-i", "p.diff"],
            cwd=patched_dir,
            capture_output=True,
            text=True,
            check=False,
        )
        argtrace(["fix", "--write", *target(run_as)], written_dir)
        outcome.masked = "does not apply as printed" in fix.stderr
        if outcome.masked:
            # documented: a diff holding a secret is masked; the user is told to use --write, so the
            # written file is the one re-checked
            shutil.rmtree(patched_dir)
            shutil.copytree(written_dir, patched_dir)
            done = subprocess.CompletedProcess([], 0, "", "")
        same = _launch_path(case, written_dir).read_text() == launch.read_text()
        outcome.applies = done.returncode == 0 and same
        if done.returncode != 0:
            outcome.problems.append(f"patch -p0: {(done.stdout + done.stderr).strip()[:300]}")
        elif not same:
            outcome.problems.append("--write and patch -p0 give different files")
    after = check(run_as, patched_dir, new_command)
    if after is None:
        outcome.problems.append("the patched launch gives no report")
        return
    outcome.gone = _gone(before, after, verified)
    if not outcome.gone:
        outcome.problems.append(f"still there: {sorted(set(alarm_keys(after)) & {key(f) for f in verified})}")
    new = _new(before, after)
    outcome.no_new = not new
    if new:
        outcome.problems.append(f"new: {new}")
    if new_command is not None:
        done = subprocess.run(["bash", "-n", "-c", new_command], capture_output=True, text=True, check=False)
        outcome.valid, why = done.returncode == 0, done.stderr.strip()
    else:
        outcome.valid, why = carrier_valid(launch)
    if not outcome.valid:
        outcome.problems.append(f"invalid: {why[:300]}")
    if command is not None and new_command is not None:
        # the printed command is the command with the verified edits applied (by this script's own code)
        own = list(dict.fromkeys(json.dumps(e, sort_keys=True) for f in verified for e in f["fix_edits"]))
        edits = [e for e in map(json.loads, own) if e.get("file") == "<-c>"]
        outcome.scoped = apply_own(command, edits) == new_command
        if not outcome.scoped:
            outcome.problems.append(f"the fixed command is not the command with its edits: {new_command!r}")
    if command is None:
        allowed = allowed_lines([e for f in verified for e in f["fix_edits"]])
        touched = diff_lines(fix.stdout)
        stray = {name: sorted(lines - allowed.get(name, set())) for name, lines in touched.items()}
        stray = {name: lines for name, lines in stray.items() if lines}
        outcome.scoped = not stray
        if stray:
            outcome.problems.append(f"lines no edit names: {stray}")
    if secrets:
        _audit_secrets(case, run_as, tmp, command, verified, outcome)


_MASK = re.compile(r"<redacted:[0-9a-f]{8}>")


def _audit_secrets(
    case: Case, run_as: Case, tmp: Path, command: str | None, verified: list[dict[str, Any]], outcome: Outcome
) -> None:
    """A secret planted next to the edited command: masked in what ``fix`` and ``check`` print (the fix
    text with the mask the diff shows), kept by ``--write``."""
    from argtrace.redact import mask

    planted_dir = _copy(case, tmp / "s")
    path = planted_dir / case.file if case.directory != "examples" else planted_dir / "examples" / case.file
    first = min(
        (
            _line(e["start"])[0]
            for f in verified
            for e in f["fix_edits"]
            if e.get("file") not in (None, "<-c>")
        ),
        default=1,
    )
    planted_command = None
    if command is not None:
        planted_command = _plant(case, command + "\n", 1).rstrip("\n")
    else:
        path.write_text(_plant(case, path.read_text(), first))
    outputs = {
        " ".join(argv[:3]): argtrace([*argv, *target(run_as, planted_command)], planted_dir)
        for argv in (
            ["fix"], ["fix", "--format", "json"], ["check"], ["check", "--format", "json"],
            ["check", "--format", "sarif"],
        )
    }  # fmt: skip
    leaked = [name for name, run in outputs.items() if PLANTED in run.stdout + run.stderr]
    # equal secrets give equal masks: the fix text shows the value's mask, the one the diff shows
    fixed = "".join(line for line in outputs["fix"].stderr.splitlines() if line.startswith("fixed:"))
    shown = set(_MASK.findall(outputs["fix"].stdout)) | {mask(PLANTED)}
    strange = sorted(set(_MASK.findall(fixed)) - shown)
    if strange:
        outcome.problems.append(f"the fix text shows masks of no value in the diff: {strange}")
    # a masked diff may be written with --write; a masked -c command cannot: the note must say which
    note = outputs["fix"].stderr
    if "<redacted:" in outputs["fix"].stdout:
        outcome.masked_note_right = ("this diff does not apply" in note) == (command is None)
    kept = True
    if command is None:
        # the printed diff, applied with patch -p0 to another planted copy, gives --write's file
        patched = tmp / "sp"
        shutil.copytree(planted_dir, patched)
        done = subprocess.run(
            ["patch", "-p0", "--batch"],
            input=outputs["fix"].stdout,
            cwd=patched,
            capture_output=True,
            text=True,
        )
        argtrace(["fix", "--write", *target(run_as)], planted_dir)
        kept = PLANTED in path.read_text() and "<redacted" not in path.read_text()
        outcome.planted_applies = done.returncode == 0 and (
            patched / path.relative_to(planted_dir)
        ).read_text() == (path.read_text())
    outcome.secrets = not leaked and kept and not strange
    if leaked:
        outcome.problems.append(f"planted secret printed by {leaked}")
    if not kept:
        outcome.problems.append("--write lost the planted secret")


# --- the whole audit -------------------------------------------------------------------------------------

QUESTIONS = ("applies", "gone", "no_new", "valid", "scoped", "secrets")


def summary(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The figures: cases, verified findings, and for each question how many fixed cases pass/fail."""
    fixed = [o for o in outcomes if o.verified]
    figures: dict[str, Any] = {
        "cases": len(outcomes),
        "cases_with_a_verified_fix": len(fixed),
        "verified_findings": sum(len(o.verified) for o in outcomes),
        "unverified_findings": sum(len(o.unverified) for o in outcomes),
        "missed_verifications": sum(len(o.missed_verification) for o in outcomes),
        "fixes_on_correct_launches": sum(len(o.fix_on_correct) for o in outcomes),
        "notes_with_an_edit": sum(len(o.info_edits) for o in outcomes),
        "masked_diffs": sum(o.masked for o in outcomes),
        "no_report": sum(bool(o.no_report) for o in outcomes),
        "masked_notes_right": {
            "pass": sum(o.masked_note_right is True for o in outcomes),
            "fail": sum(o.masked_note_right is False for o in outcomes),
        },
        "planted_diffs_that_apply": {
            "pass": sum(o.planted_applies is True for o in outcomes),
            "fail": sum(o.planted_applies is False for o in outcomes),
        },
    }
    for question in QUESTIONS:
        answers = [getattr(o, question) for o in fixed if getattr(o, question) is not None]
        figures[question] = {"pass": answers.count(True), "fail": answers.count(False)}
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write every outcome and the figures here")
    parser.add_argument("--only", nargs="*", default=(), help="only cases whose name contains one of these")
    parser.add_argument("--no-secrets", action="store_true", help="skip question 5 (planted secrets)")
    args = parser.parse_args(argv)
    cases = [c for c in all_cases() if not args.only or any(s in c.name for s in args.only)]
    outcomes: list[Outcome] = []
    for case in cases:
        try:
            outcome = audit_case(case, secrets=not args.no_secrets)
        except Exception as error:  # one broken case must not hide the others' figures
            outcome = Outcome(case.name, problems=[f"crash: {type(error).__name__}: {error}"])
        outcomes.append(outcome)
        if (
            outcome.verified
            or outcome.problems
            or outcome.missed_verification
            or outcome.fix_on_correct
            or outcome.no_report
        ):
            print(json.dumps(asdict(outcome)), flush=True)
    figures = summary(outcomes)
    print(json.dumps(figures, indent=1))
    if args.json:
        args.json.write_text(
            json.dumps({"figures": figures, "outcomes": [asdict(o) for o in outcomes]}, indent=1)
        )
    failed = any(figures[q]["fail"] for q in QUESTIONS) or figures["fixes_on_correct_launches"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
