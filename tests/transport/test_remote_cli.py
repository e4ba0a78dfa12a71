"""``argtrace --host`` through the real CLI, against the private sshd: check, hostile names.

log, ps, live, run and check --log/--pid/--url: ``test_remote_commands.py``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.transport.sshd import SshServer, expand_example_argv

SCRIPT = (
    "#!/bin/bash\n"
    "export CUDA_VISIBLE_DEVICES=$1\n"
    "python3 -m sglang.launch_server --model-path /models/qwen --port $2 "
    "--mamba-scheduler-strategy extra_buffer\n"
)
HOSTILE_DIRS = ["dir with space", "it's", "$HOME", "new\nline", "semi;colon", "-dash"]


def _script_in(tmp_path: Path, dirname: str, name: str = "launch mtp.sh") -> Path:
    directory = tmp_path / dirname
    directory.mkdir()
    script = directory / name
    script.write_text(SCRIPT)
    return script


@pytest.mark.parametrize("dirname", HOSTILE_DIRS)
def test_remote_check_reads_the_nodes_file(sshd: SshServer, tmp_path: Path, dirname: str) -> None:
    script = _script_in(tmp_path, dirname)
    result = run_cli([*sshd.cli_prefix(), "check", "--format", "json", "--no-shellcheck", str(script), "0"])
    assert result.status in (0, 1), result.stderr
    report = result.json
    argv = report["servers"][0]["argv"]
    # $2 was not given: --port swallows the next flag, exactly as on the node
    assert argv[argv.index("--port") + 1] == "--mamba-scheduler-strategy"
    assert report["servers"][0]["at"].startswith(str(script))


def test_remote_check_uses_the_nodes_environment(
    sshd: SshServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _script_in(tmp_path, "envcheck")
    monkeypatch.setenv("SGLANG_ARGTRACE_LOCAL_MARKER", "1")
    argv = ["check", "--format", "json", "--no-shellcheck", str(script), "0", "1"]
    local = run_cli(argv).json
    remote = run_cli([*sshd.cli_prefix(), *argv]).json
    # locally the caller's SGLANG_* variables reach the server; with --host the node's session env does
    assert "SGLANG_ARGTRACE_LOCAL_MARKER" in local["process"]["env"]
    assert "SGLANG_ARGTRACE_LOCAL_MARKER" not in remote["process"]["env"]
    assert remote["process"]["env"]["CUDA_VISIBLE_DEVICES"] == "0"


def test_remote_check_errors_exit_2(sshd: SshServer, tmp_path: Path) -> None:
    missing = run_cli([*sshd.cli_prefix(), "check", str(tmp_path / "no such.sh")])
    assert missing.status == 2 and "no such file" in missing.stderr and sshd.host in missing.stderr
    directory = run_cli([*sshd.cli_prefix(), "check", str(tmp_path)])
    assert directory.status == 2 and "is a directory" in directory.stderr
    no_python = run_cli(
        [*sshd.cli_prefix(f"127.0.0.1:{sshd.no_python_port}"), "check", str(tmp_path / "x.sh")]
    )
    assert no_python.status == 2 and "python3" in no_python.stderr
    hostile = run_cli(["--host", "-oProxyCommand=touch /tmp/argtrace-pwned", "check", "-c", "true"])
    assert hostile.status == 2 and "cannot start with '-'" in hostile.stderr
    assert not os.path.exists("/tmp/argtrace-pwned")
    assert "Traceback" not in missing.stderr + directory.stderr + no_python.stderr + hostile.stderr


def test_host_option_does_not_swallow_a_command_named_like_the_host(sshd: SshServer) -> None:
    result = run_cli(["--host", "check", "--ssh-option", "ConnectTimeout=1", "check", "-c", "true"])
    assert result.status == 2 and "argtrace check: check" in result.stderr


@pytest.fixture
def fake_server(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    mods = tmp_path / "mods"
    (mods / "sglang").mkdir(parents=True)
    (mods / "sglang" / "__init__.py").write_text("")
    (mods / "sglang" / "launch_server.py").write_text(
        "import http.server as h\nh.HTTPServer(('127.0.0.1', 0), h.BaseHTTPRequestHandler).serve_forever()\n"
    )
    dist = mods / "sglang-0.5.10.post1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.10.post1\n")
    env = {**os.environ, "PYTHONPATH": str(mods), "SGLANG_ENABLE_SPEC_V2": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sglang.launch_server", "--model-path", "/m", "--port", "30000"], env=env
    )
    time.sleep(0.5)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_remote_ps_snapshot_finds_the_server(sshd: SshServer, fake_server: subprocess.Popen[bytes]) -> None:
    from argtrace.layers.observed_remote import find_servers_on
    from argtrace.remote.ssh import RemoteHost, parse_target

    host = RemoteHost(parse_target(sshd.host), sshd.ssh_options())
    try:
        servers = [s for s in find_servers_on(host) if getattr(s, "pid", None) == fake_server.pid]
    finally:
        host.close()
    assert len(servers) == 1
    server = servers[0]
    assert getattr(server, "framework_version", None) == "0.5.10.post1"
    assert getattr(server, "env", {})["SGLANG_ENABLE_SPEC_V2"] == "1"
    assert getattr(server, "listening", ())


def test_tp015_example_against_the_private_sshd(sshd: SshServer, tmp_path: Path) -> None:
    from argtrace.rules.transport import TP015

    for name, content in TP015.example.written_files().items():
        (tmp_path / name).write_text(str(content))
    result = run_cli(expand_example_argv(TP015.example.argv, sshd, tmp_path), cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    assert "TP015" in result.codes()


def test_interpreter_with_the_framework_on_the_node(sshd: SshServer, tmp_path: Path) -> None:
    mods = tmp_path / "mods"
    dist = mods / "sglang-0.5.10.post1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.10.post1\n")
    script = tmp_path / "launch.sh"
    script.write_text(
        f"#!/bin/bash\nexport PYTHONPATH={mods}\npython3 -m sglang.launch_server --model-path /m\n"
    )
    result = run_cli([*sshd.cli_prefix(), "check", "--format", "json", "--no-shellcheck", str(script)])
    assert result.status in (0, 1), result.stderr
    assert "TP015" not in result.codes()
    hops = result.json["transport"]["hops"]
    hop = next(h for h in hops if h["via"].startswith("--host "))
    assert hop["framework_version"] == "0.5.10.post1" and hop["resolved"]
    session = next(h for h in hops if h["via"] == "--host")
    assert session["host"] == sshd.host and session["user"] and session["path"]
    missing = tmp_path / "missing.sh"
    missing.write_text("#!/bin/bash\nno-such-python3 -m sglang.launch_server --model-path /m\n")
    result = run_cli([*sshd.cli_prefix(), "check", "--format", "json", "--no-shellcheck", str(missing)])
    assert "TP015" in result.codes() or not result.json["servers"]


def test_remote_compose_file_and_its_dotenv(sshd: SshServer, tmp_path: Path) -> None:
    directory = tmp_path / "deploy dir"
    directory.mkdir()
    (directory / "compose.yaml").write_text(
        "services:\n  sglang:\n    image: lmsysorg/sglang:latest\n"
        "    command: python3 -m sglang.launch_server --model-path ${MODEL} --port 30000\n"
    )
    (directory / ".env").write_text("MODEL=/models/qwen\n")
    result = run_cli([*sshd.cli_prefix(), "check", "--format", "json", str(directory / "compose.yaml")])
    assert result.status in (0, 1), result.stderr
    # the image's inherited ENTRYPOINT (NVIDIA's nvidia_entrypoint.sh, data/image_entrypoints.json) runs first
    argv = result.json["servers"][0]["argv"]
    assert argv[argv.index("--model-path") + 1] == "/models/qwen"
    assert argv[:2] == ["/opt/nvidia/nvidia_entrypoint.sh", "python3"]
