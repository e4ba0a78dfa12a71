"""Where a redirect after a pipeline goes, and which output targets are logs (layers/shell/control.py,
analysis.py): bash gives `a | b > f` to `b` alone; a device or another process's descriptor is a stream.

tree-sitter-bash hangs the redirect on the whole pipeline; before, the server of `vllm serve ... 2>&1 | tee
run.log > /proc/1/fd/1` (intel/llm-scaler#264's README command) got an SH009 note saying `>` emptied its log.
The shell's own behaviour is checked here with bash.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource, ShellResult, analyze_script

ENV = {"PATH": "/usr/bin:/bin", "HOME": "/root"}


def run(tmp_path: Path, script: str) -> ShellResult:
    data = script.encode()
    path = tmp_path / "launch.sh"
    path.write_bytes(data)
    return analyze_script(ScriptSource("launch.sh", data, path), [], ENV, run_shellcheck=False)


def codes(result: ShellResult) -> list[str]:
    return [f.code for f in result.findings]


def test_bash_gives_the_redirect_to_the_last_command(tmp_path: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    out = tmp_path / "out.txt"
    line = f"echo first | cat > {out}; echo second"
    r = subprocess.run(["bash", "-c", line], capture_output=True, text=True)
    assert (out.read_text(), r.stdout) == ("first\n", "second\n")


def test_the_redirect_after_a_pipeline_is_not_the_server_s(tmp_path: Path) -> None:
    result = run(tmp_path, "vllm serve Qwen/Qwen3-8B 2>&1 | tee run.log > out.txt\n")
    assert "SH009" not in codes(result)


def test_the_last_command_of_a_pipeline_keeps_its_redirect(tmp_path: Path) -> None:
    result = run(tmp_path, "echo go | vllm serve Qwen/Qwen3-8B > out.txt\n")
    (f,) = [f for f in result.findings if f.code == "SH009"]
    assert f.message.startswith("the server's output goes to `out.txt` and `>` empties it at each start")


@pytest.mark.parametrize("target", ["/proc/1/fd/1", "/dev/stdout", "/proc/self/fd/2"])
def test_a_stream_is_not_a_log_file(tmp_path: Path, target: str) -> None:
    result = run(tmp_path, f"vllm serve Qwen/Qwen3-8B > {target} 2>&1\n")
    assert "SH009" not in codes(result)
