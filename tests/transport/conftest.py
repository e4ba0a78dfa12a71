"""Session fixture: one private sshd on 127.0.0.1 for all transport tests (skipped without sshd)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.transport.sshd import SshServer, find_sshd, start_sshd


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshServer]:
    if find_sshd() is None:
        if os.environ.get("ARGTRACE_REQUIRE_SSHD"):
            pytest.fail("sshd is required (ARGTRACE_REQUIRE_SSHD is set) but not installed")
        pytest.skip("sshd is not installed (Debian: apt-get install openssh-server)")
    if os.geteuid() != 0 and not os.path.isdir("/run/sshd"):
        pytest.skip("sshd needs /run/sshd, which only root can create here")
    server = start_sshd(tmp_path_factory.mktemp("sshd"))
    try:
        yield server
    finally:
        server.stop()
