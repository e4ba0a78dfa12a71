"""A private OpenSSH server on 127.0.0.1 for the transport tests.

Generated host and user keys, a private ``sshd_config`` in a temporary directory, a free port, key-only
authentication for the current user. Nothing outside the temporary directory is touched, except creating
``/run/sshd`` (sshd's privilege-separation directory, which the Debian service would create) when it is
missing and we run as root.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

SSHD_CANDIDATES = ("/usr/sbin/sshd", "/usr/local/sbin/sshd")


def find_sshd() -> str | None:
    for candidate in SSHD_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("sshd")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class SshServer:
    port: int
    no_python_port: int  # the same server; sessions there run with a PATH that has no python3
    noisy_port: int  # the same server; a "login script" prints a banner to stdout before every command
    bare_port: int  # the same server; its python3 runs with -S: argtrace is not importable (a real node)
    root: Path
    identity: Path
    known_hosts: Path
    process: subprocess.Popen[bytes]
    log: Path
    extra_options: list[str] = field(default_factory=list)

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def ssh_options(self) -> list[str]:
        return [
            f"IdentityFile={self.identity}",
            "IdentitiesOnly=yes",
            f"UserKnownHostsFile={self.known_hosts}",
            "StrictHostKeyChecking=yes",
            "GlobalKnownHostsFile=/dev/null",
            *self.extra_options,
        ]

    def cli_prefix(self, host: str | None = None) -> list[str]:
        """``--host ... --ssh-option ...`` words for ``argtrace``."""
        words = ["--host", host or self.host]
        for option in self.ssh_options():
            words += ["--ssh-option", option]
        return words

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_sshd(root: Path) -> SshServer:
    sshd = find_sshd()
    if sshd is None:
        raise RuntimeError("sshd is not installed (Debian: apt-get install openssh-server)")
    if os.geteuid() == 0 and not os.path.isdir("/run/sshd"):
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    root.mkdir(parents=True, exist_ok=True)
    host_key = root / "ssh_host_ed25519_key"
    user_key = root / "id_ed25519"
    for key in (host_key, user_key):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "argtrace-test", "-f", str(key)],
            check=True,
        )
    authorized = root / "authorized_keys"
    authorized.write_text((root / "id_ed25519.pub").read_text())
    authorized.chmod(0o600)
    port = _free_port()
    no_python_port = _free_port()
    noisy_port = _free_port()
    bare_port = _free_port()
    bare_bin = root / "bare-bin"
    bare_bin.mkdir(exist_ok=True)
    python = os.path.realpath(sys.executable)
    (bare_bin / "python3").write_text(f'#!/bin/sh\nexec {python} -S "$@"\n')
    (bare_bin / "python3").chmod(0o755)
    known_hosts = root / "known_hosts"
    host_pub = (root / "ssh_host_ed25519_key.pub").read_text().split()
    known_hosts.write_text(
        "".join(
            f"[127.0.0.1]:{p} {host_pub[0]} {host_pub[1]}\n"
            for p in (port, no_python_port, noisy_port, bare_port)
        )
    )
    config = root / "sshd_config"
    config.write_text(
        "\n".join(
            [
                f"Port {port}",
                f"Port {no_python_port}",
                f"Port {noisy_port}",
                f"Port {bare_port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {host_key}",
                f"PidFile {root / 'sshd.pid'}",
                f"AuthorizedKeysFile {authorized}",
                "StrictModes no",
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "UsePAM no",
                "PermitRootLogin prohibit-password",
                "AllowTcpForwarding no",
                "X11Forwarding no",
                "PrintMotd no",
                "AcceptEnv ARGTRACE_TEST_*",
                "LogLevel VERBOSE",
                f"Match LocalPort {no_python_port}",
                '    ForceCommand env PATH=/nonexistent /bin/sh -c "$SSH_ORIGINAL_COMMAND"',
                f"Match LocalPort {noisy_port}",
                '    ForceCommand echo "Welcome to gpu1 (conda base)"; echo; '
                '/bin/sh -c "$SSH_ORIGINAL_COMMAND"',
                f"Match LocalPort {bare_port}",
                f'    ForceCommand env PATH={bare_bin}:/usr/bin:/bin /bin/sh -c "$SSH_ORIGINAL_COMMAND"',
                "",
            ]
        )
    )
    log = root / "sshd.log"
    process = subprocess.Popen(
        [sshd, "-D", "-e", "-f", str(config)], stdout=subprocess.DEVNULL, stderr=log.open("wb")
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited: {log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.05)
    else:
        process.terminate()
        raise RuntimeError(f"sshd did not listen on {port}: {log.read_text()}")
    return SshServer(port, no_python_port, noisy_port, bare_port, root, user_key, known_hosts, process, log)


def expand_example_argv(argv: Sequence[str], sshd: SshServer, cwd: Path) -> list[str]:
    """A rule example's argv for this server: ``{sshd}`` becomes the host and its ``--ssh-option`` words,
    ``{cwd}`` the example's directory; ``--format json`` goes right after the command word (global options
    such as ``--host`` come before it)."""
    out: list[str] = []
    for word in argv:
        if word == "{sshd}":
            out.append(sshd.host)
            for option in sshd.ssh_options():
                out += ["--ssh-option", option]
        else:
            out.append(word.replace("{cwd}", str(cwd)))
    from argtrace.commands import COMMAND_MODULES

    command = next(i for i, w in enumerate(out) if w in COMMAND_MODULES)
    return [*out[: command + 1], "--format", "json", *out[command + 1 :]]
