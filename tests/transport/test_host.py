"""The Host seam: the collector locally and over a real ssh connection, hostile names, clear errors."""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from argtrace.layers.hostlog import log_reader
from argtrace.model import UsageError
from argtrace.remote.host import Host, HostError, LocalHost, current_host, use_host
from argtrace.remote.ssh import REMOTE_COMMAND, RemoteHost, TransportError, parse_target, ssh_argv
from tests.conftest import REPO
from tests.transport.sshd import SshServer

HOSTILE_NAMES = [
    "with space.sh",
    "it's.sh",
    'dq"uote.sh',
    "$HOME.sh",
    "$(touch pwned).sh",
    "`id`.sh",
    "new\nline.sh",
    "semi;colon&amp.sh",
    "-n.sh",
    "star*.sh",
    "tab\there.sh",
    "ünïcode.sh",
]


@pytest.fixture
def remote(sshd: SshServer) -> Iterator[RemoteHost]:
    host = RemoteHost(parse_target(sshd.host), sshd.ssh_options())
    try:
        yield host
    finally:
        host.close()


# --------------------------------------------------------------------------------------- pure parts


def test_collector_runs_on_python_38() -> None:
    """The collector (and the log reader and grep prefilter it ships) use nothing newer than Python 3.8."""
    vermin = shutil.which("vermin")
    if vermin is None:
        pytest.skip("vermin is not installed (pip install vermin)")
    files = [
        REPO / "src/argtrace/remote/collector.py",
        REPO / "src/argtrace/remote/collector_files.py",
        REPO / "src/argtrace/layers/log/reader.py",
        REPO / "src/argtrace/layers/log/prefilter.py",
        REPO / "src/argtrace/layers/log/lines.py",
    ]
    proc = subprocess.run(
        [vermin, "--no-tips", "--violations", "-t=3.8-", *map(str, files)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("text", "host", "user", "port"),
    [
        ("gpu1", "gpu1", None, None),
        ("root@154.59.156.20:19248", "154.59.156.20", "root", 19248),
        ("me@[::1]:2222", "::1", "me", 2222),
        ("fe80::1", "fe80::1", None, None),
        ("a.b-c_d", "a.b-c_d", None, None),
        ("user@name@host", "host", "user@name", None),
    ],
)
def test_parse_target(text: str, host: str, user: str | None, port: int | None) -> None:
    target = parse_target(text)
    assert (target.host, target.user, target.port) == (host, user, port)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "-oProxyCommand=touch /tmp/pwned",
        "host:0",
        "host:99999",
        "host:ssh",
        "ho st",
        "host;id",
        "$(id)",
        "`id`",
        "host\nname",
        "-l@host",
        "[::1",
        "@host",
    ],
)
def test_hostile_host_names_are_refused(text: str) -> None:
    with pytest.raises(UsageError):
        parse_target(text)


def test_ssh_argv_never_contains_user_input_in_the_remote_command() -> None:
    argv = ssh_argv(parse_target("alice@gpu1:2200"), ["ProxyJump=bastion"])
    assert argv[-1] == REMOTE_COMMAND
    assert argv[-3:-1] == ["--", "gpu1"]
    assert argv[argv.index("-p") + 1] == "2200" and argv[argv.index("-l") + 1] == "alice"
    # the user's -o comes first (for ssh the first value wins), our defaults after
    assert argv.index("ProxyJump=bastion") < argv.index("BatchMode=yes")
    with pytest.raises(UsageError):
        ssh_argv(parse_target("gpu1"), ["-oProxyCommand=x"])


def test_the_bootstrap_parses_in_posix_shells() -> None:
    """The fixed remote command is one single-quoted python3 invocation: bash -n and sh -n accept it."""
    for shell in ("bash", "sh"):
        if shutil.which(shell):
            assert subprocess.run([shell, "-n", "-c", REMOTE_COMMAND]).returncode == 0
    assert "'" not in REMOTE_COMMAND[len("python3 -c '") : -1]


def test_local_host_is_the_default(tmp_path: Path) -> None:
    assert isinstance(current_host(), LocalHost)
    (tmp_path / "a b").write_bytes(b"x\r\n")
    host = current_host()
    assert host.read_bytes(str(tmp_path / "a b")) == b"x\r\n"
    assert host.stat(str(tmp_path / "a b")).is_file
    assert not host.stat(str(tmp_path / "nope")).exists
    with pytest.raises(HostError) as info:
        host.read_bytes(str(tmp_path / "nope"))
    assert info.value.kind == "not_found"


# ------------------------------------------------------------------------------------------ remote


def _same_observations(host: Host, path: Path) -> tuple[object, ...]:
    return (
        host.read_bytes(str(path)),
        host.stat(str(path)).size,
        host.run_bash_n(path=str(path)).returncode,
    )


def test_remote_reads_hostile_file_names(remote: RemoteHost, tmp_path: Path) -> None:
    for index, name in enumerate(HOSTILE_NAMES):
        target = tmp_path / name
        content = f"echo {index}\n".encode()
        target.write_bytes(content)
        assert remote.read_bytes(str(target)) == content, name
        assert remote.stat(str(target)).is_file
        assert _same_observations(remote, target) == _same_observations(LocalHost(), target)
    # a name that is not UTF-8 at all travels too
    raw = os.fsencode(str(tmp_path)) + b"/bad\xff\xfe.sh"
    with open(raw, "wb") as fh:
        fh.write(b"echo raw\n")
    assert remote.read_bytes(os.fsdecode(raw)) == b"echo raw\n"
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()
    assert sorted(remote.listdir(str(tmp_path))) == sorted(os.listdir(tmp_path))


def test_remote_observations(remote: RemoteHost, tmp_path: Path) -> None:
    info = remote.info()
    assert info.user and info.python >= (3, 8)
    assert remote.is_remote and remote.label == str(parse_target(remote.label))
    assert "PATH" in remote.environ()
    crlf = tmp_path / "launch.sh"
    crlf.write_bytes(b"if true; then\r\n  echo hi\r\nfi\r\n")
    check = remote.run_bash_n(b"if true; then\n echo\n")
    assert check.bash and check.returncode == 2 and "syntax error" in check.stderr
    assert remote.run_bash_n(b"echo ok\n").ok
    assert remote.which("bash")["bash"]
    assert remote.which("surely-not-a-command-xyz") == {"surely-not-a-command-xyz": None}
    result = remote.run(["sh", "-c", 'printf "%s" "$1"', "sh", "a b$c"])
    assert result.returncode == 0 and result.stdout == b"a b$c"
    with pytest.raises(HostError) as info_missing:
        remote.read_bytes(str(tmp_path / "missing file"))
    assert info_missing.value.kind == "not_found"
    with pytest.raises(HostError) as info_dir:
        remote.read_bytes(str(tmp_path))
    assert info_dir.value.kind == "is_directory"
    with pytest.raises(UsageError, match="is a directory"):
        remote.read_input(str(tmp_path), what="launch script")
    with pytest.raises(UsageError, match="no such file"):
        remote.read_input(str(tmp_path / "nope.sh"), what="launch script")


def test_remote_processes(remote: RemoteHost) -> None:
    marker = "argtrace-marker-7f3a"
    env = {**os.environ, "SGLANG_TEST_MARK": "1", "HF_TOKEN": "hf_" + "x" * 30}
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)", marker, "--port", "30000"], env=env
    )
    try:
        found = [p for p in remote.processes(match=[marker]) if marker in p.argv]
        assert len(found) == 1
        snap = found[0]
        assert snap.pid == proc.pid and snap.argv[-2:] == ("--port", "30000")
        assert snap.env is not None and snap.env["SGLANG_TEST_MARK"] == "1"
        assert snap.start_time is not None and snap.ppid == os.getpid()
    finally:
        proc.kill()
        proc.wait()


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"model_path": "/m/qwen", "auth": "%s"}' % self.headers.get("Authorization", "").encode()
        self.send_response(200 if self.path == "/server_info" else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_remote_http_get(remote: RemoteHost) -> None:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        ok = remote.http_get(url + "/server_info", headers={"Authorization": "Bearer k"})
        assert ok.status == 200 and b"/m/qwen" in ok.body and b"Bearer k" in ok.body
        assert remote.http_get(url + "/nope").status == 404
    finally:
        server.shutdown()
        server.server_close()
    refused = remote.http_get(url + "/server_info", timeout=2)
    assert refused.status is None and refused.error == "refused"


def test_remote_log_scan_ships_only_the_kept_lines(remote: RemoteHost, tmp_path: Path) -> None:
    log = tmp_path / "sglang mtp.log"
    boring = b"[2026-01-01 00:00:00] Decode batch. #running-req: 1, #token: 10, gen throughput (token/s): 1\n"
    with log.open("wb") as fh:
        fh.write(b"[2026-01-01 00:00:00] server_args=ServerArgs(model_path='/m', port=30000)\n")
        for _ in range(20):
            fh.write(boring * 10_000)
        fh.write(b"ValueError: Speculative decoding ... --mamba-scheduler-strategy no_buffer\n")
    scan = remote.scan_log(str(log), log_reader())
    local = LocalHost().scan_log(str(log), log_reader())
    assert [(line.number, line.text) for line in scan.lines] == [
        (line.number, line.text) for line in local.lines
    ]
    assert scan.total_lines == local.total_lines == 200_002
    assert any("no_buffer" in line.text for line in scan.lines)


def test_the_log_layer_hands_the_host_seam_its_reader(tmp_path: Path) -> None:
    """``remote`` imports no layer and keeps no reader: ``Host.scan_log`` reads with the reader it is handed
    (``layers/hostlog.py``), whose modules load only when a log is read."""
    log = tmp_path / "server.log"
    log.write_bytes(b"[2026-01-01 00:00:00] server_args=ServerArgs(model_path='/m', port=30000)\nboring\n")
    code = (
        "import sys\n"
        "from argtrace.remote.host import LocalHost\n"
        "from argtrace.layers.hostlog import log_reader\n"
        "print('argtrace.layers.log.reader' in sys.modules)\n"
        f"scan = LocalHost().scan_log({str(log)!r}, log_reader())\n"
        "print(scan.total_lines, [line.number for line in scan.lines])\n"
        "print([m.__name__ for m in log_reader().modules])\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.splitlines() == [
        "False",
        "2 [1]",
        "['argtrace.layers.log.lines', 'argtrace.layers.log.prefilter', 'argtrace.layers.log.reader']",
    ]


def test_use_host_sets_and_closes(sshd: SshServer) -> None:
    host = RemoteHost(parse_target(sshd.host), sshd.ssh_options())
    with use_host(host):
        assert current_host() is host
        assert current_host().stat("/").is_dir
    assert isinstance(current_host(), LocalHost)
    assert host._proc is None


# -------------------------------------------------------------------------------------- failures


def test_unreachable_host(sshd: SshServer) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    host = RemoteHost(parse_target(f"127.0.0.1:{port}"), sshd.ssh_options())
    with pytest.raises(TransportError) as info:
        host.stat("/")
    assert info.value.kind == "unreachable" and "refused" in str(info.value).lower()


def test_authentication_failure(sshd: SshServer, tmp_path: Path) -> None:
    other = tmp_path / "other_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    options = [o for o in sshd.ssh_options() if not o.startswith("IdentityFile=")]
    host = RemoteHost(parse_target(sshd.host), [f"IdentityFile={other}", *options])
    with pytest.raises(TransportError) as info:
        host.stat("/")
    assert info.value.kind == "auth" and "authentication failed" in str(info.value)


def test_host_key_mismatch(sshd: SshServer, tmp_path: Path) -> None:
    wrong = tmp_path / "known_hosts"
    other = tmp_path / "hk"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    key = (tmp_path / "hk.pub").read_text().split()
    wrong.write_text(f"[127.0.0.1]:{sshd.port} {key[0]} {key[1]}\n")
    options = [o for o in sshd.ssh_options() if not o.startswith("UserKnownHostsFile=")]
    host = RemoteHost(parse_target(sshd.host), [f"UserKnownHostsFile={wrong}", *options])
    with pytest.raises(TransportError) as info:
        host.stat("/")
    assert info.value.kind == "host_key"


def test_node_without_python3(sshd: SshServer) -> None:
    # On this port the test sshd runs every command with a PATH that has no python3 (ForceCommand).
    host = RemoteHost(parse_target(f"127.0.0.1:{sshd.no_python_port}"), sshd.ssh_options())
    with pytest.raises(TransportError) as info:
        host.stat("/")
    assert info.value.kind == "no_python" and "python3" in str(info.value)


def test_login_banner_on_stdout_is_skipped(sshd: SshServer) -> None:
    host = RemoteHost(parse_target(f"127.0.0.1:{sshd.noisy_port}"), sshd.ssh_options())
    try:
        assert host.stat("/").is_dir
        assert host.noise[0] == "Welcome to gpu1 (conda base)"
    finally:
        host.close()


def test_missing_ssh_client(sshd: SshServer) -> None:
    host = RemoteHost(parse_target(sshd.host), ssh="/nonexistent/ssh")
    with pytest.raises(TransportError) as info:
        host.stat("/")
    assert info.value.kind == "ssh_missing"
