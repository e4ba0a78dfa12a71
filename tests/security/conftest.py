"""The private sshd fixture of the transport tests, shared here."""

from tests.transport.conftest import sshd

__all__ = ["sshd"]
