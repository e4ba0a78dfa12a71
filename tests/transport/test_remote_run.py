"""``argtrace --host NODE run SCRIPT ARGS``: the launch runs on the node (the private sshd on 127.0.0.1).

The node's session (OpenSSH's compiled-in PATH, the variables ``SetEnv`` sends) is not this test process's
environment, so what a capture shows can be told apart: a variable this process has with one value and the
node's session with another must show the node's. The probe's temporary directory on the node is found
from the launch's own output (the script echoes ``$ARGTRACE_PROBE_DIR``) and must be gone afterwards.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from argtrace.probe import probe_files, shim_names
from argtrace.remote.host import HostError
from tests.conftest import REPO, CliResult, run_cli
from tests.observed.fake_server import fake_site
from tests.transport.sshd import SshServer

NODE_VALUE = "node-side 'value' $HOME"
LOCAL_VALUE = "local-only-value"
SET_NODE_VALUE = f'SetEnv="ARGTRACE_TEST_NODE_ONLY={NODE_VALUE}"'  # sshd: AcceptEnv ARGTRACE_TEST_*


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


# Debian's bash sources ~/.bashrc for a script run over ssh (SSH_CLIENT set, SHLVL below 2), as for
# `ssh NODE bash SCRIPT`; this machine's ~/.bashrc runs `pyenv rehash`, whose lock cleanup (`rm`) the stub
# would record instead of running, leaving pyenv's lock behind. `argtrace --host NODE run` starts the launch
# with SHLVL=1 unless told otherwise (as from a shell on the node); the local run here gets the same.
NOT_FROM_SSHD = ["--env", "SHLVL=1"]


def _node_run(sshd: SshServer, *words: str) -> list[str]:
    return [
        *sshd.cli_prefix(),
        "--ssh-option",
        SET_NODE_VALUE,
        "run",
        "--format",
        "json",
        *words,
    ]


def _node_env(sshd: SshServer) -> dict[str, str]:
    from argtrace.remote.ssh import RemoteHost, parse_target

    options = [*sshd.ssh_options(), SET_NODE_VALUE]
    host = RemoteHost(parse_target(sshd.host), options)
    try:
        return host.environ()
    finally:
        host.close()


def _probe_dir(result: CliResult) -> str:
    lines = [
        line for line in result.json["capture"]["output_tail"].splitlines() if line.startswith("probe at ")
    ]
    assert len(lines) == 1, result.json["capture"]["output_tail"]
    return lines[0][len("probe at ") :]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _no_traceback(result: CliResult) -> None:
    assert "Traceback" not in result.stderr + result.stdout
    assert "internal error" not in result.stderr


@pytest.fixture
def node_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The launch's directory on the node, with a hostile name, and the fake SGLang install it uses."""
    directory = tmp_path / "node dir 'q' $X"
    directory.mkdir()
    fake_site(directory / "site")
    (directory / "marker").mkdir()
    # The same name with another value here: a capture showing this one would be the local environment.
    monkeypatch.setenv("ARGTRACE_TEST_NODE_ONLY", LOCAL_VALUE)
    return directory


SEED = """#!/bin/bash
cd "$(dirname "$0")"
echo "probe at $ARGTRACE_PROBE_DIR"
pkill -f sglang.launch_server
kill -TERM 4242424
rm -f "server 1.log"
export PYTHONPATH="$PWD/site"
export ARGTRACE_TEST_MARKER_DIR="$PWD/marker"
export CUDA_VISIBLE_DEVICES=$1
nohup python3 -m sglang.launch_server --model-path /models/Qwen3.6-27B --port "$2" \\
    --served-model-name "$ARGTRACE_TEST_NODE_ONLY" > "server 1.log" 2>&1 &
wait
"""


def test_remote_run_captures_the_nodes_launch(sshd: SshServer, node_dir: Path) -> None:
    script = _write(node_dir / "launch 'mtp' $GPU.sh", SEED)
    node_env = _node_env(sshd)
    assert node_env["ARGTRACE_TEST_NODE_ONLY"] == NODE_VALUE
    # An ssh session hands its command SHLVL=0: run starts the launch one level in (the note below).
    assert node_env["SHLVL"] == "0" and node_env["SSH_CLIENT"].startswith("127.0.0.1 ")
    python3 = shutil.which("python3", path=node_env["PATH"])
    assert python3 is not None
    result = run_cli(_node_run(sshd, str(script), "0", "30001"))
    _no_traceback(result)
    assert result.status in (0, 1), result.stderr
    capture = result.json["capture"]
    assert (capture["ran"], capture["exit_status"], capture["timed_out"]) == (True, 0, False)
    assert len(capture["servers"]) == 1
    server = capture["servers"][0]
    # The kernel's argv of the node's process: the node's python3 (found on the node session's PATH by the
    # shim), the script's arguments, and the value only the node's session has.
    assert server["argv"] == [
        python3,
        "-m",
        "sglang.launch_server",
        "--model-path",
        "/models/Qwen3.6-27B",
        "--port",
        "30001",
        "--served-model-name",
        NODE_VALUE,
    ]
    env = server["env"]
    assert env["ARGTRACE_TEST_NODE_ONLY"] == NODE_VALUE
    assert env["CUDA_VISIBLE_DEVICES"] == "0"
    assert env["PYTHONPATH"] == f"{node_dir}/site"
    assert env["ARGTRACE_TEST_MARKER_DIR"] == f"{node_dir}/marker"
    # The probe's entries and variables are removed again: the node session's PATH as it was.
    assert env["PATH"] == node_env["PATH"]
    assert "BASH_ENV" not in env
    assert sorted(k for k in env if k.startswith("ARGTRACE_")) == [
        "ARGTRACE_TEST_MARKER_DIR",
        "ARGTRACE_TEST_NODE_ONLY",
    ]
    assert server["cwd"] == str(node_dir)
    assert (server["framework"], server["framework_version"]) == ("sglang", "0.5.10.post1")
    assert server["framework_location"] == f"{node_dir}/site/sglang/__init__.py"
    assert server["via"] == "sitecustomize"
    assert server["heavy_modules_loaded"] == []
    assert server["interpreter"] == python3
    # The probe stopped the server before its entry module ran; the stubs recorded and did nothing.
    assert not (node_dir / "marker" / "STARTED").exists()
    assert capture["recorded_commands"] == [
        ["pkill", "-f", "sglang.launch_server"],
        ["kill", "-TERM", "4242424"],  # the builtin, replaced by the node's BASH_ENV function
        ["rm", "-f", "server 1.log"],
    ]
    assert capture["missing_commands"] == []
    assert "PR108" in result.codes()
    # Without --env SHLVL the launch runs as typed at the node's prompt: no ~/.bashrc, and the report says so.
    assert (
        f"the launch ran as typed in a shell on {sshd.host} (SHLVL=1: bash does not source ~/.bashrc); "
        f"`--env SHLVL=0` runs it as `ssh {sshd.host} bash SCRIPT` does, after the node's ~/.bashrc"
    ) in result.json["notes"]
    # The node's temporary probe directory is gone.
    probe = _probe_dir(result)
    assert re.fullmatch(r"/tmp/argtrace-run-[a-z0-9_]{8}", probe), probe
    assert not os.path.exists(probe)
    assert not any(f["code"] == "PR100" for f in result.json["findings"])


def test_remote_run_equals_the_local_run(sshd: SshServer, node_dir: Path) -> None:
    """The node is this machine: apart from the environment (the ssh session's against this process's),
    the remote capture is the local one."""
    script = _write(node_dir / "launch.sh", SEED)
    remote = run_cli(_node_run(sshd, str(script), "2", "30004"))
    local = run_cli(["run", "--format", "json", *NOT_FROM_SSHD, str(script), "2", "30004"])
    _no_traceback(remote)
    _no_traceback(local)
    assert remote.status == local.status

    def comparable(result: CliResult) -> dict[str, Any]:
        capture = dict(result.json["capture"])
        capture.pop("output_tail")  # names the probe directory
        servers = []
        for server in capture["servers"]:
            server = dict(server)
            env = server.pop("env")
            # --served-model-name: the local process has its own value of the variable
            server["argv"] = server["argv"][1:-1]
            server["env"] = {k: env.get(k) for k in ("CUDA_VISIBLE_DEVICES", "PYTHONPATH")}
            for key in ("interpreter", "interpreter_realpath", "python_version"):
                server.pop(key)  # the node's python3 and this process's PATH may differ
            servers.append(server)
        capture["servers"] = servers
        return capture

    assert comparable(remote) == comparable(local)
    assert comparable(remote)["servers"][0]["env"] == {
        "CUDA_VISIBLE_DEVICES": "2",
        "PYTHONPATH": f"{node_dir}/site",
    }
    assert remote.json["capture"]["servers"][0]["argv"][-1] == NODE_VALUE
    assert local.json["capture"]["servers"][0]["argv"][-1] == LOCAL_VALUE
    assert remote.codes() == local.codes()


def test_remote_run_no_stubs_runs_rm_on_the_node(sshd: SshServer, node_dir: Path) -> None:
    (node_dir / "old 1.log").write_text("old\n")
    script = _write(
        node_dir / "launch.sh",
        '#!/bin/bash\ncd "$(dirname "$0")"\nrm -f "old 1.log"\n'
        'PYTHONPATH="$PWD/site" python3 -m sglang.launch_server --model-path /m\n',
    )
    result = run_cli(_node_run(sshd, "--no-stubs", str(script)))
    _no_traceback(result)
    assert result.stderr == (
        "argtrace run --no-stubs: kill, pkill, killall, rm, ssh, scp, curl, wget, sleep, nvidia-smi will run "
        f"for real on {sshd.host} if the script calls them\n"
    )
    assert result.json["capture"]["recorded_commands"] == []
    assert not (node_dir / "old 1.log").exists()
    assert len(result.json["capture"]["servers"]) == 1


def test_remote_run_keep_reports_the_nodes_directory(sshd: SshServer, node_dir: Path) -> None:
    script = _write(node_dir / "launch.sh", SEED)
    node_python = shutil.which("python3", path=_node_env(sshd)["PATH"])
    result = run_cli(_node_run(sshd, "--keep", str(script), "1", "30002"))
    _no_traceback(result)
    probe = _probe_dir(result)
    try:
        assert f"probe directory kept: {sshd.host}:{probe}" in result.json["notes"]
        assert stat.S_IMODE(os.stat(probe).st_mode) == 0o700
        assert sorted(os.listdir(probe)) == [
            "argtrace-shim",
            "bash_env.sh",
            "bin",
            "captures",
            "output.log",
            "site",
            "stubs.jsonl",
        ]
        # The shim runs under the node's Python: the interpreter running the collector there.
        first = Path(probe, "argtrace-shim").read_text().splitlines()[0]
        assert first == f"#!{node_python} -I"
        assert result.json["capture"]["servers"][0]["env"]["CUDA_VISIBLE_DEVICES"] == "1"
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def test_remote_run_command_string(sshd: SshServer, node_dir: Path) -> None:
    command = (
        f"cd {_quote(str(node_dir))} && PYTHONPATH=$PWD/site python3 -m sglang.launch_server "
        '--model-path "$1" --tp-size 2'
    )
    result = run_cli(_node_run(sshd, "-c", command, "--", "arg0", "/models/a b"))
    _no_traceback(result)
    assert len(result.json["capture"]["servers"]) == 1, result.json["capture"]
    server = result.json["capture"]["servers"][0]
    assert server["argv"][1:] == [
        "-m",
        "sglang.launch_server",
        "--model-path",
        "/models/a b",
        "--tp-size",
        "2",
    ]
    assert server["cwd"] == str(node_dir)


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def test_remote_run_timeout_ends_the_launch_and_cleans_up(sshd: SshServer, node_dir: Path) -> None:
    script = _write(
        node_dir / "never starts $1.sh",
        "#!/bin/bash\n"
        'cd "$(dirname "$0")"\n'
        'echo "probe at $ARGTRACE_PROBE_DIR"\n'
        "python3 -c 'import time; time.sleep(300)' &\n"
        "echo $! > helper.pid\n"
        "wait\n",
    )
    result = run_cli(_node_run(sshd, "--timeout", "1.5", str(script)))
    _no_traceback(result)
    assert result.status == 1
    capture = result.json["capture"]
    assert (capture["exit_status"], capture["timed_out"], capture["servers"]) == (None, True, [])
    pr110 = [f["message"] for f in result.json["findings"] if f["code"] == "PR110"]
    assert pr110 == ["no server start within 1.5 s"]
    helper = int((node_dir / "helper.pid").read_text())
    assert not _alive(helper)  # argtrace ended the launch's process group on the node before answering
    assert not os.path.exists(_probe_dir(result))


def test_remote_run_refusal_looks_at_the_nodes_files(sshd: SshServer, tmp_path: Path) -> None:
    """``/path/sglang serve`` is refused when the node's file there is a binary launcher."""
    (tmp_path / "bin").mkdir()
    shutil.copy("/bin/true", tmp_path / "bin" / "sglang")
    script = _write(tmp_path / "launch.sh", f"#!/bin/bash\ntouch ran.txt\n{tmp_path}/bin/sglang serve /m\n")
    result = run_cli([*sshd.cli_prefix(), "run", "--format", "json", *NOT_FROM_SSHD, str(script)])
    _no_traceback(result)
    assert result.status == 1
    assert [f["message"] for f in result.json["findings"] if f["code"] == "PR106"] == [
        f"not run: {tmp_path}/bin/sglang is not a Python console script (a binary launcher)"
    ]
    assert not (tmp_path / "ran.txt").exists()
    assert result.json["capture"] == {
        "ran": False,
        "refused": [f"{tmp_path}/bin/sglang is not a Python console script (a binary launcher)"],
    }


def test_remote_run_refuses_a_python3_wrapper_with_dash_s(sshd: SshServer, node_dir: Path) -> None:
    """The bare node's `python3` is `#!/bin/sh exec python3.11 -S "$@"`: no site, so no probe. Without the
    refusal the (fake) server would start for real until the timeout."""
    script = _write(node_dir / "launch.sh", SEED)
    prefix = sshd.cli_prefix(f"127.0.0.1:{sshd.bare_port}")
    result = run_cli([*prefix, "run", "--format", "json", *NOT_FROM_SSHD, str(script), "0", "30003"])
    _no_traceback(result)
    reason = (
        f"`python3` is {sshd.root / 'bare-bin' / 'python3'}, a wrapper script that runs Python with -S: the "
        "probe would not load, the server would start for real"
    )
    assert result.json["capture"] == {"ran": False, "refused": [reason]}
    assert not (node_dir / "marker" / "STARTED").exists()


def test_remote_run_errors_exit_2(sshd: SshServer, tmp_path: Path) -> None:
    missing = run_cli([*sshd.cli_prefix(), "run", *NOT_FROM_SSHD, str(tmp_path / "no such.sh")])
    assert missing.status == 2
    assert missing.stderr == f"argtrace run: {sshd.host}:{tmp_path / 'no such.sh'}: no such file\n"
    no_python = run_cli([*sshd.cli_prefix(f"127.0.0.1:{sshd.no_python_port}"), "run", "-c", "true"])
    assert no_python.status == 2 and "has no python3 on the PATH" in no_python.stderr
    unknown = run_cli(["--host", "gpu-node.invalid", "run", "-c", "python3 -m sglang.launch_server"])
    assert unknown.status == 2
    assert unknown.stderr.startswith("argtrace run: gpu-node.invalid: unknown host (")


def test_remote_run_cleans_up_when_the_connection_drops(sshd: SshServer, node_dir: Path) -> None:
    """The ssh client dies mid-run: the node side ends the launch and removes its directory."""
    from argtrace.remote.ssh import RemoteHost, parse_target

    started = node_dir / "probe.txt"
    script = _write(
        node_dir / "slow.sh",
        "#!/bin/bash\n"
        'cd "$(dirname "$0")"\n'
        "python3 -c 'import time; time.sleep(300)' &\n"
        "echo $! > helper.pid\n"
        'echo "$ARGTRACE_PROBE_DIR" > probe.tmp && mv probe.tmp probe.txt\n'
        "wait\n",
    )
    host = RemoteHost(parse_target(sshd.host), sshd.ssh_options())
    outcome: list[Any] = []

    def call() -> None:
        try:
            env = {**host.environ(), "SHLVL": "1"}
            argv, files, names = ["bash", str(script)], probe_files(), shim_names()
            done = host.run_probe(argv, env, files=files, names=names, expected=1, timeout=240)
            outcome.append(done)
        except HostError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    try:
        for _ in range(400):  # the launch has started on the node
            if started.exists():
                break
            time.sleep(0.05)
        probe = started.read_text().strip()
        helper = int((node_dir / "helper.pid").read_text())
        assert os.path.isdir(probe) and _alive(helper)
        assert host._proc is not None
        host._proc.kill()  # the connection drops (as when the laptop sleeps)
        worker.join(timeout=30)
        for _ in range(400):
            if not os.path.exists(probe) and not _alive(helper):
                break
            time.sleep(0.05)
        assert not os.path.exists(probe)
        assert not _alive(helper)
        assert len(outcome) == 1 and isinstance(outcome[0], HostError)
        assert (outcome[0].kind, str(outcome[0])) == (
            "protocol",
            f"{sshd.host}: the connection ended unexpectedly (exit status -9)",
        )
    finally:
        host.close()


def test_probe_files_run_on_python_38() -> None:
    """The probe files run under the node's interpreters: nothing newer than Python 3.8."""
    vermin = shutil.which("vermin")
    if vermin is None:
        pytest.skip("vermin is not installed (pip install vermin)")
    files = [REPO / "src/argtrace/probe/sitecustomize.py", REPO / "src/argtrace/probe/shim.py"]
    proc = subprocess.run(
        [vermin, "--no-tips", "--violations", "-t=3.8-", *map(str, files)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
