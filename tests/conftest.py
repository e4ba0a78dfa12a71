"""Shared test helpers: run the real CLI in-process and read its JSON."""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from argtrace.cli import main


@dataclass
class CliResult:
    status: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)

    def codes(self) -> list[str]:
        """Every finding's code, a cause's consequences (argtrace/causes.py) right after it."""
        out: list[str] = []
        for finding in self.json["findings"]:
            out += [finding["code"], *(c["code"] for c in finding.get("consequences", []))]
        return out


@contextlib.contextmanager
def _as_a_shell_would() -> Iterator[None]:
    """argtrace as started from a shell, not from inside a test: pytest's ``PYTEST_CURRENT_TEST`` (a new value
    for every test and phase) is not in the environment a launch inherits. With it, no two tests'
    resolutions would have the same environment, so none could share a resolver host
    (argtrace/resolver/hosts.py serves only runs whose whole environment equals the host's)."""
    current = os.environ.pop("PYTEST_CURRENT_TEST", None)
    try:
        yield
    finally:
        if current is not None:
            os.environ["PYTEST_CURRENT_TEST"] = current


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    with _as_a_shell_would():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: Any, request: pytest.FixtureRequest) -> Any:
    with _as_a_shell_would():
        return (yield)


@contextlib.contextmanager
def _chdir(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_cli(argv: Sequence[str], cwd: Path | None = None) -> CliResult:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        if cwd is None:
            status = main(list(argv))
        else:
            with _chdir(cwd):
                status = main(list(argv))
    return CliResult(status, out.getvalue(), err.getvalue())


@dataclass(frozen=True)
class Launch:
    """A launch as a public report gives it (tests/test_real_cases_N.py): the file and the options a new user
    would pass (the release or GPU the report names)."""

    file: str
    options: tuple[str, ...] = ()


def check_launch(cases: Path, launch: Launch) -> dict[str, Any]:
    """``argtrace check --format json`` on a real case as a new user runs it, from the case's directory: a
    ``.cmd`` file's command with ``-c`` (its header comment lines dropped), any other file by its name."""
    path = cases / launch.file
    if path.suffix == ".cmd":
        lines = path.read_text().splitlines()
        while lines and lines[0].startswith("#"):
            lines.pop(0)
        target = ["-c", "\n".join(lines).strip("\n")]
    else:
        target = [path.name]
    result = run_cli(["check", "--format", "json", *launch.options, *target], cwd=path.parent)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


@dataclass(frozen=True)
class Missed:
    """A real case whose root cause no error or warning names (batches 6-9); ``why`` is the mechanism it
    lacks. ``besides`` are the codes that fire for another reason (true of the posted launch on this
    machine), so they do not count as finding it."""

    name: str
    why: str
    besides: tuple[str, ...] = ()


FRAMEWORK_BUG = "a bug in the framework's code at that release, not in the launch: no launch check can see it"


def v(release: str) -> tuple[str, ...]:
    """The option a report naming its release gives a new user (the batches' ``LAUNCHES`` tables)."""
    return ("--framework-version", release)


def quoted_text(path: Path) -> str:
    """A `why` batch's pasted error text: the file after its first line, which cites the source URL."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# https://github.com/")
    return "\n".join(lines[1:])


def quoted_url(path: Path) -> str:
    """The source URL a `why` batch's text file cites on its first line."""
    return path.read_text(encoding="utf-8").splitlines()[0].split()[1]


def last_launch(report: dict[str, Any]) -> dict[str, Any]:
    launches: list[dict[str, Any]] = report["log"]["launches"]
    return launches[-1]


def names_the_cause_and_the_change(report: dict[str, Any], cause: str, change: str) -> bool:
    """Class a: an error or warning whose message holds ``cause`` and whose fix holds ``change``."""
    return any(
        cause.lower() in f["message"].lower() and change in (f.get("fix") or "") for f in alarms(report)
    )


@pytest.fixture
def cli() -> Any:
    return run_cli


@pytest.fixture
def new_user_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new user's machine: no resolver environments and no Hugging Face cache, so a verdict does not
    depend on what this machine happens to have built or downloaded (either would make `check` resolve,
    15-75 s per case, and change its findings). The false-alarm gate and the real-case batches use it
    (``pytestmark = pytest.mark.usefixtures("new_user_machine")``)."""
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "argtrace-cache"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)


def log_report(path: Path) -> dict[str, Any]:
    """``argtrace log --format json PATH``'s report (a quoted log, as a new user runs it)."""
    result = run_cli(["log", "--format", "json", str(path)])
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def alarms(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The errors and warnings of a JSON report, the consequences folded under a cause included."""
    every = [*report["findings"], *(c for f in report["findings"] for c in f.get("consequences", []))]
    return [f for f in every if f["severity"] in ("error", "warning")]


def log_files(root: Path) -> set[str]:
    """Every ``*.log`` under a batch's directory, relative to it (the batch's cases and working logs)."""
    return {str(p.relative_to(root)) for p in root.rglob("*.log")}


def class_counts(cases: Sequence[Any]) -> tuple[list[int], list[int]]:
    """How many of a batch's cases were in each class a, b, c, d before its fixes and after them."""
    before = [sum(c.before == k for c in cases) for k in "abcd"]
    after = [sum(c.after == k for c in cases) for k in "abcd"]
    return before, after


def written_log(tmp_path: Path, text: str) -> Path:
    """``text`` as the server log ``server.log`` under ``tmp_path`` (a mechanism's minimal input)."""
    path = tmp_path / "server.log"
    path.write_text(text, encoding="utf-8")
    return path


def assert_working_launch(
    report: dict[str, Any], expected: tuple[tuple[tuple[str, str], ...], str, str]
) -> None:
    """A working launch's log: exactly the ``(code, severity)`` notes expected, no error or warning, and the
    last launch in the state and stage expected."""
    findings, state, stage = expected
    assert tuple((f["code"], f["severity"]) for f in report["findings"]) == findings
    assert alarms(report) == []
    assert (last_launch(report)["state"], last_launch(report)["stage"]) == (state, stage)


REPO = Path(__file__).resolve().parent.parent


# The launcher (bin/argtrace) would start a warm process after each command a test runs through it, each
# outliving the test (argtrace/warm/); tests/test_warm.py gives its launchers their own environment.
os.environ["ARGTRACE_WARM"] = "0"

# pytest-xdist gives its workers COLUMNS=80 (the controller's terminal width); the text reports wrap at
# COLUMNS, and the tests expect the width of a plain run off a terminal unless they set it themselves.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)


@pytest.fixture(autouse=True, scope="session")
def _resolution_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The suite's resolutions are stored in a directory of its own, never in the user's cache (which is
    theirs: the key covers the code, so a stale entry could not answer anyway). Under pytest-xdist the
    workers share it (beside their own temporary directories, in the run's): a resolution one worker made,
    13-25 s, answers the same request in the other, as the cache does for a user's concurrent runs (entries
    are written to a temporary file and renamed, resolver/cache.py). A test that needs it empty sets its own
    (tests/test_resolution_cache.py)."""
    old = os.environ.get("ARGTRACE_RESOLUTION_CACHE")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "resolution-cache"
        shared.mkdir(mode=0o700, exist_ok=True)
        os.environ["ARGTRACE_RESOLUTION_CACHE"] = str(shared)
    else:
        os.environ["ARGTRACE_RESOLUTION_CACHE"] = str(tmp_path_factory.mktemp("resolution-cache"))
    yield
    if old is None:
        os.environ.pop("ARGTRACE_RESOLUTION_CACHE", None)
    else:
        os.environ["ARGTRACE_RESOLUTION_CACHE"] = old


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules in the order pytest-xdist hands them out (scripts/test runs ``--dist loadscope
    --no-loadscope-reorder``): first those with tests marked ``frameworks`` or ``slow`` (resolutions,
    installs, console-script benches: tens of seconds to minutes each), most such tests first, then the
    rest by their number of tests, most first (xdist's own reorder). xdist's reorder alone put the slow
    modules with few tests (``ci/test_distribution.py``, ``test_why_lookup_bench.py``, the resolver hosts'
    and schema modules) last, where the one worker still running one leaves the other idle. A module's
    own tests keep their order (tests/memory/test_framework_sizing.py runs in its resolver hosts' order)."""
    heavy: dict[str, int] = {}
    count: dict[str, int] = {}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        module = item.nodeid.split("::", 1)[0]
        first.setdefault(module, index)
        count[module] = count.get(module, 0) + 1
        if item.get_closest_marker("frameworks") or item.get_closest_marker("slow"):
            heavy[module] = heavy.get(module, 0) + 1

    def rank(module: str) -> tuple[int, int, int]:
        return (-heavy.get(module, 0), -count[module], first[module])

    items.sort(key=lambda item: rank(item.nodeid.split("::", 1)[0]))
