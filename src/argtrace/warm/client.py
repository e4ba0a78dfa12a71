"""The launcher's side of a warm start: ask a warm process to run this command, or say why not.

Imported by ``bin/argtrace`` before anything else of argtrace, so it imports only ``os``, ``sys`` and
``marshal`` at the top (``--version`` pays for this module and nothing more), and ``_socket``/``_signal``
(the C halves of ``socket`` and ``signal``, which import ``enum``) when a command may be served.

Protocol (one Unix stream socket connection per command, version :data:`PROTOCOL`): the launcher sends an
8-byte length with its three standard descriptors attached (``SCM_RIGHTS``), then the request, a
``marshal`` dict of builtin values (never code); the server answers ``P`` + the child's pid once it has
forked, then ``S`` + the child's wait status and CPU time, or ``R`` + a reason when it will not serve
(:data:`REFUSALS`) and the launcher runs the command itself.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

PROTOCOL = 1
# The commands that only read (files, logs, texts, this machine's processes for `check --pid`) and print.
# Never served: `run` (executes a launch script), `live`/`fleet` (long network sessions), `mcp` (a server
# on stdio), `resolver` (builds environments for minutes), `ps`, `lint`, and any command line with an
# option before the command (`--host` opens ssh, which may prompt on the terminal a forked child lacks).
SERVED_COMMANDS = frozenset({"check", "fix", "log", "mem", "why", "rules"})
# What the launcher's outcome is when it runs the command itself.
NOT_SERVABLE = "not-servable"  # this command line or machine is never served
NO_SERVER = "no-server"  # servable, and no warm process answered: the launcher starts one afterwards
REFUSED = "refused"  # a warm process answered and declined (REFUSALS)
REFUSALS = {1: "argtrace's code changed since the warm process imported it", 2: "another identity"}
# Variables that change how the interpreter starts or what the locale is: part of the identity, and the
# only ones a warm process is started with (it reads no other; each child gets the caller's whole env).
IDENTITY_PREFIXES = ("PYTHON", "LC_")
IDENTITY_NAMES = ("LANG", "LANGUAGE")
SERVER_NAMES = (
    *("PATH", "HOME", "TMPDIR", "XDG_RUNTIME_DIR", "XDG_CACHE_HOME"),
    *("ARGTRACE_DATA_CACHE", "ARGTRACE_NO_DATA_CACHE", "ARGTRACE_WARM_IDLE"),
)
# AF_UNIX paths are at most 107 bytes on Linux (sun_path is 108 with its NUL).
MAX_SOCKET_PATH = 107
_OFF = ("0", "no", "false", "off")


def servable(argv: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether this command line may be served warm: Linux, ``ARGTRACE_WARM`` not ``0``, and the command
    word first among :data:`SERVED_COMMANDS`. ``python -m argtrace`` never asks (only the launcher does)."""
    if sys.platform != "linux" or environ.get("ARGTRACE_WARM", "").lower() in _OFF:
        return False
    return len(argv) > 1 and argv[1] in SERVED_COMMANDS


def socket_dir(environ: Mapping[str, str]) -> str | None:
    """``$XDG_RUNTIME_DIR/argtrace`` (systemd's per-user directory) or ``$TMPDIR/argtrace-UID``, made
    mode 0700 and used only when it is a real directory this user owns that nobody else can enter: a
    socket there cannot be replaced or connected to by another user."""
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    uid = os.getuid()
    if runtime.startswith("/"):
        path = os.path.join(runtime, "argtrace")
    else:
        path = os.path.join(environ.get("TMPDIR") or "/tmp", f"argtrace-{uid}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    is_dir = (st.st_mode & 0o170000) == 0o040000
    if not is_dir or st.st_uid != uid or st.st_mode & 0o077:
        return None
    return path


def namespace() -> str | None:
    """The mount namespace and root this process sees: a server in another container or chroot that shares
    the socket directory would read other files under the same paths, so it must not serve this one."""
    try:
        mounts = os.readlink("/proc/self/ns/mnt")
        root = os.stat("/")
    except OSError:
        return None
    return f"{mounts} {root.st_dev}:{root.st_ino}"


def identity(environ: Mapping[str, str], space: str) -> str:
    """Everything that decides what importing argtrace gives: the interpreter and its flags, the module
    search path (the launcher's: a warm process is started with it), the locale and ``PYTHON*`` variables,
    and the namespace. Two launchers with the same identity may share a warm process."""
    names = sorted(
        (name, value)
        for name, value in environ.items()
        if name.startswith(IDENTITY_PREFIXES) or name in IDENTITY_NAMES
    )
    flags = (tuple(sys.flags), sys.warnoptions, sorted(sys._xoptions.items()))
    parts = (str(PROTOCOL), sys.executable, sys.version, repr(sys.path), repr(flags), repr(names), space)
    return "\n".join(parts)


def socket_path(directory: str, ident: str) -> str:
    try:
        from _sha256 import sha256  # CPython's own module: hashlib would load OpenSSL (argtrace/digest.py)
    except ImportError:
        from hashlib import sha256
    return os.path.join(directory, f"warm-{sha256(ident.encode()).hexdigest()[:20]}.sock")


def _stream_settings() -> list[tuple[str, str, bool, bool]] | None:
    settings: list[tuple[str, str, bool, bool]] = []
    for fd, stream in enumerate((sys.stdin, sys.stdout, sys.stderr)):
        try:
            os.fstat(fd)
        except OSError:
            return None  # a closed standard descriptor cannot be handed over
        line_buffering = getattr(stream, "line_buffering", None)
        write_through = getattr(stream, "write_through", None)
        if stream is None or line_buffering is None or write_through is None:
            return None  # replaced by something other than the interpreter's text stream
        settings.append(
            (stream.encoding, stream.errors or "strict", bool(line_buffering), bool(write_through))
        )
    return settings


def _read_exact(sock: Any, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


class _Forwarder:
    """Signals the launcher gets while the child runs (Ctrl-C from the terminal reaches the launcher's
    process group, not the child's), sent on to the child; one that arrives before the child's pid is
    known is sent when it is."""

    def __init__(self) -> None:
        self.pid = 0
        self.pending: list[int] = []

    def __call__(self, signum: int, frame: object) -> None:
        if self.pid:
            try:
                os.kill(self.pid, signum)
            except ProcessLookupError:
                pass
        else:
            self.pending.append(signum)

    def started(self, pid: int) -> None:
        self.pid = pid
        for signum in self.pending:
            self(signum, None)


def request(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> int | str:
    """Run the command in a warm process: its exit status, or why not (:data:`NOT_SERVABLE`,
    :data:`NO_SERVER`, :data:`REFUSED`), in which case the launcher runs it itself."""
    env = os.environ if environ is None else environ
    if not servable(argv, env):
        return NOT_SERVABLE
    directory = socket_dir(env)
    space = namespace()
    streams = _stream_settings()
    try:
        cwd = os.getcwd()
    except OSError:
        return NOT_SERVABLE
    if directory is None or space is None or streams is None:
        return NOT_SERVABLE
    ident = identity(env, space)
    path = socket_path(directory, ident)
    if len(path.encode()) > MAX_SOCKET_PATH:
        return NOT_SERVABLE
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        try:
            sock.connect(path)
        except OSError:
            return NO_SERVER  # none yet, or one that exited and left its socket behind
        mask = os.umask(0o022)
        os.umask(mask)
        payload = marshal.dumps(
            {
                "protocol": PROTOCOL,
                "identity": ident,
                "argv": list(argv),
                "cwd": cwd,
                "env": dict(env),
                "umask": mask,
                "streams": streams,
            }
        )
        fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))
        try:
            sock.sendmsg(
                [len(payload).to_bytes(8, "little")], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)]
            )
            sock.sendall(payload)
        except OSError:
            return NO_SERVER
        return _wait(sock, env)
    finally:
        sock.close()


def _wait(sock: Any, environ: Mapping[str, str]) -> int | str:
    import _signal

    forward = _Forwarder()
    forwarded = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP, _signal.SIGQUIT)
    previous = {signum: _signal.signal(signum, forward) for signum in forwarded}
    try:
        while True:
            tag = _read_exact(sock, 1)
            if tag == b"P":
                forward.started(int.from_bytes(_read_exact(sock, 8), "little"))
            elif tag == b"R":
                _read_exact(sock, 1)
                return REFUSED
            elif tag == b"S":
                body = _read_exact(sock, 24)
                status = int.from_bytes(body[:8], "little", signed=True)
                _record_cpu(environ, body[8:16], body[16:24])
                return _exit_code(status, previous)
            elif not forward.pid:
                return NO_SERVER  # it went away before forking: the command has not started
            else:
                sys.stderr.write(
                    f"argtrace: the warm process ended before the command's status arrived (its child was "
                    f"pid {forward.pid}); set ARGTRACE_WARM=0 to run commands in the launcher\n"
                )
                return 1
    finally:
        for signum, handler in previous.items():
            _signal.signal(signum, handler)


def _record_cpu(environ: Mapping[str, str], user: bytes, system: bytes) -> None:
    """``ARGTRACE_WARM_STATS=FILE``: the child's CPU seconds appended to FILE (bench/check_startup.py adds
    them to the launcher's own: a warm command's cost is both processes')."""
    stats = environ.get("ARGTRACE_WARM_STATS")
    if stats:
        micros = int.from_bytes(user, "little") + int.from_bytes(system, "little")
        with open(stats, "a", encoding="utf-8") as out:
            out.write(f"{micros / 1e6:.6f}\n")


def _exit_code(status: int, previous: dict[int, Any]) -> int:
    """The child's exit code, or its death by a signal repeated on the launcher (the shell then reports
    the same ``Killed``/``Interrupt`` it would have for the command run in place)."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        import _signal

        _signal.signal(signum, _signal.SIG_DFL)
        previous.pop(signum, None)
        os.kill(os.getpid(), signum)
        return 128 + signum
    return os.WEXITSTATUS(status)


def importable_modules(before: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The modules this process imported (beyond ``before``) that a warm process may import too: found on
    an absolute entry of the module path other than the working directory (one found there is not the warm
    process's to import). The launcher hands them to a new warm process; a child reports its own."""
    cwd = os.getcwd()
    roots = tuple(root + os.sep for root in sys.path if os.path.isabs(root) and root != cwd)
    names = []
    for name, module in list(sys.modules.items()):
        if name in before:
            continue
        origin = getattr(getattr(module, "__spec__", None), "origin", None) or ""
        if origin in ("built-in", "frozen") or origin.startswith(roots):
            names.append(name)
    return sorted(names)


def start_server(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> bool:
    """After a command the launcher ran itself for want of a warm process: start one in the background,
    detached (its own session, standard streams on ``/dev/null``), with the modules this command imported.
    Not under ``CI`` (one command per job: a warm process would only outlive it). True when started."""
    env = os.environ if environ is None else environ
    if not servable(argv, env) or env.get("CI", "").lower() not in ("", *_OFF):
        return False
    directory = socket_dir(env)
    space = namespace()
    if directory is None or space is None:
        return False
    ident = identity(env, space)
    path = socket_path(directory, ident)
    if len(path.encode()) > MAX_SOCKET_PATH:
        return False
    modules = importable_modules()
    spec = {"socket": path, "identity": ident, "path": list(sys.path), "modules": modules}
    # The spec arrives on the server's stdin (a pipe), not in its argv, which `ps` shows to every user.
    code = (
        "import marshal, sys; spec = marshal.load(sys.stdin.buffer); sys.path[:] = spec['path']; "
        "from argtrace.warm.server import main; main(spec)"
    )
    import subprocess  # its helper repeats this interpreter's flags (-S, -E, -X ...), as multiprocessing's

    flags = subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]
    server_env = {
        name: value
        for name, value in env.items()
        if name.startswith(IDENTITY_PREFIXES) or name in IDENTITY_NAMES or name in SERVER_NAMES
    }
    read_end, write_end = os.pipe()
    actions = [
        (os.POSIX_SPAWN_DUP2, read_end, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]
    try:
        os.posix_spawn(
            sys.executable,
            [sys.executable, *flags, "-c", code],
            server_env,
            file_actions=actions,
            setsid=True,
        )
    except OSError:
        return False
    finally:
        os.close(read_end)
    with open(write_end, "wb") as pipe:
        try:
            pipe.write(marshal.dumps(spec))
        except OSError:  # it exited at once (an interpreter that cannot import argtrace without site)
            return False
    return True
