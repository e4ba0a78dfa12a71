"""Progress on stderr for long work (argtrace/progress.py): drawn only on a terminal, through one seam."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator

import pytest

from argtrace import progress
from tests.conftest import run_cli


@pytest.fixture
def terminal() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    progress.force(stream)
    try:
        yield stream
    finally:
        progress.force(None)


def test_a_stage_shows_its_label_detail_and_elapsed_time_on_a_terminal(terminal: io.StringIO) -> None:
    with progress.stage("building sglang==0.5.10.post1") as update:
        update("installing torch\n")
        time.sleep(0.3)  # rich refreshes the line ten times a second
    drawn = terminal.getvalue()
    assert "building sglang==0.5.10.post1: installing torch" in drawn
    assert "0:00:00" in drawn  # the elapsed-time column
    assert "\x1b[" in drawn  # a live line, redrawn in place and erased at the end


def test_nothing_is_written_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert not progress.active()
    with progress.stage("resolving") as update:
        update("step")
    assert capsys.readouterr().err == ""


def test_a_check_off_a_terminal_writes_nothing_to_stderr() -> None:
    result = run_cli(
        [
            "check",
            "--no-shellcheck",
            "--framework-version",
            "0.5.10.post1",
            "-c",
            "python3 -m sglang.launch_server --model-path /m",
        ]
    )
    assert result.stderr == ""
