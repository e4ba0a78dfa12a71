"""What a :class:`~argtrace.remote.host.Host` brings back besides files: ``bash -n`` on the host, its
processes, an HTTP answer, a command's output, a probe run, who observes where.

Apart from ``host.py`` so that a local ``check``, which reads files and the environment only, does not
create these dataclasses at start-up (each frozen dataclass compiles six generated methods, issue 18);
``host.py`` imports them where it builds them and still exports their names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class BashCheck:
    """``bash -n`` on the host: ``bash`` is ``None`` when the host has no bash."""

    bash: str | None
    returncode: int | None
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@dataclass(frozen=True)
class ProcessSnapshot:
    """A process read on a host: its ids, argv, environment, cwd, executable, start time and listening
    sockets (what could be read)."""

    pid: int
    ppid: int | None
    uid: int | None
    name: str | None
    argv: tuple[str, ...]
    env: Mapping[str, str] | None  # None when not readable (another user's process)
    cwd: str | None
    exe: str | None
    start_time: float | None  # seconds since the epoch
    user: str | None = None
    listening: tuple[str, ...] = ()  # "ip:port" of listening TCP sockets
    detailed: bool = True  # False: only pid/ppid/uid/argv were read (did not match the filter)


@dataclass(frozen=True)
class HttpResponse:
    """``status`` is ``None`` when nothing answered; ``error`` is then refused/timeout/dns/tls/other."""

    status: int | None
    headers: Mapping[str, str]
    body: bytes
    truncated: bool = False
    error: str | None = None
    detail: str | None = None
    redirects: tuple[str, ...] = ()  # the URLs followed, in order
    credentials_dropped: bool = False  # a redirect left the origin: Authorization/Cookie were not sent there


@dataclass(frozen=True)
class RunResult:
    """A command run on a host: its exit status and raw output."""

    returncode: int
    stdout: bytes
    stderr: bytes


@dataclass(frozen=True)
class ProbeRun:
    """What ``collector.run_probe`` brought back from one ``argtrace run`` launch on the host."""

    probe_dir: str  # the host's path; removed unless kept
    kept: bool
    exit_status: int | None  # None: argtrace ended the launch
    timed_out: bool  # no capture by the timeout
    output_tail: str
    captures: list[dict[str, Any]]
    stub_calls: list[dict[str, Any]]


@dataclass(frozen=True)
class HostInfo:
    """Who runs the observations where: user, home, login shell, Python and the environment."""

    label: str  # "local" or the --host text
    hostname: str
    user: str | None
    home: str | None
    login_shell: str | None
    cwd: str
    python: tuple[int, ...]
    executable: str
    env: Mapping[str, str] = field(default_factory=dict)
