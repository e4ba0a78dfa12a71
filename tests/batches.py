"""What the real-case batch modules share: one run of ``argtrace log``/``why`` per recorded input, and the
batches' case rows and per-case assertions.

A batch asserts several things on one recorded input (what it gives, whether its first screen names the
cause, that another path or encoding reads it alike); each used to run the command again, and the same
input's run is its CPU time several times over. A run here is made once per test worker and process-wide
reused: the input is a file under ``tests/data`` (read-only), and the machine is a new user's (the batches'
``new_user_machine`` fixture: no resolver environments, no Hugging Face cache), asserted on every call, so
the answer cannot depend on which test asked first. Each caller gets its own parsed copy, so one test
cannot change what another reads.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.layers.log.signatures import match_line
from tests.conftest import (
    REPO,
    Launch,
    alarms,
    check_launch,
    last_launch,
    log_files,
    names_the_cause_and_the_change,
    quoted_text,
    run_cli,
)

DATA = REPO / "tests" / "data"


def _on_a_new_users_machine(path: Path) -> None:
    # a run is only shared when nothing else could change it: a recorded input, no resolver environments
    # nor Hugging Face cache (tests/conftest.py's new_user_machine points both into the test's tmp_path)
    assert path.resolve().is_relative_to(DATA), f"{path}: not a recorded input under tests/data"
    assert os.environ.get("ARGTRACE_CACHE_DIR", "").endswith("/argtrace-cache"), "needs new_user_machine"
    assert os.environ.get("HF_HOME", "").endswith("/hf"), "needs new_user_machine"


@functools.cache
def _log_stdout(path: Path) -> str:
    result = run_cli(["log", "--format", "json", str(path)])
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    return result.stdout


def recorded_log_report(path: Path) -> dict[str, Any]:
    """``argtrace log --format json PATH``'s report on a recorded log (tests/conftest.py's ``log_report``),
    run once per worker."""
    _on_a_new_users_machine(path)
    report: dict[str, Any] = json.loads(_log_stdout(path.resolve()))
    return report


@functools.cache
def _checked(cases: Path, launch: Launch) -> str:
    return json.dumps(check_launch(cases, launch))


def recorded_check(cases: Path, launch: Launch) -> dict[str, Any]:
    """``argtrace check --format json`` on a batch's recorded launch as a new user runs it
    (tests/conftest.py's ``check_launch``), run once per worker."""
    _on_a_new_users_machine(cases / launch.file)
    report: dict[str, Any] = json.loads(_checked(cases.resolve(), launch))
    return report


@functools.cache
def case_why(cases: Path, name: str) -> dict[str, Any]:
    """``why`` on the error text a batch keeps beside case ``name``: ``cases/why/<name without its
    suffix>.txt``."""
    return recorded_why(cases / "why" / (name.rsplit(".", 1)[0] + ".txt"))


def _explained(path: Path) -> dict[str, Any]:
    section: dict[str, Any] = explain(quoted_text(path))
    return section


def recorded_why(path: Path) -> dict[str, Any]:
    """``explain`` (``argtrace why``'s section) on a why batch's pasted text (tests/conftest.py's
    ``quoted_text``), run once per worker; the caller's copy is its own."""
    _on_a_new_users_machine(path)
    return copy.deepcopy(_explained(path.resolve()))


# --- every batch's inventory ------------------------------------------------------------------------------

RECONSTRUCTED = "# Reconstructed (not copied) after https://"


def table_counts(classes: Mapping[str, tuple[str, str]]) -> tuple[list[int], list[int]]:
    """How many of a batch's cases were in each class a, b, c, d before its fixes and after them, from its
    ``name -> (before, after)`` table (tests/conftest.py's ``class_counts`` for case objects)."""
    before = [sum(c[0] == k for c in classes.values()) for k in "abcd"]
    after = [sum(c[1] == k for c in classes.values()) for k in "abcd"]
    return before, after


def unsourced(cases: Path, *, lines: int = 1, prefix: str = "", recursive: bool = False) -> list[str]:
    """The case files under ``cases`` whose header (the first ``lines`` lines after a ``#!`` line) names no
    source URL, or none starting with ``prefix``: every real case says where it came from."""
    found = cases.rglob("*") if recursive else cases.iterdir()
    missing: list[str] = []
    for path in sorted(p for p in found if p.is_file()):
        text = path.read_text(encoding="utf-8").splitlines()
        head = text[1 : 1 + lines] if text[:1] and text[0].startswith("#!") else text[:lines]
        if not any("https://" in line and line.startswith(prefix) for line in head):
            missing.append(str(path.relative_to(cases)))
    return missing


# a log batch's header line (logs18 on): the report's URL, and how the stored copy was cut
_LOG_SOURCE = re.compile(
    r"# source: (https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+) \(posted 20\d\d[-\d]*; the "
    r"stored copy as given, cut as the test module notes\)$"
)


def log_sources(logs: Path) -> list[str]:
    """The report URL in the header line of every log under ``logs``; each must have one, and no signature
    may read that line (it would be taken for the server's)."""
    urls: list[str] = []
    for path in sorted(logs.rglob("*.log")):
        head = path.read_text(encoding="utf-8").splitlines()[0]
        found = _LOG_SOURCE.match(head)
        assert found, path.name
        assert match_line(head, framework=None, stage=None) is None, path.name
        urls.append(found.group(1))
    return urls


# --- the log batches (tests/test_real_cases_logs_3.py to _6.py) --------------------------------------------


@dataclass(frozen=True)
class LogCase:
    """A real log of a batch and what ``argtrace log`` gives now: the exact (code, severity) list, the
    framework it reads (``version``: the release, where the batch asserts it), the last launch's state and
    stage; ``says``/``fix``: the first finding's message holds ``says`` and its fix is ``fix``.
    ``before``/``after``: the class first seen and now. ``cause``/``change``: what a first screen of class a
    would hold (an alarm's message, its fix); ``missing``: the mechanism it lacks."""

    file: str
    before: str
    after: str
    findings: tuple[tuple[str, str], ...]
    framework: str | None
    state: str | None
    stage: str | None
    says: str
    fix: str | None
    cause: str = ""
    change: str = ""
    missing: str = ""
    version: str | None = None


def not_class_a(cases: list[LogCase]) -> list[Any]:
    """The cases not in class a, each a strict xfail naming what it lacks (``missing``), by file."""
    return [
        pytest.param(c, id=c.file, marks=pytest.mark.xfail(strict=True, reason=c.missing))
        for c in cases
        if c.after != "a"
    ]


def missing_cases(missing: Mapping[str, tuple[str, str]]) -> list[Any]:
    """The names of ``missing`` (name -> (word the cause's alarm must hold, what argtrace lacks)), sorted,
    each a strict xfail naming what it lacks."""
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=missing[name][1]))
        for name in sorted(missing)
    ]


def assert_what_the_log_gives(report: dict[str, Any], case: LogCase, *, version: bool = False) -> None:
    """The batches' per-case assertions: the report is JSON as given, the exact findings, the framework
    (and release with ``version``), the last launch's state and stage (a case without a launch has
    neither), the first finding's message and fix, and no LG001 "died before it logged its configuration"
    (every file of a batch is a server's, past that line)."""
    json.dumps(report)  # the public JSON contract: serialisable as given
    assert tuple((f["code"], f["severity"]) for f in report["findings"]) == case.findings
    assert report["log"]["framework"] == case.framework
    if version:
        assert report["log"]["version"] == case.version
    if report["log"]["launches"]:
        last = last_launch(report)
        assert (last["state"], last["stage"]) == (case.state, case.stage)
    else:
        assert (case.state, case.stage) == (None, None)
    if case.findings:
        first = report["findings"][0]
        assert case.says in first["message"]
        assert first["fix"] == case.fix
    assert not any(f["code"] == "LG001" for f in report["findings"])


def log_batch_tests(
    logs: Path,
    cases: list[LogCase],
    ok_logs: Mapping[str, tuple[tuple[tuple[str, str], ...], str]],
    why: Mapping[str, tuple[Any, ...]],
    *,
    sources: int,
) -> dict[str, Any]:
    """The tests every log batch (tests/test_real_cases_logs25.py on) runs on its own rows, by the names the
    batches gave them; a batch module takes them with ``globals().update(log_batch_tests(...))`` and keeps
    only what is its own (its counts, its mechanisms' minimal inputs).

    ``ok_logs``: a working run's file under ``ok/`` -> (its exact (code, severity) list, words its first
    finding says). ``why``: an error text's name under ``why/`` -> (confidence, the first site's function or
    None, the signatures' ids in order[, words the first site's fix holds, or None: then a text no signature
    reads has no site either])."""

    def test_every_log_has_its_source_in_a_header_no_pattern_reads() -> None:
        urls = log_sources(logs)
        assert len(set(urls)) == len(urls) == sources

    @pytest.mark.parametrize("case", cases, ids=[c.file for c in cases])
    def test_what_each_log_gives(case: LogCase) -> None:
        report = recorded_log_report(logs / case.file)
        assert_what_the_log_gives(report, case, version=case.version is not None)

    def test_class_a_names_the_cause_and_the_change() -> None:
        for case in (c for c in cases if c.after == "a"):
            assert names_the_cause_and_the_change(
                recorded_log_report(logs / case.file), case.cause, case.change
            )

    @pytest.mark.parametrize("case", not_class_a(cases))
    def test_the_first_screen_names_the_cause_and_the_change(case: LogCase) -> None:
        assert names_the_cause_and_the_change(recorded_log_report(logs / case.file), case.cause, case.change)

    @pytest.mark.parametrize("name", sorted(ok_logs))
    def test_working_launches_give_no_alarm(name: str) -> None:
        report = recorded_log_report(logs / "ok" / name)
        found, said = ok_logs[name]
        assert tuple((f["code"], f["severity"]) for f in report["findings"]) == found
        if found:
            assert said in report["findings"][0]["message"]
        assert alarms(report) == []

    @pytest.mark.parametrize("name", sorted(why))
    def test_why_on_the_error_text(name: str) -> None:
        confidence, function, signatures, *fixes = why[name]
        section = recorded_why(logs / "why" / f"{name}.txt")
        assert section["confidence"] == confidence
        first = (section["matches"] or [{}])[0]
        assert first.get("function") == function
        assert [s["id"] for s in section["signatures"]] == signatures
        if fixes and fixes[0] is not None:
            assert fixes[0] in first["fix"]
        elif fixes and not signatures:
            assert not section["matches"]

    @pytest.mark.parametrize("name", sorted(log_files(logs)))
    def test_every_scan_path_gives_the_same_report(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
        from tests.log.test_fast_equals_slow import _answers

        answers = _answers(logs / name, monkeypatch)
        slow = answers.pop("python")
        for fast_path, report in answers.items():
            assert report == slow, fast_path

    return {name: test for name, test in locals().items() if name.startswith("test_")}


# --- the why batches (tests/test_why_9.py, _10, _15, _16) -------------------------------------------------


@dataclass(frozen=True)
class WhyCase:
    """A why batch's pasted text and what ``argtrace why`` gives now."""

    name: str  # tests/data/<batch>/<name>.txt
    before: str  # the class on the batch's base (docs/real_cases.md)
    grade: str  # the class after the batch's fixes
    function: str | None  # the first site's function; None: no site
    confidence: str
    at: str = ""  # the first site's file:line
    settings: tuple[str, ...] = ()
    fix: str = ""  # the start of the first site's fix
    origin: str | None = None  # the start of the origin `why` names
    flag: str | None = None  # the flag the section's ``flag_from`` part ties the error to
    frame: tuple[str, str, str] | None = None  # (state, file, function) read from a traceback


def assert_why_gives(
    section: dict[str, Any], case: WhyCase, *, origin: bool = True, flag_from: str = "", frame: bool = False
) -> None:
    """The why batches' per-case assertions: the confidence; with ``origin`` the origin `why` names (its
    start, or none); with ``flag_from`` (``attribute``, ``validation``) that part's flag; with ``frame`` the
    traceback's (state, file, function); then the first site: none, or its function and file:line, its
    settings and the start of its fix."""
    first = (section["matches"] or [None])[0]
    assert section["confidence"] == case.confidence
    if origin:
        said = (section["origin"] or {}).get("origin") or ""
        assert said.startswith(case.origin or "") and bool(said) == (case.origin is not None)
    if flag_from:
        assert (section.get(flag_from) or {}).get("flag") == case.flag
    if frame:
        trace = section.get("traceback")
        assert (
            (trace["state"], trace["file"], trace["function"]) == case.frame if trace else case.frame is None
        )
    if case.function is None:
        assert first is None
        return
    assert first is not None
    assert (first["function"], f"{first['file']}:{first['line']}") == (case.function, case.at)
    assert tuple(s["name"] for s in first["settings"]) == case.settings
    assert first["fix"].startswith(case.fix)


def batch_grades(cases: list[WhyCase]) -> tuple[list[int], list[int]]:
    """How many of a why batch's cases were in each class a, b, c, d before its fixes and after them."""
    return [sum(c.before == g for c in cases) for g in "abcd"], [
        sum(c.grade == g for c in cases) for g in "abcd"
    ]


# --- the check batches (tests/test_real_cases_transport4.py, transport5, carriers3) -------------------------


def shown(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(severity, code, basis) of a report's errors and warnings, causes and consequences (a consequence is
    shown without its basis: the JSON gives it as code, place, message, severity and layer)."""
    return [(f["severity"], f["code"], f.get("basis", "-")) for f in alarms(report)]


def shown_codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(code, severity) of each error and warning the report shows (tests/conftest.py's ``alarms``)."""
    return [(f["code"], f["severity"]) for f in alarms(report)]


def why_with_release(cases: Path, name: str, releases: Mapping[str, str]) -> dict[str, Any]:
    """``argtrace why --format json``'s section on a batch's pasted text, with ``--framework-version`` when
    the report names its release (``releases``)."""
    release = ["--framework-version", releases[name]] if name in releases else []
    result = run_cli(["why", "--format", "json", *release, quoted_text(cases / name)])
    assert result.stdout.startswith("{"), result.stderr
    section: dict[str, Any] = result.json["why"]
    return section


def finding(report: dict[str, Any], code: str) -> dict[str, Any]:
    """The first finding of ``code`` (there must be one)."""
    found = [f for f in report["findings"] if f["code"] == code]
    assert found, [f["code"] for f in report["findings"]]
    return found[0]


@dataclass(frozen=True)
class CheckBatch:
    """A `check` batch (tests/test_real_cases_mixed34.py on): its inputs under ``cases``, each failure's class
    first seen and now, its correct launches, each launch's `check` options, and the errors and warnings a
    launch shows that the batch keeps as true (``alarms``; every other launch shows none)."""

    cases: Path
    classes: Mapping[str, tuple[str, str]]
    correct: list[str]
    options: Mapping[str, tuple[str, ...]]
    counts: tuple[list[int], list[int]]
    alarms: Mapping[str, list[tuple[str, str]]] = dataclass_field(default_factory=dict)
    why_prefix: str = "# https://github.com/"
    seen: str = "2026-12-05"

    def check(self, name: str) -> dict[str, Any]:
        return recorded_check(self.cases, Launch(name, self.options.get(name, ())))

    def why(self, name: str) -> dict[str, Any]:
        return case_why(self.cases, name)

    def tests(self) -> dict[str, Any]:
        """The tests every such batch runs, by the names the batches gave them; a batch module takes them with
        ``globals().update(BATCH.tests())``."""
        batch = self

        def test_inventory_and_counts() -> None:
            files = {p.name for p in batch.cases.iterdir() if p.is_file()}
            assert files == set(batch.classes) | set(batch.correct)
            quoted = {p.name.rsplit(".", 1)[0] for p in (batch.cases / "why").iterdir()}
            assert quoted <= {n.rsplit(".", 1)[0] for n in batch.classes}
            assert table_counts(batch.classes) == batch.counts

        def test_every_case_names_its_source() -> None:
            assert unsourced(batch.cases, prefix=RECONSTRUCTED) == []
            for path in sorted(p for p in batch.cases.iterdir() if p.is_file()):
                assert f", seen {batch.seen}: " in path.read_text(encoding="utf-8").splitlines()[0], path.name
            assert unsourced(batch.cases / "why", prefix=batch.why_prefix) == []

        @pytest.mark.parametrize("name", batch.correct)
        def test_correct_launches_stay_clean(name: str) -> None:
            assert shown_codes(batch.check(name)) == batch.alarms.get(name, [])

        @pytest.mark.parametrize("name", sorted(batch.classes))
        def test_no_alarm_is_wrong(name: str) -> None:
            """No wrong alarm from `check` on any failure report: only the batch's ``alarms``."""
            assert shown_codes(batch.check(name)) == batch.alarms.get(name, [])

        return {name: test for name, test in locals().items() if name.startswith("test_")}

    def why_tests(self, table: Mapping[str, tuple[str, str, str]]) -> dict[str, Any]:
        """The test of what `why` gives on each quoted text (``why/NAME.txt``): ``table`` maps a case to (its
        confidence, the start of the wording's origin or of the first site's function, the start of that
        site's fix or ``""``); an empty start means no origin and no site."""
        batch = self

        @pytest.mark.parametrize("name", sorted(table))
        def test_what_why_gives_on_the_quoted_text(name: str) -> None:
            confidence, start, fix = table[name]
            section = batch.why(name)
            assert section["confidence"] == confidence
            origin = (section.get("origin") or {}).get("origin") or ""
            first = (section["matches"] or [None])[0]
            said = origin or (first["function"] if first else "")
            assert said.startswith(start) and bool(said) == bool(start)
            if fix:
                assert first is not None and first["fix"].startswith(fix)

        return {"test_what_why_gives_on_the_quoted_text": test_what_why_gives_on_the_quoted_text}


# --- the correct-launch sweeps (tests/test_real_cases_fa33.py on) ------------------------------------------


@dataclass(frozen=True)
class SweepBatch:
    """A sweep of correct launches (tests/test_real_cases_fa33.py on): its reconstructed inputs under
    ``cases``, each checked as a new user with no options. ``clean``: launch -> servers found, each with no
    error or warning; ``kept``: launch -> (servers, the exact (code, severity, message) of the errors and
    warnings it keeps, true for the launch as its source writes it); ``not_read``: launches read as no
    server, and so with no alarm; ``missed``: launch -> what argtrace lacks to read it (a strict xfail);
    ``others``: the batch's other files (what a case sources or runs, cases its module asserts on its own).
    Every file names its source in its first three lines after ``header`` (a Markdown page's header is an
    HTML comment)."""

    cases: Path
    clean: Mapping[str, int]
    kept: Mapping[str, tuple[int, list[tuple[str, str, str]]]] = dataclass_field(default_factory=dict)
    not_read: tuple[str, ...] = ()
    missed: Mapping[str, str] = dataclass_field(default_factory=dict)
    others: tuple[str, ...] = ()
    header: str = "Reconstructed (not copied) after https://"
    # the name the kept launches' test has in the batch (fa35 named it for its cases)
    kept_test: str = "test_a_launch_the_source_breaks_keeps_its_findings"

    def report(self, name: str, *options: str) -> dict[str, Any]:
        """``argtrace check --format json`` on launch ``name`` as a new user runs it, once per worker."""
        return recorded_check(self.cases, Launch(name, tuple(options)))

    def tests(self) -> dict[str, Any]:
        """The tests every sweep runs, by the names the sweeps gave them (a group with no rows is left out,
        so no empty parametrisation is collected); a sweep module takes them with
        ``globals().update(BATCH.tests())``."""
        batch = self

        def test_every_case_is_listed_and_names_its_source() -> None:
            files = sorted(str(p.relative_to(batch.cases)) for p in batch.cases.rglob("*") if p.is_file())
            listed = [*batch.clean, *batch.kept, *batch.not_read, *batch.missed, *batch.others]
            assert files == sorted(listed)
            for name in files:
                lines = (batch.cases / name).read_text(encoding="utf-8").splitlines()
                prefix = "<!-- " if name.endswith(".md") else "# "
                assert any(line.startswith(prefix + batch.header) for line in lines[:3]), name

        @pytest.mark.parametrize("name", sorted(batch.clean))
        def test_a_correct_launch_gets_no_error_or_warning(name: str) -> None:
            report = batch.report(name)
            assert len(report["servers"]) == batch.clean[name]
            assert alarms(report) == []

        @pytest.mark.parametrize("name", list(batch.not_read))
        def test_a_launch_not_read_says_nothing_wrong(name: str) -> None:
            report = batch.report(name)
            assert report["servers"] == [] and alarms(report) == []

        @pytest.mark.parametrize("name", sorted(batch.kept))
        def test_a_launch_the_source_breaks_keeps_its_findings(name: str) -> None:
            report = batch.report(name)
            servers, said = batch.kept[name]
            assert len(report["servers"]) == servers
            assert [(f["code"], f["severity"], f["message"]) for f in alarms(report)] == said

        @pytest.mark.parametrize(
            "name",
            [
                pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=batch.missed[name]))
                for name in sorted(batch.missed)
            ],
        )
        def test_a_correct_launch_not_read_yet(name: str) -> None:
            report = batch.report(name)
            assert report["servers"] and alarms(report) == []

        groups = {
            "test_a_launch_not_read_says_nothing_wrong": batch.not_read,
            "test_a_launch_the_source_breaks_keeps_its_findings": batch.kept,
            "test_a_correct_launch_not_read_yet": batch.missed,
        }
        found = {
            name: test
            for name, test in locals().items()
            if name.startswith("test_") and (name not in groups or groups[name])
        }
        if batch.kept:
            found[batch.kept_test] = found.pop("test_a_launch_the_source_breaks_keeps_its_findings")
            found[batch.kept_test].__name__ = batch.kept_test
        return found


def check_case(
    cases: Path, name: str, options: tuple[str, ...] = (), script_args: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``argtrace check --format json`` on one case of the 2025-2026 batches (platforms, sgl26, vllm26,
    sgl17, vllm17), from the case's directory: a ``.cmd`` file's command with ``-c``, its ``#`` lines
    dropped wherever they stand; any other file by its name, then ``script_args``. ``options`` (the release
    or GPU a report names) come first."""
    path = cases / name
    if path.suffix == ".cmd":
        lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
        target = ["-c", "\n".join(lines).strip("\n")]
    else:
        target = [name, *script_args]
    result = run_cli(["check", "--format", "json", *options, *target], cwd=cases)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report
