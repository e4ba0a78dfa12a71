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
    try:
        server = start_sshd(tmp_path_factory.mktemp("sshd"))
    except (RuntimeError, OSError) as exc:  # e.g. a non-root user without /run/sshd (scripts/ci_apt makes it)
        if os.environ.get("ARGTRACE_REQUIRE_SSHD"):
            pytest.fail(f"the private sshd did not start: {exc}")
        pytest.skip(f"the private sshd did not start: {exc}")
    try:
        yield server
    finally:
        server.stop()
