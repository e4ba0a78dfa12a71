"""`argtrace why` on a traceback a user saved or pipes in: ``-`` reads standard input, the path of a file
reads that file. Both were matched as the message itself ("no framework raise or log site matches '-'"). Run
as a user runs it: the real program in a child process, the text on its standard input or in a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TEXT = (
    "Traceback (most recent call last):\n"
    '  File "/usr/lib/python3/site-packages/vllm/engine/arg_utils.py", line 1, in create_engine_config\n'
    "ValueError: Following weights were not initialized from checkpoint: {'model.layers.16.eh_proj.weight'}\n"
)


def _why(argument: str, cwd: Path, stdin: str = "") -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "argtrace", "why", "--format", "json", argument],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={**os.environ, "ARGTRACE_WARM": "0", "ARGTRACE_CACHE_DIR": str(cwd / "cache")},
    )
    return json.loads(done.stdout)


def _functions(report: dict) -> list[str]:
    return [m["function"] for m in report["why"]["matches"]]


def test_a_dash_reads_the_text_from_standard_input(tmp_path: Path) -> None:
    piped = _why("-", tmp_path, stdin=TEXT)
    given = _why(TEXT, tmp_path)
    assert _functions(piped) == _functions(given) != []
    assert "the error text is standard input" in piped["notes"]


def test_the_path_of_a_saved_traceback_reads_the_file(tmp_path: Path) -> None:
    (tmp_path / "err.txt").write_text(TEXT)
    saved = _why("err.txt", tmp_path)
    assert _functions(saved) == _functions(_why(TEXT, tmp_path)) != []
    assert "the error text is the file err.txt" in saved["notes"]


def test_a_message_that_names_no_file_is_the_message(tmp_path: Path) -> None:
    report = _why("Following weights were not initialized from checkpoint", tmp_path)
    assert _functions(report) != []
    assert not any(note.startswith("the error text is") for note in report["notes"])
