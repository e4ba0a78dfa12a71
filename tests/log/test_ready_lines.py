"""uvicorn's "Uvicorn running on" is not an anchor (issue 18: its pattern was the matcher's 33rd, which put
the matcher in its slower form); "Application startup complete.", which uvicorn logs just before it, marks
the server ready on every path, and the launch's last kept line is that one."""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.log import analyze_log
from argtrace.layers.log.lines import ANCHORS, MATCHED

ARGS = "[2026-11-29 21:14:02] server_args=ServerArgs(model_path='/m', tp_size=1)\n"
READY = (
    "[2026-11-29 21:15:02] INFO:     Started server process [3831493]\n"
    "[2026-11-29 21:15:02] INFO:     Waiting for application startup.\n"
    "[2026-11-29 21:15:02] INFO:     Application startup complete.\n"
    "[2026-11-29 21:15:02] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)\n"
)
STEADY = '[2026-11-29 21:15:05] INFO:     127.0.0.1:40418 - "POST /generate HTTP/1.1" 200 OK\n'


def test_uvicorn_running_is_no_anchor() -> None:
    line = READY.splitlines()[-1].encode()
    assert [a for a in ANCHORS if a in line] == []
    assert [p for p in MATCHED if p in line] == []


@pytest.mark.parametrize(
    "path_env", [{}, {"ARGTRACE_NO_MATCHER": "1"}, {"ARGTRACE_NO_MATCHER": "1", "ARGTRACE_NO_GREP": "1"}]
)
def test_startup_complete_marks_the_server_ready(
    path_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in path_env.items():
        monkeypatch.setenv(name, value)
    log = tmp_path / "server.log"
    # big enough for the fast paths (reader.GREP_MIN is 4 MB)
    log.write_text(ARGS + READY + STEADY * ((5 << 20) // len(STEADY)))
    section = analyze_log(log, "LOG").sections["log"]
    (launch,) = section["launches"]
    assert (launch["state"], launch["lines"], section["scan"]["kept_lines"]) == ("ready", [1, 4], 3)
    assert launch["settings_logged"] == 2
