"""``return`` outside a function in the checked script, compared with real bash and dash: bash (not in POSIX
mode) refuses it with status 2 and goes on (SH051), ``sh``/``bash --posix`` end the script there. argtrace
had ended every such script at the ``return``, so a usage check meant to stop a launch ("return 1") hid the
server bash goes on to start."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script

SERVER = 'python3 -m sglang.launch_server --model-path m --port "$P"\n'


def predicted(script: str, tmp_path: Path) -> tuple[str | None, list[str]]:
    """(the --port word the shell layer predicts, or None when no server starts; the finding codes)."""
    path = tmp_path / "launch.sh"
    path.write_text(script + SERVER)
    result = analyze_script(
        ScriptSource("launch.sh", path.read_bytes(), path), [], {}, arg0="launch.sh", run_shellcheck=False
    )
    port = result.servers[0].argv[-1].text if result.servers else None
    return port, [f.code for f in result.findings]


def real(shell: str, script: str, tmp_path: Path) -> str | None:
    """The port the real shell would start the server with (None: it never got there)."""
    path = tmp_path / "real.sh"
    path.write_text(script + 'echo "$P"\n')
    done = subprocess.run([shell, str(path)], capture_output=True, text=True, timeout=30, check=False)
    return done.stdout.strip() or None


BASH_CASES = [
    "#!/bin/bash\nP=1\nreturn 3\nP=$((P + $?))\n",  # goes on with status 2: P = 3
    '#!/bin/bash\nf() { return 4; }\nf\nP="$?"\nreturn 1\nP="$P$?"\n',  # a function's return is its own
    "#!/bin/bash\nP=$(return 3; echo 9)\n",  # inside $(...) at the top level too
    "#!/usr/bin/env bash\nset -e\nP=1\nreturn 1\nP=2\n",  # errexit: the refused return ends it (status 2)
    "#!/bin/bash\nset -o posix\nP=1\nreturn 1\nP=2\n",  # POSIX mode ends the script at the return
]


@pytest.mark.parametrize("script", BASH_CASES)
def test_bash_scripts_as_bash_runs_them(script: str, tmp_path: Path) -> None:
    assert predicted(script, tmp_path)[0] == real("bash", script, tmp_path)


@pytest.mark.skipif(shutil.which("dash") is None, reason="needs dash (sh)")
def test_sh_ends_the_script_at_the_return(tmp_path: Path) -> None:
    script = "#!/bin/sh\nP=1\nreturn 1\nP=2\n"
    assert real("dash", script, tmp_path) is None
    assert predicted(script, tmp_path) == (None, ["SH019"])


def test_the_refused_return_is_reported(tmp_path: Path) -> None:
    script = '#!/bin/bash\nP=1\nif [ -z "$MODEL" ]; then echo "usage"; return 1; fi\n'
    port, codes = predicted(script, tmp_path)
    assert port == "1" and codes.count("SH051") == 1


@pytest.mark.parametrize(
    "line",
    ["return 0 2>/dev/null || exit 0", "return 1 &>/dev/null || exit 1", "(return 0 2>/dev/null) && S=1"],
)
def test_a_return_written_to_fail_quietly_is_not_reported(line: str, tmp_path: Path) -> None:
    """The idiom of a file meant to be sourced or run: where it is run, ``|| exit`` ends it."""
    script = f"#!/bin/bash\nP=5\n{line}\n"
    port, codes = predicted(script, tmp_path)
    assert port == real("bash", script, tmp_path)
    assert "SH051" not in codes
