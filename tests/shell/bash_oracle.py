"""What the shell layer predicts for a server's ``--port`` word, and what real bash prints: the two sides of
the tests that compare a builtin or an operator with bash (``test_let_builtin``, ``test_regex_match``),
and the whole server argv of both (``test_bash_differential*``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from argtrace.layers.shell import ScriptSource, ShellResult, analyze_script

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


def bash_argv(script: str, tmp_path: Path) -> list[str]:
    shown = 'python3() { printf "%s\\n" "$@"; }\n' + script
    done = subprocess.run(["bash", "-c", shown], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    return done.stdout.splitlines()


def analyzed(script: str, tmp_path: Path) -> ShellResult:
    """The shell layer's reading of ``script``, written to ``launch.sh`` in ``tmp_path``."""
    path = tmp_path / "launch.sh"
    path.write_text(script + "\n")
    return analyze_script(
        ScriptSource("launch.sh", (script + "\n").encode(), path),
        [],
        {},
        arg0="launch.sh",
        run_shellcheck=False,
    )


def argtrace_argv(script: str, tmp_path: Path) -> list[str | None]:
    (server,) = analyzed(script, tmp_path).servers
    return [w.text for w in server.argv[1:]]


def bash_file_argv(script: str, tmp_path: Path) -> list[str]:
    """What ``bash_argv`` gives, bash reading the script from a file (``FUNCNAME`` then ends in "main")."""
    path = tmp_path / "oracle.sh"
    path.write_text('python3() { printf "%s\\n" "$@"; }\n' + script + "\n")
    done = subprocess.run(["bash", str(path)], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    return done.stdout.splitlines()
