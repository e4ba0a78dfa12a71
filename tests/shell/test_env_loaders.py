"""The idioms that load a ``.env`` file at run time: ``export $(grep -v '^#' .env | xargs)``,
``eval "$(cat .env)"``, ``export "$k=$v"`` in a loop reading the file, ``source <(...)``.

argtrace cannot know which names these set. It used to read every variable the script reads after them
and never sets as unset: ``--port $PORT`` lost its value word, stated as known, with a wrong SH007 warning
("`$PORT` is not set"), where bash passes the file's value. These variables are now read as set by that
command (value unknown, reason said), as after a ``source`` of a file argtrace cannot read. Compared with
real bash, which does set them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script

SERVER = "python3 -m sglang.launch_server --model-path m --port $PORT --tp-size $TP\n"
ENV_FILE = "PORT=30020\n# a comment\nTP=2\n"


def analyse(script: str, tmp_path: Path) -> tuple[list[str | None], list[str | None], list[str]]:
    """(the server's argv words, their reasons when unknown, the codes of errors and warnings)."""
    (tmp_path / ".env").write_text(ENV_FILE)
    path = tmp_path / "launch.sh"
    path.write_text(script)
    result = analyze_script(
        ScriptSource("launch.sh", script.encode(), path),
        [],
        {},
        arg0="launch.sh",
        cwd=str(tmp_path),
        run_shellcheck=False,
    )
    (server,) = result.servers
    alarms = [f.code for f in result.findings if f.severity in ("error", "warning")]
    return [w.text for w in server.argv], [w.origin.reason for w in server.argv], alarms


def bash_argv(script: str, tmp_path: Path) -> list[str]:
    (tmp_path / ".env").write_text(ENV_FILE)
    shown = script.replace(
        "python3 -m sglang.launch_server", 'printf "%s\\n" python3 -m sglang.launch_server'
    )
    done = subprocess.run(["bash", "-c", shown], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    return done.stdout.splitlines()


LOADERS = {
    "export $(grep -v '^#' .env | xargs)": (
        "export $(grep -v '^#' .env | xargs)",
        "an export of names not known statically",
    ),
    'eval "$(cat .env)"': ('eval "$(cat .env)"', "a string argtrace cannot evaluate"),
    "while IFS='=' read -r k v; do [[ $k == \\#* ]] && continue; export \"$k=$v\"; done < .env": (
        'export "$k=$v"',
        "an export of names not known statically",
    ),
    "source <(grep = .env)": ("source <(grep = .env)", "a file argtrace cannot read"),
}


@pytest.mark.parametrize("loader", list(LOADERS))
def test_a_variable_read_after_an_env_loader_is_unknown_not_empty(loader: str, tmp_path: Path) -> None:
    script = f"#!/bin/bash\n{loader}\n{SERVER}"
    words, reasons, alarms = analyse(script, tmp_path)
    real = bash_argv(script, tmp_path)
    assert real[5:] == ["--port", "30020", "--tp-size", "2"]  # bash: the file's values
    assert words[5:] == ["--port", None, "--tp-size", None]  # argtrace: set by the loader, values unknown
    written, what = LOADERS[loader]
    assert reasons[6] == (
        f"not set here; read after `{written}`, {what}, which may set it (unquoted: it may also split into "
        "several words)"
    )
    assert alarms == []  # was SH007: "`$PORT` is not set"


def test_the_loader_is_reported_once_with_what_it_may_set(tmp_path: Path) -> None:
    script = f"#!/bin/bash\nexport $(grep -v '^#' .env | xargs)\n{SERVER}"
    path = tmp_path / "launch.sh"
    path.write_text(script)
    result = analyze_script(
        ScriptSource("launch.sh", script.encode(), path), [], {}, arg0="launch.sh", run_shellcheck=False
    )
    notes = [f.message for f in result.findings if f.code == "SH018" and f.at == "launch.sh:2:1"]
    assert notes == [
        "`export $(grep -v '^#' .env | xargs)`: a word that is not known statically (command "
        "substitution `$(grep -v '^#' .env | xargs)` runs only at run time (unquoted: it may also split "
        "into several words)): the variables it sets are not followed; the script reads $PORT, $TP after "
        "it and never sets them, so argtrace reads them as set by it (value unknown); pass "
        "`--env NAME=VALUE` to check with the values it sets"
    ]
