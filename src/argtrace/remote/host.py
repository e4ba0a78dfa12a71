"""The machine a command observes: this one, or a node reached over ssh (``argtrace --host``).

Every argtrace command reads its inputs through a :class:`Host` instead of ``open``/``Path``/``psutil``/
``urllib`` directly, so the same analysis runs on local files or on a GPU node's files::

    from argtrace.remote.host import current_host

    host = current_host()
    data = host.read_input(path_text, what="launch script", max_bytes=MAX_SCRIPT_BYTES)
    env = host.environ()                     # the environment a non-interactive `ssh HOST cmd` gets
    syntax = host.run_bash_n(data)           # bash -n where the script will run
    procs = host.processes(match=["sglang", "vllm"])
    resp = host.http_get("http://127.0.0.1:30000/server_info")
    scan = host.scan_log("/workspace/logs/server.log", log_reader())   # filtered where the log lies

``current_host()`` is the local machine unless the CLI entered :func:`use_host` with a
:class:`~argtrace.remote.ssh.RemoteHost`. Both run the very same functions (``collector.py``): locally
in-process, remotely in the node's ``python3`` fed over the ssh connection's stdin. Paths are the host's
paths, as the user typed them.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from argtrace.model import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.remote.logseam import LogReader
    from argtrace.remote.results import (
        BashCheck,
        HostInfo,
        HttpResponse,
        ProbeRun,
        ProcessSnapshot,
        RunResult,
    )


class HostError(UsageError):
    """An observation failed: ``kind`` is ``not_found``, ``permission``, ``is_directory``, ``timeout``,
    ``unreachable`` (an endpoint), ``unsupported`` or ``internal``. A :class:`UsageError`, so a command that
    lets it through exits with status 2 and a one-line message."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class FileStat:
    """What a host says about a path the launch names: whether it exists, its type, size, mode and
    readability, or why no file can have that name."""

    exists: bool
    type: str | None = None  # "file", "dir", "other"
    size: int | None = None
    mtime: float | None = None
    mode: int | None = None
    readable: bool = False
    special: str | None = None  # type "other": "named pipe (FIFO)", "socket", "character device", ...
    problem: str | None = None  # not exists: why no file can have this name ("file name too long")

    @property
    def is_file(self) -> bool:
        return self.exists and self.type == "file"

    @property
    def is_dir(self) -> bool:
        return self.exists and self.type == "dir"


class Host:
    """Observations of one machine. Subclasses provide :meth:`call` (one collector operation)."""

    label = "local"
    is_remote = False

    def call(self, op: str, **args: Any) -> Any:
        raise NotImplementedError

    def call_waiting(self, op: str, seconds: float, **args: Any) -> Any:
        """:meth:`call` for an operation that may take ``seconds`` before it answers."""
        return self.call(op, **args)

    def close(self) -> None:
        """Release the connection (a no-op locally)."""

    # --------------------------------------------------------------------------------------- files

    def stat(self, path: str) -> FileStat:
        return FileStat(**self.call("stat", path=str(path)))

    def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        """The file's bytes (at most ``limit``); :class:`HostError` when missing or unreadable."""
        args: dict[str, Any] = {"path": str(path)}
        if limit is not None:
            args["limit"] = limit
        return _b64decode(self.call("read", **args)["data"])

    def regular_file(self, path_text: str, *, what: str = "input file") -> FileStat:
        """The stat of a file the user named, or :class:`UsageError` (exit 2, one line) unless it is a
        regular file: missing, a name no file can have, a directory, a FIFO, a socket or a device. Never
        opens it (opening a FIFO blocks until a writer comes; ``/dev/zero`` never ends)."""
        where = self.describe(path_text)
        st = self.stat(path_text)
        if not st.exists:
            raise UsageError(f"{where}: {st.problem or 'no such file'}")
        if st.is_dir:
            raise UsageError(f"{where}: is a directory, not a {what}")
        if not st.is_file:
            raise UsageError(f"{where}: is a {st.special or 'special file'}, not a {what}")
        return st

    def read_input(self, path_text: str, *, what: str = "input file", max_bytes: int | None = None) -> bytes:
        """Read a file the user named on the command line, with the errors ``check`` prints (exit 2)."""
        where = self.describe(path_text)
        st = self.regular_file(path_text, what=what)
        if max_bytes is not None and st.size is not None and st.size > max_bytes:
            raise UsageError(f"{where}: {st.size} bytes is too large for a {what}")
        try:
            return self.read_bytes(path_text, limit=max_bytes)
        except HostError as exc:
            raise UsageError(f"{where}: cannot read: {exc}") from exc

    def listdir(self, path: str) -> list[str]:
        return list(self.call("listdir", path=str(path)))

    def realpath(self, path: str) -> str:
        """``os.path.realpath`` on the host."""
        return str(self.call("realpath", path=str(path)))

    def describe(self, path: str) -> str:
        """A path for messages: as typed locally, ``HOST:PATH`` remotely."""
        return path

    # ------------------------------------------------------------------------------------ programs

    def run_bash_n(self, data: bytes | None = None, *, path: str | None = None) -> BashCheck:
        """``bash -n`` of ``data`` (or of the host's file ``path``), on the host: parse only, never run."""
        from argtrace.remote.results import BashCheck

        if path is not None:
            return BashCheck(**self.call("bash_n", path=path))
        return BashCheck(**self.call("bash_n", data=_b64encode(data or b"").decode("ascii")))

    def which(self, *names: str) -> dict[str, str | None]:
        return dict(self.call("which", names=list(names)))

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float = 30.0,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> RunResult:
        """Run a program from an argv list on the host (no shell), e.g. ``python3 -c 'import sglang'``."""
        from argtrace.remote.results import RunResult

        result = self.call("run", argv=list(argv), timeout=timeout, cwd=cwd, env=dict(env) if env else None)
        return RunResult(result["returncode"], _b64decode(result["stdout"]), _b64decode(result["stderr"]))

    def run_probe(
        self,
        command: Sequence[str],
        env: Mapping[str, str],
        *,
        files: Mapping[str, str],
        names: Sequence[str],
        expected: int,
        timeout: float,
        stubs: bool = True,
        keep: bool = False,
    ) -> ProbeRun:
        """``argtrace run``'s launch on the host with the probe (``collector.run_probe``): the only
        operation that writes (a private temporary directory, removed unless ``keep``) and starts a
        program. ``command`` and ``env`` are the host's: an argv list and data, never shell text. ``files``
        and ``names`` are the probe's (``argtrace.probe.probe_files``/``shim_names``, handed down by the
        caller: the probe sits above this seam)."""
        from argtrace.remote.results import ProbeRun

        raw = self.call_waiting(
            "run_probe",
            timeout + 30.0,  # the launch's timeout, then ending its process group and reading back
            files=dict(files),
            command=list(command),
            env=dict(env),
            names=list(names),
            expected=expected,
            timeout=timeout,
            stubs=stubs,
            keep=keep,
            watch_parent=self.is_remote,  # the node side: stop when the ssh session goes away
        )
        return ProbeRun(
            probe_dir=raw["probe_dir"],
            kept=bool(raw["kept"]),
            exit_status=raw["exit_status"],
            timed_out=bool(raw["timed_out"]),
            output_tail=raw["output_tail"],
            captures=list(raw["captures"]),
            stub_calls=list(raw["stub_calls"]),
        )

    # -------------------------------------------------------------------------- environment, procs

    def info(self) -> HostInfo:
        raw = self.call("hello")
        return _host_info(self.label, raw)

    def environ(self) -> dict[str, str]:
        """The environment a command started on the host gets (remotely: non-interactive ssh, no login)."""
        return dict(self.info().env)

    def processes(
        self, *, match: Sequence[str] | None = None, with_env: bool = True
    ) -> list[ProcessSnapshot]:
        from argtrace.remote.results import ProcessSnapshot

        raw = self.call("processes", with_env=with_env, match=list(match) if match else None)
        return [
            ProcessSnapshot(
                pid=p["pid"],
                ppid=p.get("ppid"),
                uid=p.get("uid"),
                name=p.get("name"),
                argv=tuple(p.get("argv") or ()),
                env=p.get("env"),
                cwd=p.get("cwd"),
                exe=p.get("exe"),
                start_time=p.get("start_time"),
                user=p.get("user"),
                listening=tuple(p.get("listening") or ()),
                detailed=bool(p.get("detailed", True)),
            )
            for p in raw
        ]

    def http_get(
        self,
        url: str,
        *,
        timeout: float = 5.0,
        headers: Mapping[str, str] | None = None,
        insecure: bool = False,
    ) -> HttpResponse:
        """GET ``url`` from the host (no proxy; ``timeout`` bounds the whole request; credentials only to
        ``url``'s origin). Connection failures come back as ``error``/``detail``."""
        from argtrace.remote.results import HttpResponse

        sent = dict(headers) if headers else None
        # The collector ends the request at ``timeout``; the answer may take that long to come back.
        raw = self.call_waiting(
            "http_get", timeout, url=url, timeout=timeout, headers=sent, insecure=insecure
        )
        return HttpResponse(
            status=raw.get("status"),
            headers=raw.get("headers") or {},
            body=_b64decode(raw.get("body") or ""),
            truncated=bool(raw.get("truncated")),
            error=raw.get("error"),
            detail=raw.get("detail"),
            redirects=tuple(raw.get("redirects") or ()),
            credentials_dropped=bool(raw.get("credentials_dropped")),
        )

    # ------------------------------------------------------------------------------------------ logs

    def scan_log(self, path: str, reader: LogReader, label: str | None = None) -> Any:
        """The log layer's streaming scan (``reader``, ``layers/hostlog.py``), run where the log lies: its
        ``Scan``."""
        try:
            return reader.scan(Path(path), label or path)
        except OSError as exc:
            raise HostError("os_error", f"{path}: {exc.strerror or exc}") from exc


def _host_info(label: str, raw: Mapping[str, Any]) -> HostInfo:
    from argtrace.remote.results import HostInfo

    return HostInfo(
        label=label,
        hostname=raw.get("hostname") or "",
        user=raw.get("user"),
        home=raw.get("home"),
        login_shell=raw.get("login_shell"),
        cwd=raw.get("cwd") or "",
        python=tuple(raw.get("python") or ()),
        executable=raw.get("executable") or "",
        env=dict(raw.get("env") or {}),
    )


class LocalHost(Host):
    """This machine: the collector's functions called in-process."""

    def call(self, op: str, **args: Any) -> Any:
        from argtrace.remote import collector_files

        function = collector_files.FILE_OPS.get(op)
        if function is not None:  # a file request: the whole collector is not loaded for it (code35)
            return unwrap(collector_files.respond(function, args))
        from argtrace.remote import collector

        response = collector.answer({"id": 1, "op": op, "args": args})
        return unwrap(response)

    def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        """As :meth:`Host.read_bytes`, without the protocol's base64 round trip (a 1 MB script: 0.1 s)."""
        from argtrace.remote import collector_files

        args: dict[str, Any] = {"path": str(path)}
        if limit is not None:
            args["limit"] = limit
        data: bytes = unwrap(collector_files.respond(collector_files.read_raw, args))[0]
        return data


def unwrap(response: Mapping[str, Any]) -> Any:
    """A collector response's result, or :class:`HostError` for its error."""
    if response.get("ok"):
        return response.get("result")
    error = response.get("error") or {}
    raise HostError(str(error.get("kind", "internal")), str(error.get("message", "failed")))


_CURRENT: contextvars.ContextVar[Host | None] = contextvars.ContextVar("argtrace_host", default=None)
_LOCAL = LocalHost()


def current_host() -> Host:
    """The host the running command observes (``--host``), else this machine."""
    return _CURRENT.get() or _LOCAL


@contextlib.contextmanager
def use_host(host: Host) -> Iterator[Host]:
    """Make ``host`` the current host inside the block, and close it afterwards."""
    token = _CURRENT.set(host)
    try:
        yield host
    finally:
        _CURRENT.reset(token)
        host.close()


def __getattr__(name: str) -> Any:
    """The result classes kept their old address (``from argtrace.remote.host import HostInfo``)."""
    if name in _RESULTS:
        from argtrace.remote import results

        return getattr(results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_RESULTS = ("BashCheck", "ProcessSnapshot", "HttpResponse", "RunResult", "ProbeRun", "HostInfo")


def _b64decode(data: Any) -> bytes:
    import base64  # here: a local check never talks to a node (start-up, issue 18)

    return base64.b64decode(data)


def _b64encode(data: bytes) -> bytes:
    import base64

    return base64.b64encode(data)
