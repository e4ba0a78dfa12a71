"""``argtrace --host [USER@]HOST[:PORT]``: observe a node through the system OpenSSH client.

One ssh connection per argtrace command. The remote command is a fixed string (:data:`REMOTE_COMMAND`)
that starts the node's ``python3`` with a tiny bootstrap; the collector program (``collector.py``) and then
the requests travel over the connection's standard input as data, never as shell text. So no user input
(a path with spaces, quotes, ``$`` or newlines, a URL, a host name) is ever part of a remote shell string,
and nothing is installed on the node. The system ``ssh`` is used so ``~/.ssh/config``, agents, jump hosts
and ``ControlMaster`` work as they do for the user.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from argtrace.remote.host import Host, HostError, unwrap
from argtrace.remote.logseam import LogReader

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The node's login shell runs this; it names no user input. It reads a length line, then that many bytes of
# program, and executes it; the program then keeps reading requests from the same stdin.
BOOTSTRAP = (
    'import sys;b=sys.stdin.buffer;exec(compile(b.read(int(b.readline())),"argtrace-collector","exec"))'
)
REMOTE_COMMAND = f"python3 -c '{BOOTSTRAP}'"

# Our defaults come after the user's -o options: for ssh the first value given for an option wins.
DEFAULT_OPTIONS = (
    "BatchMode=yes",  # never prompt: argtrace's own stdin/stdout are not a terminal session
    "ConnectTimeout=15",
    "ServerAliveInterval=15",
    "ServerAliveCountMax=4",
    "LogLevel=ERROR",
)
# Characters OpenSSH itself refuses in host names given on the command line (they would reach a
# ProxyCommand's shell through %h), plus blanks and control characters.
_BAD_HOST_CHARS = re.compile(r"[\s'\"`$;&|<>(){}\\*?!#~\x00-\x1f\x7f]")
_BAD_USER_CHARS = re.compile(r"[\s'\"`$;&|<>(){}\\*?!#~/:\x00-\x1f\x7f]")


def reply_timeout() -> float:
    """Seconds a node has to answer (``ARGTRACE_SSH_TIMEOUT``, default 120), read at each request, not at
    import: a warm process imports modules under another environment than the command's (argtrace/warm/)."""
    return float(os.environ.get("ARGTRACE_SSH_TIMEOUT", "120"))


MIN_REMOTE_PYTHON = (3, 8)


class TransportError(HostError):
    """The node could not be reached or used: ``kind`` is ``unreachable``, ``auth``, ``host_key``,
    ``no_python``, ``old_python``, ``protocol`` or ``ssh_missing``. Exit status 2 with the message."""


@dataclass(frozen=True)
class SshTarget:
    """A parsed ``[USER@]HOST[:PORT]`` (IPv6 in brackets: ``[::1]:2222``)."""

    host: str
    user: str | None = None
    port: int | None = None

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host and self.port is not None else self.host
        text = f"{self.user}@{host}" if self.user else host
        return f"{text}:{self.port}" if self.port is not None else text


def parse_target(text: str) -> SshTarget:
    """Parse ``--host``; a :class:`~argtrace.model.UsageError` for anything ssh could misread."""
    from argtrace.model import UsageError

    if not text:
        raise UsageError("--host: empty host")
    user: str | None = None
    rest = text
    if "@" in text:
        user, _, rest = text.rpartition("@")
        if not user or _BAD_USER_CHARS.search(user) or user.startswith("-"):
            raise UsageError(f"--host {text!r}: {user!r} is not a user name ssh can be given safely")
    port: int | None = None
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0:
            raise UsageError(f"--host {text!r}: unclosed '['")
        host, after = rest[1:close], rest[close + 1 :]
        if after:
            if not after.startswith(":"):
                raise UsageError(f"--host {text!r}: expected ':PORT' after ']'")
            port = _port(after[1:], text)
    elif rest.count(":") == 1:
        host, _, port_text = rest.partition(":")
        port = _port(port_text, text)
    else:
        host = rest  # a name, an IPv4 address, or a bare IPv6 address without a port
    if not host:
        raise UsageError(f"--host {text!r}: no host name")
    if host.startswith("-"):
        raise UsageError(f"--host {text!r}: a host name cannot start with '-' (ssh would read an option)")
    bad = _BAD_HOST_CHARS.search(host)
    if bad:
        raise UsageError(f"--host {text!r}: host names cannot contain {bad.group(0)!r}")
    return SshTarget(host=host, user=user, port=port)


def _port(text: str, whole: str) -> int:
    from argtrace.model import UsageError

    if not text.isdigit() or not 0 < int(text) < 65536:
        raise UsageError(f"--host {whole!r}: {text!r} is not a port number")
    return int(text)


def ssh_argv(target: SshTarget, options: Sequence[str] = (), ssh: str | None = None) -> list[str]:
    """The local ``ssh`` command: user options first, our defaults, then ``-- HOST REMOTE_COMMAND``."""
    from argtrace.model import UsageError

    argv = [ssh or os.environ.get("ARGTRACE_SSH") or "ssh"]
    for option in options:
        if not option or option.startswith("-") or ("=" not in option and " " not in option):
            raise UsageError(f"--ssh-option {option!r}: expected NAME=VALUE (as for ssh -o)")
        argv += ["-o", option]
    for option in DEFAULT_OPTIONS:
        argv += ["-o", option]
    argv += ["-T", "-x", "-a", "-e", "none"]
    if target.port is not None:
        argv += ["-p", str(target.port)]
    if target.user is not None:
        argv += ["-l", target.user]
    argv += ["--", target.host, REMOTE_COMMAND]
    return argv


def collector_source() -> bytes:
    """The program the node runs: ``collector_files.py`` and then ``collector.py``, one module (the node has
    no argtrace package): the second without its ``__future__`` import (the first's holds for the whole
    program) and without the package-only import of the first's names."""
    here = Path(__file__).parent
    files = (here / "collector_files.py").read_bytes()
    main = (here / "collector.py").read_bytes()
    start, end = main.index(b"# package-only: start"), main.index(b"# package-only: end\n")
    main = main[:start] + main[end + len(b"# package-only: end\n") :]
    return files + b"\n" + main.replace(b"from __future__ import annotations\n", b"", 1)


class RemoteHost(Host):
    """A node reached over ssh. Connects on first use; every observation is one request on the session."""

    is_remote = True

    def __init__(self, target: SshTarget, options: Sequence[str] = (), *, ssh: str | None = None) -> None:
        self.target = target
        self.label = str(target)
        self.argv = ssh_argv(target, options, ssh)
        self._proc: subprocess.Popen[bytes] | None = None
        self._selector: selectors.BaseSelector | None = None
        self._buffer = b""
        self._stderr: list[bytes] = []
        self._stderr_thread: threading.Thread | None = None
        self._next_id = 1
        self._hello: dict[str, Any] | None = None
        self.noise: list[str] = []  # what the node's login scripts printed before the collector started
        self.bytes_received = 0  # what came back over the connection (a filtered log stays small)
        self._loaded: set[str] = set()

    # ------------------------------------------------------------------------------- connection

    def connect(self) -> dict[str, Any]:
        if self._hello is not None:
            return self._hello
        try:
            proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except FileNotFoundError:
            raise TransportError(
                "ssh_missing", f"{self.argv[0]}: the OpenSSH client is not installed (needed for --host)"
            ) from None
        self._proc = proc
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._stderr_thread = threading.Thread(target=self._drain_stderr, args=(proc.stderr,), daemon=True)
        self._stderr_thread.start()
        self._selector = selectors.DefaultSelector()
        self._selector.register(proc.stdout, selectors.EVENT_READ)
        program = collector_source()
        try:
            proc.stdin.write(b"%d\n" % len(program) + program)
            proc.stdin.flush()
        except BrokenPipeError:
            pass  # the failure is read from ssh's exit status and stderr below
        hello = self._receive(0)
        result = unwrap(hello)
        if not result.get("python_ok", False):
            version = ".".join(str(v) for v in result.get("python", []))
            self.close()
            raise TransportError(
                "old_python",
                f"{self.label}: python3 there is {version}; argtrace --host needs Python 3.8 or newer "
                "on the node",
            )
        self._hello = result
        return result

    def _drain_stderr(self, stream: Any) -> None:
        for chunk in iter(lambda: stream.read1(65536), b""):
            self._stderr.append(chunk)

    def stderr_text(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def _readline(self, deadline: float, allowed: float) -> bytes | None:
        """One line from the session, ``None`` at end of stream."""
        assert self._proc is not None and self._proc.stdout is not None and self._selector is not None
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TransportError("timeout", f"{self.label}: no answer within {allowed:.0f} s")
            if not self._selector.select(timeout=remaining):
                continue
            chunk = os.read(fd, 1 << 20)
            self.bytes_received += len(chunk)
            if not chunk:
                if self._buffer:
                    line, self._buffer = self._buffer, b""
                    return line
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _receive(self, rid: int, wait: float = 0.0) -> dict[str, Any]:
        from argtrace.remote.collector import MARK

        mark = MARK.encode()
        allowed = reply_timeout() + wait
        deadline = time.monotonic() + allowed
        while True:
            line = self._readline(deadline, allowed)
            if line is None:
                raise self._failure()
            if not line.startswith(mark):
                self.noise.append(line.decode("utf-8", "replace"))
                continue
            try:
                message: dict[str, Any] = json.loads(line[len(mark) :])
            except ValueError as exc:
                raise TransportError("protocol", f"{self.label}: garbled answer from the collector") from exc
            if message.get("id") == rid:
                return message

    def _failure(self) -> TransportError:
        """Why the session ended: classify ssh's exit status and message."""
        assert self._proc is not None
        try:
            code = self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=2)
        err = self.stderr_text().strip()
        last = err.splitlines()[-1] if err else ""
        label = self.label
        lowered = err.lower()
        if code == 255 or "ssh:" in lowered or "connection closed" in lowered:
            if "permission denied" in lowered or "too many authentication failures" in lowered:
                kind, text = "auth", f"{label}: authentication failed ({last})"
            elif "host key verification failed" in lowered or "remote host identification" in lowered:
                kind, text = "host_key", f"{label}: the host key could not be verified ({last})"
            elif "could not resolve hostname" in lowered:
                kind, text = "unreachable", f"{label}: unknown host ({last})"
            else:
                kind, text = "unreachable", f"{label}: cannot connect ({last or f'ssh exit status {code}'})"
            return TransportError(kind, text)
        if code == 127 or ("python3" in lowered and "not found" in lowered):
            return TransportError(
                "no_python",
                f"{label}: the node has no python3 on the PATH of a non-interactive ssh session "
                f"({last or 'exit status 127'}); argtrace --host needs Python 3.8+ there",
            )
        if "syntaxerror" in lowered:
            return TransportError(
                "old_python", f"{label}: the node's python3 cannot run the collector ({last})"
            )
        return TransportError(
            "protocol",
            f"{label}: the connection ended unexpectedly (exit status {code}): {last}".rstrip(": "),
        )

    def call(self, op: str, **args: Any) -> Any:
        return self.call_waiting(op, 0.0, **args)

    def call_waiting(self, op: str, seconds: float, **args: Any) -> Any:
        """One request; its answer may take ``seconds`` more than :func:`reply_timeout` (``run_probe``)."""
        if op == "hello":
            return self.connect()
        self.connect()
        assert self._proc is not None and self._proc.stdin is not None
        rid = self._next_id
        self._next_id += 1
        request = json.dumps({"id": rid, "op": op, "args": args}, ensure_ascii=True) + "\n"
        try:
            self._proc.stdin.write(request.encode("ascii"))
            self._proc.stdin.flush()
        except BrokenPipeError:
            raise self._failure() from None
        return unwrap(self._receive(rid, seconds))

    def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        try:
            if proc.stdin is not None and not proc.stdin.closed:
                try:
                    proc.stdin.write(b'{"op":"bye"}\n')
                    proc.stdin.close()
                except (BrokenPipeError, OSError):
                    pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        finally:
            if self._selector is not None:
                self._selector.close()
            if proc.stdout is not None:
                proc.stdout.close()

    # --------------------------------------------------------------------------------- overrides

    def describe(self, path: str) -> str:
        return f"{self.label}:{path}"

    def scan_log(self, path: str, reader: LogReader, label: str | None = None) -> Any:
        """Filter the log on the node with the log layer's own reader (``reader``: its modules, loaded into
        the node's collector once); only kept lines travel."""
        for module in reader.modules:
            if module.__name__ not in self._loaded:
                self.call("load_module", name=module.__name__, source=Path(str(module.__file__)).read_text())
                self._loaded.add(module.__name__)
        entry = reader.modules[-1].__name__
        return reader.rebuild(self.call("scan_log", module=entry, path=path, label=label or path))
