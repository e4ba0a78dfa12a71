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


def test_a_child_shell_keeps_what_the_script_exported_as_the_scripts(tmp_path: Path) -> None:
    """``export X=1`` then ``bash -c '... server ...'``: the child inherits X, but it is the script's
    setting, not its caller's (PR001 on a misspelt name is a warning there too, as without the child)."""
    script = (
        "D=/data\nexport SGLANG_ENABLE_TORCH_COMPILEE=1 A1=$D\n"
        "bash -c 'python3 -m sglang.launch_server --model-path m'\n"
    )
    path = tmp_path / "launch.sh"
    path.write_text(script)
    result = analyze_script(
        ScriptSource("launch.sh", script.encode(), path), [], {}, arg0="launch.sh", run_shellcheck=False
    )
    (server,) = result.servers
    typo, a1 = server.env["SGLANG_ENABLE_TORCH_COMPILEE"], server.env["A1"]
    assert (typo.value, typo.origin.at, typo.origin.expansion) == (
        "1",
        "launch.sh:2:8",
        "SGLANG_ENABLE_TORCH_COMPILEE=1",
    )
    # the way A1 was set reads $D, which the child does not have: not kept, so the child never reads it again
    assert (a1.value, a1.origin.at, a1.origin.expansion) == (
        "/data",
        "launch.sh:2:39",
        "A1=... (set by the calling script)",
    )
