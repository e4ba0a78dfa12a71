"""``export "NAME=VALUE"`` (``export "HF_HOME=$DIR"``, ``declare -x "A=b c"``): the word expands to
NAME=VALUE and bash assigns and exports it. argtrace emitted a "not a valid identifier" event for it and
assigned nothing, so the server's environment lacked the variable. Compared with real bash."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script


def server_env(script: str, tmp_path: Path) -> dict[str, str | None]:
    path = tmp_path / "launch.sh"
    path.write_text(script)
    result = analyze_script(
        ScriptSource("launch.sh", script.encode(), path), [], {}, arg0="launch.sh", run_shellcheck=False
    )
    (server,) = result.servers
    return {k: v.value for k, v in server.env.items() if re.fullmatch(r"A[0-9]", k)}


def bash_env(script: str, tmp_path: Path) -> dict[str, str]:
    shown = "python3() { env | grep -E '^A[0-9]='; }\n" + script
    done = subprocess.run(["bash", "-c", shown], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    return dict(line.split("=", 1) for line in done.stdout.splitlines())


@pytest.mark.parametrize(
    "exports",
    [
        'export "A1=a b"',
        'D=/data\nexport "A1=$D/hf" "A2=x"',
        'declare -x "A1=v"',
        'A1=x\nexport "A1+=y"',
        'export "A1=1" A2=2\nexport -n "A2=3"',
    ],
)
def test_the_exported_environment_equals_bash(exports: str, tmp_path: Path) -> None:
    script = f"{exports}\npython3 -m sglang.launch_server --model-path m\n"
    assert server_env(script, tmp_path) == bash_env(script, tmp_path)
