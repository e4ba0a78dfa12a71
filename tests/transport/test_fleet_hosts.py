"""``argtrace fleet --host`` against the private sshd on 127.0.0.1 (several of its ports, read in parallel).

Every port of the test sshd reaches this machine, so each "node" sees the same processes: two real fake
server processes (``tests/observed/fake_server.py``) of one model, one of them started with
``--context-length`` edited by hand. Each node therefore reports both, and the fleet has four replicas of
the model: the drift is the edited value on both nodes. The ``no_python_port`` session cannot run the
collector: a node that does not answer, reported as a finding while the others are still compared. The
model path is unique to the test, so other servers running on the machine never join its group.
"""

from __future__ import annotations

import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.observed.fake_server import fake_site, start_fake_server, stop
from tests.transport.sshd import SshServer


@pytest.fixture
def two_servers(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    model = f"/models/fleet-{uuid.uuid4().hex[:8]}"
    site = fake_site(tmp_path / "site")
    procs = []
    try:
        for n, extra in enumerate(([], ["--context-length", "32768"])):
            args = ["--model-path", model, "--tp-size", "2", "--port", str(31000 + n), *extra]
            procs.append(start_fake_server(site, args, port_file=tmp_path / f"port{n}"))
        yield model, procs
    finally:
        for proc in procs:
            stop(proc)


def _ssh_options(sshd: SshServer) -> list[str]:
    return [w for option in sshd.ssh_options() for w in ("--ssh-option", option)]


def test_fleet_of_hosts_over_ssh(
    sshd: SshServer, two_servers: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    model, procs = two_servers
    hosts = [f"127.0.0.1:{sshd.port}", f"127.0.0.1:{sshd.bare_port}", f"127.0.0.1:{sshd.no_python_port}"]
    started = time.monotonic()
    result = run_cli(
        [
            *_ssh_options(sshd),
            "fleet",
            "--format",
            "json",
            "--timeout",
            "10",
            *[w for h in hosts for w in ("--host", h)],
        ]
    )
    elapsed = time.monotonic() - started
    assert result.status == 1, result.stderr
    data = result.json
    pids = [p.pid for p in procs]
    ours = [r for r in data["replicas"] if r["model"] == model]
    assert [r["target"] for r in ours] == [f"{h} pid {pid}" for h in hosts[:2] for pid in pids]
    assert all(
        (r["kind"], r["source"], r["framework"], r["version"]) == ("host", "argv", "sglang", "0.5.10.post1")
        for r in ours
    )
    assert ours[0]["settings"]["tp_size"] == 2 and ours[0]["settings"]["context_length"] is None
    assert ours[0]["given"] == ["model_path", "port", "release", "tp_size"]
    assert ours[0]["settings"]["release"] == "0.5.10.post1"  # the node's dist-info, the same everywhere
    drift = [d for d in data["drift"] if d["model"] == model]
    assert drift == [
        {
            "setting": "context_length",
            "values": [
                {
                    "target": r["target"],
                    "value": v,
                    "at": r["target"],
                    **({"default": True} if v is None else {}),
                }
                for r, v in zip(ours, [None, 32768, None, 32768], strict=True)
            ],
            "model": model,
            "role": None,
        }
    ]  # the ports differ too, by design: never drift
    (dead,) = [f for f in data["findings"] if f["code"] == "LV051"]
    assert dead["at"] == hosts[2]
    assert dead["message"].startswith(
        f"{hosts[2]}: the node has no python3 on the PATH of a non-interactive ssh"
    )
    assert elapsed < 30  # three sessions at once, each bounded by --timeout


def test_a_node_that_never_speaks_ssh_is_bounded_by_connect_timeout(sshd: SshServer) -> None:
    # A socket that accepts and never sends the SSH banner: ssh's ConnectTimeout (the fleet's --timeout,
    # at least 1 s) covers the banner exchange too.
    import socket

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    port = silent.getsockname()[1]
    try:
        started = time.monotonic()
        result = run_cli(
            [
                *_ssh_options(sshd),
                "fleet",
                "--format",
                "json",
                "--timeout",
                "0.5",
                "--host",
                f"127.0.0.1:{port}",
            ]
        )
        elapsed = time.monotonic() - started
    finally:
        silent.close()
    assert result.status == 1, result.stderr
    (finding,) = result.json["findings"]
    assert (finding["code"], finding["message"]) == (
        "LV051",
        f"127.0.0.1:{port}: cannot connect (Connection timed out during banner exchange)",
    )
    assert elapsed < 4.0


def test_a_session_that_hangs_is_aborted_at_its_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An "ssh" that connects and then never answers (a node whose python3 hangs at start): the fleet kills
    # it at the node's deadline (4 x --timeout) instead of waiting ssh's 120 s reply timeout.
    fake_ssh = tmp_path / "ssh"
    fake_ssh.write_text("#!/bin/sh\nexec sleep 60\n")
    fake_ssh.chmod(0o755)
    monkeypatch.setenv("ARGTRACE_SSH", str(fake_ssh))
    started = time.monotonic()
    result = run_cli(
        ["fleet", "--format", "json", "--timeout", "0.5", "--jobs", "2", "--host", "gpu1", "--host", "gpu2"]
    )
    elapsed = time.monotonic() - started
    assert result.status == 1, result.stderr
    assert [(f["code"], f["message"]) for f in result.json["findings"]] == [
        ("LV051", "gpu1: no answer within 2 s"),
        ("LV051", "gpu2: no answer within 2 s"),
    ]
    assert 2.0 <= elapsed < 2.0 + 1.0  # both at once (--jobs 2), each ended at its deadline


def test_urls_read_from_a_node_under_the_global_host(sshd: SshServer) -> None:
    # argtrace --host NODE fleet --url ...: the URLs as that node sees them, through its one session (one
    # request at a time, so the reads are serial there).
    from tests.live.fixture_server import serve_fixture

    with (
        serve_fixture("sglang-0.5.10.post1") as one,
        serve_fixture("sglang-0.5.10.post1-context-32k") as two,
    ):
        result = run_cli(
            [
                *sshd.cli_prefix(),
                "fleet",
                "--format",
                "json",
                "--url",
                one.url,
                "--url",
                two.url,
                "--jobs",
                "8",
            ]
        )
    assert result.status == 0, result.stderr
    assert [r["target"] for r in result.json["replicas"]] == [one.url, two.url]
    assert [d["setting"] for d in result.json["drift"]] == ["context_length"]
