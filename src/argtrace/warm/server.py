"""The warm process: imports argtrace once, then forks one fresh child per command (issue 18).

Started by :func:`argtrace.warm.client.start_server` in its own session with ``/dev/null`` for its
standard streams. It never runs a command itself: between requests it holds only imported modules (and
those its children report having imported, so a command it has not seen yet is warm the second time), so
no state of one command can reach another. It serves one identity (:func:`client.identity`) on one
socket, and:

- serves only peers of its own user (``SO_PEERCRED``), in a directory only that user can enter;
- refuses (the launcher then runs the command itself) and shuts down once any of argtrace's imported
  source files changed (an upgrade, an edited checkout), and does not start when one changed while it
  was importing them;
- exits after ``ARGTRACE_WARM_IDLE`` seconds (default 600, sccache's) with no command, or on SIGTERM;
- kills a child whose launcher went away (its connection closed early).

One server per socket: a second one started at the same time finds the lock taken and exits.
"""

from __future__ import annotations

import gc
import importlib
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from argtrace.warm import client
from argtrace.warm.child import MAX_REPORT_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

DEFAULT_IDLE_SECONDS = 600.0
# A request arrives whole in microseconds; a peer that connects and stalls must not hold the server.
REQUEST_TIMEOUT_SECONDS = 5.0
MAX_REQUEST_BYTES = 64 * 1024 * 1024
# Modules a command may have that a warm process must not import: the interpreter's entry.
NEVER_IMPORTED = ("__main__",)
# File times are coarse (a kernel tick): a source file whose time is this close to the start of the
# imports may have been written during them.
EDIT_MARGIN_NS = 1_000_000_000


@dataclass
class Running:
    """A forked child still running: the launcher's connection, and the pipe it reports its imports on."""

    pid: int
    conn: socket.socket
    learned: int
    gone: bool = False  # the launcher closed its side; the child was sent SIGTERM


@dataclass
class Server:
    """The listening socket, what it serves and the children it waits for."""

    listener: socket.socket
    identity: str
    stamps: dict[str, tuple[int, int]]
    idle_seconds: float
    wakeup: int
    running: dict[int, Running] = field(default_factory=dict)
    accepting: bool = True


def main(spec: Mapping[str, Any]) -> None:
    """Entry point of the detached process (``spec`` from the launcher: socket, identity, path, modules)."""
    os.chdir("/")  # a warm process must not keep the launcher's directory (or its mount) busy
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # the spec's pipe, read
    os.close(null)
    path = spec["socket"]
    lock = _lock(path + ".lock")
    if lock is None:
        return  # another warm process of this identity is starting or serving
    started = time.time_ns()
    _import(spec["modules"])
    stamps = dict(_code_stamps())
    if any(mtime >= started - EDIT_MARGIN_NS for mtime, _ in stamps.values()):
        return  # a file changed while (or just before) it was imported: its code may not be the file's
    listener = _listen(path)  # listening only now: a command that finds the socket finds it ready
    if listener is None:
        return
    try:
        server = Server(
            listener=listener,
            identity=spec["identity"],
            stamps=stamps,
            idle_seconds=_idle_seconds(),
            wakeup=_wakeup_on_child_exit(),
        )
        _serve(server)
    finally:
        # only the lock's holder removes the socket, and only while it still names this server's
        if os.path.exists(path):
            os.unlink(path)
        os.close(lock)


def _lock(path: str) -> int | None:
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _listen(path: str) -> socket.socket | None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if os.path.exists(path):
            os.unlink(path)  # a socket left by a server that died; the lock says no server uses it
        listener.bind(path)
        os.chmod(path, 0o600)
        listener.listen(16)
    except OSError:
        listener.close()
        return None
    return listener


def _import(names: list[str]) -> None:
    """Import modules as a command would (with the dataclasses' and patterns' compiled code kept between
    runs), then freeze what was made: a child's collections skip it and its pages stay shared."""
    from argtrace import dataclass_code, deferred_dataclass, regex_code

    with dataclass_code.kept(command="check"), regex_code.kept(command="check"):
        for name in names:
            if name not in sys.modules and not name.startswith(NEVER_IMPORTED):
                try:
                    importlib.import_module(name)
                except Exception:  # a module a command imported may need what this process lacks: skip it
                    continue
        deferred_dataclass.process_all()  # once here, not in every child
    for command in client.SERVED_COMMANDS:  # after the store above is written
        regex_code.read_ahead(command)
    gc.collect()
    gc.freeze()


def _code_stamps() -> Iterator[tuple[str, tuple[int, int]]]:
    """(path, (mtime_ns, size)) of every imported argtrace source file: an upgrade replaces them and an edit
    of a checkout rewrites one. (A module added beside them changes nothing imported: a child that imports
    it reads it from the disk.)"""
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and (name == "argtrace" or name.startswith("argtrace.")):
            try:
                st = os.stat(path)
            except OSError:
                continue
            yield path, (st.st_mtime_ns, st.st_size)


def _stale(stamps: Mapping[str, tuple[int, int]]) -> bool:
    for path, stamp in stamps.items():
        try:
            st = os.stat(path)
        except OSError:
            return True
        if (st.st_mtime_ns, st.st_size) != stamp:
            return True
    return False


def _idle_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get("ARGTRACE_WARM_IDLE") or DEFAULT_IDLE_SECONDS))
    except ValueError:
        return DEFAULT_IDLE_SECONDS


def _wakeup_on_child_exit() -> int:
    """A descriptor that becomes readable when a child exits (SIGCHLD through CPython's wakeup fd)."""
    read_end, write_end = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(write_end)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.signal(signal.SIGTERM, _terminate)
    return read_end


def _terminate(signum: int, frame: object) -> NoReturn:
    raise SystemExit(0)  # unwinds through main's clean-up: the socket is removed


def _serve(server: Server) -> None:
    while server.accepting or server.running:
        watched: list[Any] = [server.wakeup]
        watched += [child.conn for child in server.running.values() if not child.gone]
        if server.accepting:
            watched.append(server.listener)
        timeout = None if server.running else server.idle_seconds
        readable, _, _ = select.select(watched, [], [], timeout)
        if not readable:
            return  # idle
        if server.wakeup in readable:
            _drain(server.wakeup)
        _reap(server)
        for ready in readable:
            if ready is server.listener:
                _accept(server)
            elif isinstance(ready, socket.socket):
                _launcher_gone(server, ready)


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def _accept(server: Server) -> None:
    try:
        conn, _ = server.listener.accept()
    except OSError:
        return
    try:
        handled = _handle(server, conn)
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        handled = False
    if not handled:
        conn.close()


def _peer_uid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)  # struct ucred: pid, uid, gid
    return int.from_bytes(creds[4:8], sys.byteorder)


def _handle(server: Server, conn: socket.socket) -> bool:
    """Read one request and fork its child; False when the connection is to be closed unanswered."""
    if _peer_uid(conn) != os.getuid():
        return False
    conn.settimeout(REQUEST_TIMEOUT_SECONDS)
    header, fds = _receive_header(conn)
    try:
        size = int.from_bytes(header, "little")
        if len(header) != 8 or len(fds) != 3 or size > MAX_REQUEST_BYTES:
            return False
        payload = client._read_exact(conn, size)
        request = _marshal_builtins(payload)
        if request.get("protocol") != client.PROTOCOL or request.get("identity") != server.identity:
            conn.sendall(b"R\x02")
            return False
        if _stale(server.stamps):
            conn.sendall(b"R\x01")
            _stop_accepting(server)
            return False
        conn.settimeout(None)
        _fork(server, conn, fds, request)
        fds = []
        return True
    finally:
        for fd in fds:
            os.close(fd)


def _receive_header(conn: socket.socket) -> tuple[bytes, list[int]]:
    header, ancillary, _, _ = conn.recvmsg(8, socket.CMSG_SPACE(3 * 4))
    fds: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(data) - len(data) % 4
            fds.extend(int.from_bytes(data[i : i + 4], sys.byteorder) for i in range(0, usable, 4))
    if len(header) < 8:
        header += client._read_exact(conn, 8 - len(header))
    return header, fds


def _marshal_builtins(payload: bytes) -> dict[str, Any]:
    """The request: a dict of strings, ints, lists and tuples. ``marshal`` can also make code objects,
    which nothing here would run; they are refused all the same."""
    import marshal
    from types import CodeType

    request = marshal.loads(payload)
    if not isinstance(request, dict):
        raise ValueError("request is not a dict")

    def plain(value: Any) -> bool:
        if isinstance(value, CodeType):
            return False
        if isinstance(value, (list, tuple)):
            return all(plain(item) for item in value)
        if isinstance(value, dict):
            return all(plain(k) and plain(v) for k, v in value.items())
        return isinstance(value, (str, int, bool, type(None)))

    if not plain(request):
        raise ValueError("request holds other than plain values")
    return request


def _stop_accepting(server: Server) -> None:
    """argtrace changed under this process: no new commands; the running ones finish, then it exits."""
    server.accepting = False
    server.listener.close()


def _fork(server: Server, conn: socket.socket, fds: list[int], request: dict[str, Any]) -> None:
    learned_read, learned_write = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:
        from argtrace.warm import child

        os.close(learned_read)
        closing = [server.wakeup, server.listener.fileno(), conn.fileno()]
        closing += [running.conn.fileno() for running in server.running.values()]
        closing += [running.learned for running in server.running.values()]
        child.run(request, fds, learned_write, closing)
    os.close(learned_write)
    for fd in fds:
        os.close(fd)
    fds.clear()
    server.running[pid] = Running(pid=pid, conn=conn, learned=learned_read)
    conn.sendall(b"P" + pid.to_bytes(8, "little"))


def _reap(server: Server) -> None:
    while server.running:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        child = server.running.pop(pid, None)
        if child is None:
            continue
        user = int(usage.ru_utime * 1e6)
        system = int(usage.ru_stime * 1e6)
        message = b"S" + status.to_bytes(8, "little", signed=True)
        message += user.to_bytes(8, "little") + system.to_bytes(8, "little")
        try:
            child.conn.sendall(message)
        except OSError:
            pass
        child.conn.close()
        _learn(child.learned)


def _learn(fd: int) -> None:
    """Import what the child imported that this process had not, and read ahead the data copies it read:
    the next such command finds them here."""
    try:
        data = os.read(fd, MAX_REPORT_BYTES + 1)
    except OSError:
        data = b""
    finally:
        os.close(fd)
    try:
        report = _marshal_builtins(data) if 0 < len(data) <= MAX_REPORT_BYTES else {}
    except (EOFError, ValueError, TypeError):
        report = {}  # cut at the limit, or a child that died while writing
    names = [name for name in report.get("modules", ()) if isinstance(name, str) and name not in sys.modules]
    if names:
        gc.unfreeze()
        _import(names)
    copies = [path for path in report.get("data", ()) if isinstance(path, str)]
    if copies:
        from argtrace.resolver import data_cache

        data_cache.read_ahead(copies)


def _launcher_gone(server: Server, conn: socket.socket) -> None:
    """The launcher's side closed (it was killed): end its child too, which would go on writing to a
    terminal nobody waits on."""
    try:
        still_there = conn.recv(1, socket.MSG_PEEK)
    except OSError:
        still_there = b""
    if still_there:
        return
    for child in server.running.values():
        if child.conn is conn:
            child.gone = True
            try:
                os.kill(child.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
