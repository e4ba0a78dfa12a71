"""The CI fuzz run: a fixed seed, a few cases of each kind through the real CLI in subprocesses.

No case may end in an internal error, hang, leak a planted secret or run a planted command. Each case is
its own test (``test_fuzz_case[script-11-3]``), so a named subset runs with ``-k``, e.g.
``pytest tests/fuzz -m fuzz -k 'log or yaml'``; the selected cases run two at a time and the test of each
reads its outcome. Failing cases are kept under pytest's temporary directory (``fuzz-failures``) with a
``cmd.sh`` that reruns them. The long run is ``python -m tests.fuzz.harness`` (docs/reliability.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.generators import KINDS, Case, make_case
from tests.fuzz.harness import MUST_NOT, Outcome, campaign

SEED = 11
PER_KIND = 15  # 90 cases, two at a time; the runs share a data cache (conftest.py), a third of the CPU each
# kinds added later, with fewer cases so that they add a few seconds (reader_generators.py,
# hole_generators.py, late_generators.py and s32_generators.py: 3 of each, about 1 s of CPU per case)
FEWER = {
    "readers": 3,
    "launchers": 3,
    "holes": 3,
    "pages": 3,
    "containers": 3,
    "includes": 3,
    "logargv": 3,
    "gpus": 3,
    "late32": 3,
}
TIMEOUT = 30.0

CASES = {
    c.name: c for c in (make_case(SEED, i, kind) for kind in KINDS for i in range(FEWER.get(kind, PER_KIND)))
}


@pytest.fixture(scope="module")
def outcomes(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, fuzz_data_cache: Path
) -> dict[str, Outcome]:
    """Every selected case's outcome, run in parallel once for the module."""
    selected = [
        str(item.callspec.params["name"])
        for item in request.session.items
        if isinstance(item, pytest.Function) and item.originalname == "test_fuzz_case"
    ]
    keep = tmp_path_factory.mktemp("fuzz-failures")
    todo: list[Case] = [CASES[name] for name in selected]
    return {r.case.name: r for r in campaign(todo, keep, jobs=2, timeout=TIMEOUT, data_cache=fuzz_data_cache)}


@pytest.mark.fuzz
@pytest.mark.parametrize("name", list(CASES))
def test_fuzz_case(name: str, outcomes: dict[str, Outcome]) -> None:
    out = outcomes[name]
    bad = [c for c in out.classes if c in MUST_NOT]
    where = f" (kept in {out.dir}, rerun with {Path(str(out.dir)) / 'cmd.sh'})" if out.dir else ""
    assert bad == [], f"{name}: {out.signature}{where}"


def test_cases_are_reproducible() -> None:
    """The same seed and index give byte-identical cases: a reported case name is a reproducer."""
    for kind in KINDS:
        a, b = make_case(SEED, 3, kind), make_case(SEED, 3, kind)
        assert (a.files, a.argv, a.secrets, a.markers) == (b.files, b.argv, b.secrets, b.markers)
        assert a.name == f"{kind}-{SEED}-3"
