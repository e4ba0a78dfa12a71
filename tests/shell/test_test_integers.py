"""``test``/``[``'s integer comparisons read each operand as a decimal integer (``010`` is ten; an empty or
non-numeric operand is bash's "integer expression expected", status 2; an empty one too, but it is the
caller's unset variable, so the branch is unknown), unlike ``[[ ]]``, which reads them
as arithmetic (``010`` is eight, the empty string 0). argtrace used arithmetic for both, so
``[ "$H" -eq 08 ]`` took the wrong branch, stated as known, and ``[ "$RANK" -eq 0 ]`` with RANK unset here
(the platform's variable) the branch of 0. Each test
below is compared with real bash."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script


@pytest.mark.parametrize(
    "test",
    [
        "[ 010 -eq 10 ]",
        "[ abc -eq 0 ]",
        "[ ' 7 ' -gt 3 ]",
        "[ -3 -lt +2 ]",
        "[ 1.5 -gt 1 ]",
        "test 08 -eq 8",
        "[ 2 -ne 2 ]",
        "[[ 010 -eq 8 ]]",
        "[[ '' -eq 0 ]]",
        "[[ 1+1 -eq 2 ]]",
    ],
)
def test_the_branch_equals_bash(test: str, tmp_path: Path) -> None:
    script = f"{test} && S=1 || S=0\npython3 -m sglang.launch_server --model-path m --port 3000$S\n"
    path = tmp_path / "launch.sh"
    path.write_text(script)
    result = analyze_script(
        ScriptSource("launch.sh", script.encode(), path), [], {}, arg0="launch.sh", run_shellcheck=False
    )
    (server,) = result.servers
    bash = subprocess.run(
        ["bash", "-c", f"{test} 2>/dev/null && S=1 || S=0; echo 3000$S"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert server.argv[-1].text == bash.stdout.strip()


def test_an_empty_operand_leaves_the_branch_unknown(tmp_path: Path) -> None:
    script = (
        'R=$RANK\nif [ "$R" -eq 0 ]; then P=30000; else P=30001; fi\n'
        "python3 -m sglang.launch_server --model-path m --port $P\n"
    )
    path = tmp_path / "launch.sh"
    path.write_text(script)
    result = analyze_script(
        ScriptSource("launch.sh", script.encode(), path), [], {}, arg0="launch.sh", run_shellcheck=False
    )
    (server,) = result.servers
    assert server.argv[-1].text is None  # P is 30000 or 30001: which, the caller's RANK decides
