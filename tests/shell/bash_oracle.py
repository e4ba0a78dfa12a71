"""What the shell layer predicts for a server's ``--port`` word, and what real bash prints: the two sides of
the tests that compare a builtin or an operator with bash (``test_let_builtin``, ``test_regex_match``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from argtrace.layers.shell import ScriptSource, analyze_script

SERVER = "python3 -m sglang.launch_server --model-path m --port {port}\n"


def server_port(script: str, tmp_path: Path) -> tuple[str | None, str | None]:
    """(the --port word as the shell layer predicts it, its reason when unknown)."""
    path = tmp_path / "launch.sh"
    path.write_text(script)
    result = analyze_script(
        ScriptSource("launch.sh", script.encode(), path), [], {}, arg0="launch.sh", run_shellcheck=False
    )
    (server,) = result.servers
    word = server.argv[-1]
    return word.text, word.origin.reason


def bash_says(script: str, tmp_path: Path) -> str:
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=30, check=True
    )
    return done.stdout.strip()
