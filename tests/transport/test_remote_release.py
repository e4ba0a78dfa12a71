"""``argtrace --host NODE check --log LOG``: the node's log decides the release, plain or gzip.

The private sshd runs on this machine (tests/transport/conftest.py), so the node's log is this machine's
file: the remote run must decide the same release as the local one, with the node's path in the evidence.
Before, a ``--log`` under ``--host`` (and any ``.gz`` log) was never read for its version line.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.transport.sshd import SshServer

LOG = (
    b"[2026-11-30 05:00:00] INFO sglang version: 0.5.15.post1\n"
    b"[2026-11-30 05:00:01] server_args=ServerArgs(model_path='/models/m', tp_size=2, port=30000)\n"
)
COMMAND = "python3 -m sglang.launch_server --model-path /models/m --tp-size 2"


@pytest.mark.parametrize("gzipped", [False, True])
def test_the_nodes_log_decides_the_release(sshd: SshServer, tmp_path: Path, gzipped: bool) -> None:
    log = tmp_path / ("server.log.gz" if gzipped else "server.log")
    log.write_bytes(gzip.compress(LOG) if gzipped else LOG)
    argv = ["check", "--format", "json", "--no-shellcheck", "--log", str(log), "-c", COMMAND]
    local = run_cli(argv)
    node = f"127.0.0.1:{sshd.bare_port}"  # a node where argtrace is not importable
    remote = run_cli([*sshd.cli_prefix(node), *argv])
    assert remote.stdout.startswith("{"), remote.stderr
    assert local.json["framework"] == {
        "name": "sglang",
        "version": "0.5.15.post1",
        "source": "log",
        "evidence": f"the log's `sglang version: 0.5.15.post1` at {log}:1",
    }
    framework = remote.json["framework"]
    assert (framework["version"], framework["source"]) == ("0.5.15.post1", "log")
    assert framework["evidence"] == f"the log's `sglang version: 0.5.15.post1` at {node}:{log}:1"
