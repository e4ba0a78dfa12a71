"""What ``argtrace log`` imports of the log layer: the comparison with intended values (``intent.py``), the
file-without-a-launch checks (``no_launch.py``) and the message index (``sites.py``) only when the log or the
command line needs them (issue 18: every module imported is start-up time against ``grep -c``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[2] / "src")
LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
OPTIONAL = ("argtrace.layers.log.intent", "argtrace.layers.log.no_launch", "argtrace.layers.log.sites")


def _imported(*words: str) -> tuple[str, list[str]]:
    """The exit status and the optional log modules ``argtrace log WORDS`` imported."""
    code = (
        "import contextlib, io, sys\n"
        "from argtrace.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    status = main(['log', *{list(words)!r}, '--format', 'json'])\n"
        f"print(status, ' '.join(m for m in {OPTIONAL!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=SRC),
        check=True,
    )
    status, _, modules = done.stdout.strip().partition(" ")
    return status, modules.split()


def test_a_log_whose_error_a_signature_knows_imports_none_of_them() -> None:
    # SGLang's CUDA graph OOM: a catalog signature, a server launch, nothing intended
    assert _imported(str(LOGS / "sglang_issue5285_cuda_graph_oom.log")) == ("1", [])


def test_an_intended_value_imports_the_comparison() -> None:
    log = str(LOGS / "sglang_issue5285_cuda_graph_oom.log")
    assert _imported(log, "--expect", "tp_size=2") == ("1", ["argtrace.layers.log.intent"])
    assert _imported(log, "--launched-after", "2020-01-01T00:00:00") == ("1", ["argtrace.layers.log.intent"])


def test_a_file_without_a_server_launch_imports_its_checks(tmp_path: Path) -> None:
    other = tmp_path / "notes.log"
    other.write_text("nothing a server wrote\n")
    assert _imported(str(other)) == ("0", ["argtrace.layers.log.no_launch"])


def test_an_error_no_signature_knows_imports_the_message_index(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    log.write_text(
        "[2026-11-29 21:14:02] server_args=ServerArgs(model_path='/m', tp_size=1)\n"
        "Traceback (most recent call last):\n"
        '  File "/sgl/srt/managers/scheduler.py", line 10, in run_scheduler_process\n'
        "AssertionError: --page-size must be 1 when max_running_requests is set this way\n"
    )
    assert _imported(str(log)) == ("1", ["argtrace.layers.log.sites"])
