"""``argtrace --host NODE log|ps|live|run`` and ``check --log/--pid/--url`` through the real CLI.

The private sshd runs on this machine, so the node's files, processes and 127.0.0.1 are this machine's: a
remote run must give exactly what the local run gives, and the tests compare the two. The ``bare_port``
sessions run ``python3 -S`` (argtrace is not importable there, as on a real GPU node).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks.schema import bundled_versions
from tests.conftest import CliResult, run_cli
from tests.live.fixture_server import serve_fixture
from tests.observed.fake_server import fake_site, start_fake_server, stop
from tests.transport.sshd import SshServer

HOSTILE_NAMES = ["it's a log $X.log", "new\nline $(id).log", "-dash;semi.log", "sp ace `x`.log"]
ARGS_LINE = (
    "[2026-11-30 05:00:00] server_args=ServerArgs(model_path='/m', port=30000, "
    "mamba_scheduler_strategy='no_buffer')\n"
)
BORING_LINE = "[2026-11-30 05:00:01] Decode batch. #running-req: 1, #token: 10, gen throughput (token/s): 1\n"
ERROR_LINE = (
    "ValueError: Speculative decoding for Qwen3_5ForConditionalGeneration is not compatible with radix "
    "cache when using --mamba-scheduler-strategy no_buffer.\n"
)


def _write_log(path: Path, boring_lines: int) -> None:
    with path.open("w") as fh:
        fh.write(ARGS_LINE)
        block = BORING_LINE * 10_000
        for _ in range(boring_lines // 10_000):
            fh.write(block)
        fh.write(BORING_LINE * (boring_lines % 10_000))
        fh.write(ERROR_LINE)


def _no_traceback(*results: CliResult) -> None:
    for result in results:
        assert "Traceback" not in result.stderr + result.stdout
        assert "internal error" not in result.stderr


def _at_node(sshd: SshServer, port: int | None = None) -> list[str]:
    return sshd.cli_prefix(f"127.0.0.1:{port}" if port is not None else None)


# ------------------------------------------------------------------------------------------------- log


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_remote_log_with_a_hostile_name_equals_the_local_run(
    sshd: SshServer, tmp_path: Path, name: str
) -> None:
    directory = tmp_path / "logs $HOME"
    directory.mkdir()
    log = directory / name
    _write_log(log, 50_000)
    local = run_cli(["log", "--format", "json", str(log)])
    remote = run_cli([*_at_node(sshd, sshd.bare_port), "log", "--format", "json", str(log)])
    _no_traceback(local, remote)
    assert (local.status, remote.status) == (1, 1)
    assert remote.json == local.json
    report = remote.json
    assert [(f["code"], f["at"]) for f in report["findings"]] == [("LG004", f"{log}:50002")]
    assert report["log"]["path"] == str(log)
    assert report["log"]["lines"] == 50_002
    assert report["log"]["launches"][0]["state"] == "failed"
    setting = report["settings"][0]
    assert (setting["name"], setting["effective"]) == ("mamba_scheduler_strategy", "no_buffer")
    assert setting["history"][0]["at"] == f"{log}:1"


@pytest.mark.parametrize("boring_lines", [200_000, 800_000])  # 19 MB streamed, 76 MB through grep
def test_remote_log_is_filtered_on_a_node_without_argtrace(
    sshd: SshServer, tmp_path: Path, boring_lines: int
) -> None:
    """The reader and its grep prefilter travel to the node and run there; only kept lines come back."""
    from argtrace.layers.hostlog import log_reader
    from argtrace.remote.ssh import RemoteHost, parse_target

    log = tmp_path / "big server.log"
    _write_log(log, boring_lines)
    size = log.stat().st_size
    host = RemoteHost(parse_target(f"127.0.0.1:{sshd.bare_port}"), sshd.ssh_options())
    try:
        scan = host.scan_log(str(log), log_reader(), "big server.log")
        received = host.bytes_received
    finally:
        host.close()
    assert scan.total_lines == boring_lines + 2
    assert [(line.number, line.text) for line in scan.lines] == [
        (1, ARGS_LINE.rstrip("\n")),
        (boring_lines + 2, ERROR_LINE.rstrip("\n")),
    ]
    assert size > 18_000_000
    assert received < 16_000  # the hello, two kept lines and the protocol (about 2 kB): not the log
    remote = run_cli([*_at_node(sshd, sshd.bare_port), "log", "--format", "json", str(log)])
    local = run_cli(["log", "--format", "json", str(log)])
    _no_traceback(remote)
    assert remote.json == local.json
    assert [f["code"] for f in remote.json["findings"]] == ["LG004"]


def test_remote_log_errors_exit_2(sshd: SshServer, tmp_path: Path) -> None:
    missing = run_cli([*_at_node(sshd), "log", str(tmp_path / "no such.log")])
    assert missing.status == 2
    assert missing.stderr == f"argtrace log: {sshd.host}:{tmp_path / 'no such.log'}: no such file\n"
    directory = run_cli([*_at_node(sshd), "log", str(tmp_path)])
    assert directory.status == 2
    assert directory.stderr == f"argtrace log: {sshd.host}:{tmp_path}: is a directory, not a log file\n"
    no_python = run_cli([*_at_node(sshd, sshd.no_python_port), "log", str(tmp_path / "x.log")])
    assert no_python.status == 2 and "has no python3 on the PATH" in no_python.stderr
    closed = _closed_port()
    unreachable = run_cli(
        ["--host", f"127.0.0.1:{closed}", "--ssh-option", "ConnectTimeout=5", "log", str(tmp_path)]
    )
    assert unreachable.status == 2
    assert unreachable.stderr.startswith(f"argtrace log: 127.0.0.1:{closed}: cannot connect (")
    _no_traceback(missing, directory, no_python, unreachable)


def test_remote_fifo_and_long_names_exit_2(sshd: SshServer, tmp_path: Path) -> None:
    """On the node as here: a FIFO is refused unopened (the collector would block on it), and so is a path
    component too long for the node's file system."""
    fifo = tmp_path / "server.log"
    os.mkfifo(fifo)
    refused = run_cli([*_at_node(sshd), "log", str(fifo)])
    assert (refused.status, refused.stderr) == (
        2,
        f"argtrace log: {sshd.host}:{fifo}: is a named pipe (FIFO), not a log file\n",
    )
    long = "/tmp/" + "a" * 300 + "/server.log"
    too_long = run_cli([*_at_node(sshd), "log", long])
    assert (too_long.status, too_long.stderr) == (
        2,
        f"argtrace log: {sshd.host}:{long}: file name too long\n",
    )
    _no_traceback(refused, too_long)


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_remote_unreadable_log_exit_2(sshd: SshServer, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    log = tmp_path / "secret.log"
    _write_log(log, 10)
    log.chmod(0)
    result = run_cli([*_at_node(sshd), "log", str(log)])
    assert result.status == 2 and "Permission denied" in result.stderr
    _no_traceback(result)


# -------------------------------------------------------------------------------------------- check --log

LAUNCH = (
    "#!/bin/bash\n"
    "python3 -m sglang.launch_server --model-path /m --port 30000 "
    "--speculative-algorithm EAGLE --mamba-scheduler-strategy extra_buffer\n"
)


def test_remote_check_log(sshd: SshServer, tmp_path: Path) -> None:
    directory = tmp_path / "run 'one'"
    directory.mkdir()
    script = directory / "launch $1.sh"
    script.write_text(LAUNCH)
    log = directory / "server\nout.log"
    _write_log(log, 1_000)
    argv = [
        "check",
        "--format",
        "json",
        "--no-shellcheck",
        "--clean-env",
        "--log",
        str(log),
        "--launched-after",
        "2026-11-30T04:00:00",
        str(script),
    ]
    local = run_cli(argv)
    remote = run_cli([*_at_node(sshd, sshd.bare_port), *argv])
    _no_traceback(local, remote)
    assert remote.status == local.status == 1
    log_findings = [(f["code"], f["at"]) for f in remote.json["findings"] if f["layer"] == "log"]
    assert log_findings == [(f["code"], f["at"]) for f in local.json["findings"] if f["layer"] == "log"]
    assert log_findings == [("LG004", f"{log}:1002"), ("LG002", f"{log}:1"), ("LG013", f"{log}:1")]
    # the analysed release calls it mamba_radix_cache_strategy; the log's launch says no_buffer
    setting = next(s for s in remote.json["settings"] if s["name"] == "mamba_radix_cache_strategy")
    assert setting["intended"] == "extra_buffer"
    assert [(h["layer"], h["value"]) for h in setting["history"]][-1] == ("log", "no_buffer")
    assert remote.json["log"]["path"] == str(log)
    missing = run_cli([*_at_node(sshd), *argv[:5], "--log", str(directory / "nope.log"), str(script)])
    assert missing.status == 2
    assert missing.stderr == f"argtrace check: --log {sshd.host}:{directory / 'nope.log'}: no such file\n"
    _no_traceback(missing)


# --------------------------------------------------------------------------------------- ps, check --pid


@pytest.fixture
def fake_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    site = fake_site(tmp_path / "site")
    port_file = tmp_path / "port"
    proc = start_fake_server(
        site,
        ["--model-path", "/models/qwen", "--port", "30000", "--api-key", "sk-argtrace-remote-key-0123456789"],
        env={"SGLANG_ENABLE_SPEC_V2": "1", "CUDA_VISIBLE_DEVICES": "0,1"},
        cwd=tmp_path,
        port_file=port_file,
    )
    try:
        yield proc, port_file
    finally:
        stop(proc)


def _process(result: CliResult, pid: int) -> dict[str, Any]:
    found = [p for p in result.json["processes"] if p["pid"] == pid]
    assert len(found) == 1, result.json
    item: dict[str, Any] = found[0]
    return item


def test_remote_ps_finds_the_fake_server(
    sshd: SshServer, fake_server: tuple[subprocess.Popen[bytes], Path], tmp_path: Path
) -> None:
    proc, port_file = fake_server
    local = run_cli(["ps", "--format", "json"])
    remote = run_cli([*_at_node(sshd, sshd.bare_port), "ps", "--format", "json"])
    _no_traceback(local, remote)
    assert remote.status == 0, remote.stderr
    item = _process(remote, proc.pid)
    assert item == _process(local, proc.pid)
    assert item["framework"] == "sglang" and item["framework_version"] == "0.5.10.post1"
    assert item["role"] == "server" and item["entrypoint"] == "sglang.launch_server"
    assert item["argv"][1:5] == ["-m", "sglang.launch_server", "--model-path", "/models/qwen"]
    assert item["argv"][5:7] == ["--port", "30000"]
    assert item["argv"][8] != "sk-argtrace-remote-key-0123456789"  # redacted as locally
    assert item["env"]["SGLANG_ENABLE_SPEC_V2"] == "1"
    assert item["env"]["CUDA_VISIBLE_DEVICES"] == "0,1"
    assert item["cwd"] == str(tmp_path)
    assert item["interpreter"] == os.path.realpath(sys.executable)
    assert item["listening"] == [f"127.0.0.1:{port_file.read_text().strip()}"]
    assert [(c["role"], c["title"]) for c in item["children"]] == [("scheduler", "sglang::scheduler_TP0")]
    # a worker's pid leads to its server, as locally
    worker = item["children"][0]["pid"]
    by_worker = run_cli([*_at_node(sshd), "ps", "--format", "json", "--pid", str(worker)])
    assert [p["pid"] for p in by_worker.json["processes"]] == [proc.pid]
    other = run_cli([*_at_node(sshd), "ps", "--format", "json", "--framework", "vllm"])
    assert [p["pid"] for p in other.json["processes"] if p["pid"] == proc.pid] == []
    unreachable = run_cli([*_at_node(sshd, sshd.no_python_port), "ps"])
    assert unreachable.status == 2 and "has no python3 on the PATH" in unreachable.stderr
    _no_traceback(by_worker, other, unreachable)


def test_remote_ps_no_such_pid(sshd: SshServer) -> None:
    pid = 2**22 + 12345  # above the default pid_max: never a live process
    result = run_cli([*_at_node(sshd), "ps", "--pid", str(pid)])
    assert result.status == 2
    assert result.stderr == f"argtrace ps: --pid {pid}: no such process on {sshd.host}\n"


def test_remote_check_pid(sshd: SshServer, fake_server: tuple[subprocess.Popen[bytes], Path]) -> None:
    proc, _ = fake_server
    command = f"{sys.executable} -m sglang.launch_server --model-path /models/qwen --port 30001"
    argv = ["check", "--format", "json", "--no-shellcheck", "--pid", str(proc.pid), "-c", command]
    remote = run_cli([*_at_node(sshd), *argv])
    local = run_cli(argv)
    _no_traceback(remote, local)
    assert remote.status == 1, remote.stderr
    observed = remote.json["observed_process"]
    assert observed == local.json["observed_process"]
    assert observed["pid"] == proc.pid and observed["framework_version"] == "0.5.10.post1"
    messages = {f["code"]: f["message"] for f in remote.json["findings"] if f["code"] in ("PR100", "PR102")}
    assert messages["PR100"].startswith(
        f"server argv words differ: predicted '30001', pid {proc.pid} got '30000 --api-key <redacted:"
    )
    assert "PR102" not in messages  # the same interpreter, resolved on the node
    auto = run_cli([*_at_node(sshd), *argv[:4], "--pid", "auto", "-c", command])
    assert auto.json["observed_process"]["pid"] == proc.pid


# ------------------------------------------------------------------------------------ live, check --url


def test_remote_live_reads_the_url_from_the_node(sshd: SshServer, monkeypatch: pytest.MonkeyPatch) -> None:
    with serve_fixture("sglang-0.5.10.post1") as server:
        local = run_cli(["live", server.url, "--format", "json"])
        # from here on this process cannot open a URL: what the remote run shows came through the node
        # (the node runs its own copy of the collector; this process's copy must not be asked)
        import argtrace.remote.collector as collector

        def no_local_http(*args: object, **kwargs: object) -> object:
            raise AssertionError("fetched locally")

        monkeypatch.setattr(collector, "_get_once", no_local_http)
        remote = run_cli([*_at_node(sshd, sshd.bare_port), "live", server.url, "--format", "json"])
        requested = [path for path, _ in server.requests]
    _no_traceback(local, remote)
    assert remote.status == local.status == 0
    node = f"127.0.0.1:{sshd.bare_port}"
    assert remote.json["notes"] == [f"{server.url} was read from {node}, as that node sees it"]
    assert {k: v for k, v in remote.json.items() if k != "notes"} == {
        k: v for k, v in local.json.items() if k != "notes"
    }
    assert remote.json["live"]["framework"] == "sglang"
    assert requested.count("/server_info?config_format=json") == 2
    refused = run_cli([*_at_node(sshd), "live", server.url, "--format", "json"])
    assert refused.status == 1
    assert [(f["code"], f["message"]) for f in refused.json["findings"]] == [
        (
            "LV001",
            f"{server.url}: connection refused (nothing listens on that port, or the server is still "
            "loading the model)",
        )
    ]
    _no_traceback(refused)


def test_remote_check_url_with_the_launch_key(sshd: SshServer, tmp_path: Path) -> None:
    key = "sk-argtrace-fixture-key-0000000000"
    script = tmp_path / "launch.sh"
    script.write_text(
        "#!/bin/bash\npython3 -m sglang.launch_server --model-path /models/Qwen3.6-27B --tp-size 2 "
        f"--dp-size 2 --mamba-scheduler-strategy extra_buffer --chunked-prefill-size 8192 --api-key {key}\n"
    )
    with serve_fixture("sglang-0.5.10.post1-apikey") as server:
        argv = ["check", "--format", "json", "--no-shellcheck", "--clean-env", "--url", server.url]
        argv.append(str(script))
        remote = run_cli([*_at_node(sshd), *argv])
        authorized = {auth for _, auth in server.requests}
        local = run_cli(argv)
    _no_traceback(remote, local)
    # The node's python3 has no SGLang (TP015, an error there). The live server's /server_info decides the
    # release (0.5.10.post1, source "live") on both sides, so the analysis is not an assumption and the
    # running server's no_buffer against the intended extra_buffer is an error (LV005), as in the seed story.
    assert (remote.status, local.status) == (1, 1), remote.stderr
    assert remote.json["framework"]["source"] == local.json["framework"]["source"] == "live"
    assert [f["code"] for f in remote.json["findings"] if f["severity"] == "error"] == ["TP015", "LV005"]
    assert [f["code"] for f in local.json["findings"] if f["severity"] == "error"] == ["LV005"]
    assert remote.json["live"] == local.json["live"]
    assert remote.json["live"]["authenticated"] is True
    assert authorized == {f"Bearer {key}"}  # the launch's own --api-key, sent from the node
    live = [(f["code"], f["setting"]) for f in remote.json["findings"] if f["layer"] == "live"]
    assert live == [(f["code"], f["setting"]) for f in local.json["findings"] if f["layer"] == "live"]
    assert ("LV006", "kv_cache_dtype") in live
    setting = next(s for s in remote.json["settings"] if s["name"] == "mamba_scheduler_strategy")
    assert (setting["effective"], setting["history"][-1]["layer"]) == ("no_buffer", "live")
    assert key not in remote.stdout


# ---------------------------------------------------------- check: shell layer and installed version


def test_remote_check_sources_the_nodes_file_and_never_runs_the_nodes_python(
    sshd: SshServer, tmp_path: Path
) -> None:
    """``source NAME`` searches the node's PATH (only the bare port's PATH has ``bare-bin``); the
    ``python3`` found there is a shell script (``exec python -S``), so the framework version is unknown:
    what a wrapper starts is known only by running it, and argtrace never runs it."""
    mods = tmp_path / "mods $x"
    dist = mods / "sglang-0.5.10.post1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.10.post1\n")
    env_file = sshd.root / "bare-bin" / f"node env it's {tmp_path.name}.sh"
    env_file.write_text("export PORT=31000\n")
    script = tmp_path / "launch.sh"
    script.write_text(
        f"#!/bin/bash\nexport PYTHONPATH='{mods}'\nsource \"{env_file.name}\"\n"
        "python3 -m sglang.launch_server --model-path /m --port $PORT\n"
    )
    argv = ["check", "--format", "json", "--no-shellcheck", str(script)]
    try:
        remote = run_cli([*_at_node(sshd, sshd.bare_port), *argv])
        local = run_cli(argv)
    finally:
        env_file.unlink()
    _no_traceback(remote, local)
    assert remote.status == 0, remote.json["findings"]
    assert remote.json["servers"][0]["argv"] == [
        "python3",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "/m",
        "--port",
        "31000",
    ]
    # the node's python3 is a wrapper script: its version is unknown (never run), so is the release
    newest = bundled_versions("sglang")[-1]
    assert remote.json["framework"] == {
        "name": "sglang",
        "version": None,
        "source": "none",
        "analysed_with": newest,
        "accepted_by": bundled_versions("sglang"),
    }
    hop = next(h for h in remote.json["transport"]["hops"] if h["via"].startswith("--host "))
    wrapper = sshd.root / "bare-bin" / "python3"
    assert hop["resolved"] == str(wrapper)
    assert hop["framework_version"] is None
    assert hop["framework_version_reason"] == (
        f"{wrapper} is a script, not an interpreter binary: what it starts is known only by running it, "
        "and argtrace does not run what a launch names"
    )
    assert "TP015" not in remote.codes()
    # here the file is not on PATH: the same script's $PORT is read as set by it, value unknown (fa22)
    assert "SH017" in local.codes() and local.json["servers"][0]["argv"][-2:] == ["--port", None]


def test_remote_bash_n_runs_on_the_node(
    sshd: SshServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argtrace.layers.shell.syntax as syntax

    script = tmp_path / "broken launch.sh"
    script.write_text("#!/bin/bash\nif true; then\n  python3 -m sglang.launch_server --model-path /m\n")
    argv = ["check", "--format", "json", "--no-shellcheck", str(script)]
    local = run_cli(argv)

    def no_local_bash(*args: object, **kwargs: object) -> object:
        raise OSError("no bash here")

    # from here on bash cannot run on this machine: a syntax finding can only come from the node (the local
    # `bash -n` is started by posix_spawn, session 32; Popen only where that is missing)
    monkeypatch.setattr(syntax._Spawned, "start", no_local_bash)
    remote = run_cli([*_at_node(sshd), *argv])
    without = run_cli(argv)
    _no_traceback(local, remote, without)
    sh001 = [(f["at"], f["message"]) for f in remote.json["findings"] if f["code"] == "SH001"]
    assert sh001 == [(f["at"], f["message"]) for f in local.json["findings"] if f["code"] == "SH001"]
    assert sh001 == [
        (f"{script}:4", f"bash cannot parse {script} (line 4): syntax error: unexpected end of file")
    ]
    assert "SH001" not in without.codes()


def test_remote_check_names_the_node_when_the_interpreter_is_missing(sshd: SshServer, tmp_path: Path) -> None:
    script = tmp_path / "launch.sh"
    script.write_text("#!/bin/bash\n/opt/no-such-venv/bin/python -m sglang.launch_server --model-path /m\n")
    result = run_cli([*_at_node(sshd), "check", "--format", "json", "--no-shellcheck", str(script)])
    _no_traceback(result)
    messages = [f["message"] for f in result.json["findings"] if f["layer"] == "process"]
    assert (
        f"`/opt/no-such-venv/bin/python` does not exist on {sshd.host}; the framework version installed for "
        "it could not be read"
    ) in messages


def test_shell_hostfs_on_the_node_equals_os_path(sshd: SshServer, tmp_path: Path) -> None:
    from argtrace.layers.shell import hostfs
    from argtrace.remote.host import use_host
    from argtrace.remote.ssh import RemoteHost, parse_target

    directory = tmp_path / "d 'q' $x\nnl"
    directory.mkdir()
    empty = directory / "empty.sh"
    empty.write_text("")
    full = directory / "env.sh"
    full.write_text("export A=1\n")
    paths = [str(p) for p in (directory, empty, full, directory / "missing", full / "under-a-file")]
    expected = [
        (os.path.exists(p), os.path.lexists(p), os.path.isfile(p), os.path.isdir(p), os.path.realpath(p))
        for p in paths
    ]
    host = RemoteHost(parse_target(f"127.0.0.1:{sshd.bare_port}"), sshd.ssh_options())
    with use_host(host):
        got = [
            (hostfs.exists(p), hostfs.lexists(p), hostfs.isfile(p), hostfs.isdir(p), hostfs.realpath(p))
            for p in paths
        ]
        assert (hostfs.getsize(str(empty)), hostfs.getsize(str(full))) == (0, 11)
        assert hostfs.read(str(full), 6) == b"export"
        assert hostfs.islink(str(full)) is None
        with pytest.raises(OSError, match="No such file"):
            hostfs.read(str(directory / "missing"), 10)
        with pytest.raises(FileNotFoundError):
            hostfs.getsize(str(directory / "missing"))
        assert hostfs.realpath("/a\x00b") == "/a\x00b"
    assert got == expected


# ------------------------------------------------------------------- check: the node's model config.json


def _has_resolver(framework: str, version: str) -> bool:
    from argtrace.resolver import environments

    return environments.find_environment(framework, version) is not None


@pytest.mark.skipif(
    not _has_resolver("sglang", "0.5.10.post1"),
    reason="no resolver environment for sglang==0.5.10.post1 (argtrace resolver add)",
)
def test_remote_check_resolves_with_the_nodes_model_config(sshd: SshServer, tmp_path: Path) -> None:
    import shlex
    import shutil

    model = tmp_path / "models dir" / "Qwen3.6-27B"
    shutil.copytree(Path(__file__).resolve().parents[1] / "data" / "models" / "qwen3.6-27b", model)
    command = (
        f"python3 -m sglang.launch_server --model-path {shlex.quote(str(model))} --tp-size 1 "
        "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1"
    )
    argv = ["check", "--format", "json", "--gpu", "h100", "--framework", "sglang"]
    argv += ["--framework-version", "0.5.10.post1", "--no-shellcheck", "-c", command]
    local = run_cli(argv)
    remote = run_cli([*_at_node(sshd, sshd.bare_port), *argv])
    _no_traceback(local, remote)
    res, here = remote.json["resolution"], local.json["resolution"]
    assert (res["status"], res["exception"]["type"], res["at"]) == ("raised", "ValueError", here["at"])
    assert res["exception"] == here["exception"]
    assert Path(res["model_config"]).parent.name.startswith("argtrace-node-models-")
    copy = Path(res["model_config"]) / "config.json"  # removed when argtrace exits
    assert copy.read_bytes() == (model / "config.json").read_bytes()

    def codes(report: dict[str, Any], layers: tuple[str, ...]) -> list[tuple[str, str | None]]:
        return sorted((f["code"], f["setting"]) for f in report["findings"] if f["layer"] in layers)

    assert codes(remote.json, ("resolution", "memory")) == codes(local.json, ("resolution", "memory"))
    assert ("RS001", "mamba_scheduler_strategy") in codes(remote.json, ("resolution",))
    missing = run_cli([*_at_node(sshd), *argv[:-1], command.replace(str(model), str(tmp_path / "nope"))])
    assert [f["message"] for f in missing.json["findings"] if f["code"] == "RS004"] == [
        f"resolution skipped: no local config.json for model '{tmp_path / 'nope'}'; model-dependent defaults "
        "cannot be resolved"
    ]


def test_remote_mem_reads_the_nodes_model_config(sshd: SshServer, tmp_path: Path) -> None:
    import shutil

    model = tmp_path / "model's dir $x"
    shutil.copytree(Path(__file__).resolve().parents[1] / "data" / "models" / "qwen3.6-27b", model)
    argv = [
        "mem",
        "--format",
        "json",
        "--model-config",
        str(model),
        "--gpu",
        "h100x2",
        "--",
        "--tp-size",
        "2",
    ]
    local = run_cli(argv)
    remote = run_cli([*_at_node(sshd, sshd.bare_port), *argv])
    _no_traceback(local, remote)
    assert remote.status == local.status
    assert remote.json["findings"] == local.json["findings"]
    assert remote.json["memory"] == local.json["memory"]
    from_log = run_cli([*_at_node(sshd), *argv[:-3], "--from-log", str(tmp_path / "x.log"), *argv[-3:]])
    assert from_log.status == 2
    assert from_log.stderr.startswith("argtrace mem: --from-log is not available with --host: ")
    missing = run_cli([*_at_node(sshd), "mem", "--model-config", str(tmp_path / "nope"), "--gpu", "h100"])
    assert missing.status == 2
    assert (
        missing.stderr
        == f"argtrace mem: --model-config {sshd.host}:{tmp_path / 'nope'}: no config.json there\n"
    )
    _no_traceback(from_log, missing)
