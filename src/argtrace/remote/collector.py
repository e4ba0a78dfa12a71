"""The collector: what argtrace runs on a node to observe it, and nothing else.

This file, after ``collector_files.py`` (its file requests), is sent over the ssh connection's standard
input to the node's ``python3`` as one program (see ``remote/ssh.py``), so it must use the standard library
only and run on Python 3.8 or newer (a test checks it with ``vermin``). It installs nothing: it reads files,
``/proc``, the environment and local HTTP endpoints, runs ``bash -n`` (which only parses), and answers. One
request writes and starts something: ``run_probe`` (``argtrace run`` only), which runs the launch in a
private temporary directory it removes again. Locally, ``LocalHost`` calls the same functions in-process, so
a local and a remote observation are made by the same code.

Protocol (after the bootstrap in ``ssh.py`` has read this program): the collector writes one ``hello``
line, then answers each request line ``{"id": N, "op": NAME, "args": {...}}`` with one line
``{"id": N, "ok": true, "result": ...}`` or ``{"id": N, "ok": false, "error": {...}}``. Every line it
writes starts with ``MARK``, so text a login script prints before Python starts is told apart. Bytes travel
as base64.
"""

from __future__ import annotations

import json
import os
import sys
import types
from collections.abc import Callable

# package-only: start. The file requests and the answers' shape are collector_files.py (a local check loads
# only that); the program sent to a node is that file's text and then this one's, without these lines
from argtrace.remote.collector_files import (
    DEFAULT_READ_LIMIT,
    CollectorError,
    _oserror,
    listdir,
    read_raw,
    realpath,
    respond,
    stat,
)

# package-only: end

TYPE_CHECKING = False
if TYPE_CHECKING:  # socket is imported where used: a local `check` never opens one (issue 18)
    import socket
    from typing import Any
# base64 too, by the functions that send or receive bytes over the protocol: a local check, whose host calls
# these functions in-process (LocalHost), encodes none (issue 18: 2.7 M instructions with struct/binascii)
# subprocess too, by the functions that start a program: reading a local file (`argtrace log FILE`, whose
# stat goes through here) needs none (issue 18: 2-3 ms of its start-up)

MARK = "@argtrace-collector@ "
PROTOCOL = 1
MIN_PYTHON = (3, 8)
MAX_HTTP_BYTES = 16 * 1024 * 1024


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


# ------------------------------------------------------------------------------------------------ facts


def hello() -> dict[str, Any]:
    """Who and where the collector runs: the environment a non-interactive ``ssh HOST cmd`` gets."""
    try:
        import pwd

        entry = pwd.getpwuid(os.getuid())
        user, home, login_shell = entry.pw_name, entry.pw_dir, entry.pw_shell
    except (ImportError, KeyError, AttributeError):
        user, home, login_shell = os.environ.get("USER", ""), os.path.expanduser("~"), ""
    return {
        "protocol": PROTOCOL,
        "python": list(sys.version_info[:3]),
        "python_ok": tuple(sys.version_info[:2]) >= MIN_PYTHON,
        "executable": sys.executable,
        "platform": sys.platform,
        "hostname": _hostname(),
        "user": user,
        "uid": os.getuid() if hasattr(os, "getuid") else None,
        "home": home,
        "login_shell": login_shell,
        "cwd": os.getcwd(),
        "env": dict(os.environ),
    }


def read(path: str, offset: int = 0, limit: int = DEFAULT_READ_LIMIT) -> dict[str, Any]:
    """:func:`read_raw` as the protocol sends it (the bytes in base64)."""
    data, size, truncated = read_raw(path, offset, limit)
    return {"data": _b64(data), "size": size, "truncated": truncated}


def which(names: list[str]) -> dict[str, str | None]:
    """Where each command is found on this process's ``PATH`` (the non-interactive one, remotely)."""
    import shutil  # here, not at the top: a local check calls this module in-process (issue 18)

    return {name: shutil.which(name) for name in names}


def bash_n(data: str | None = None, path: str | None = None, timeout: float = 10.0) -> dict[str, Any]:
    """``bash -n`` (parse only, never run) of a file on this machine or of text sent here (base64)."""
    import base64
    import shutil
    import subprocess

    bash = shutil.which("bash")
    if bash is None:
        return {"bash": None, "returncode": None, "stderr": ""}
    if path is not None:
        argv, stdin = [bash, "-n", "--", path], None
    else:
        argv, stdin = [bash, "-n"], base64.b64decode(data or "")
    try:
        proc = subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CollectorError("timeout", f"bash -n took longer than {timeout} s") from None
    return {
        "bash": bash,
        "returncode": proc.returncode,
        "stderr": proc.stderr.decode("utf-8", "replace"),
    }


def run(
    argv: list[str], timeout: float = 30.0, cwd: str | None = None, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run one program with an argv list (never through a shell); for version probes and the like."""
    import subprocess

    full_env = None
    if env is not None:
        full_env = dict(os.environ)
        full_env.update(env)
    try:
        proc = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            cwd=cwd,
            env=full_env,
        )
    except FileNotFoundError:
        raise CollectorError("not_found", "{}: command not found".format(argv[0] if argv else "")) from None
    except subprocess.TimeoutExpired:
        raise CollectorError("timeout", f"{argv[0]} took longer than {timeout} s") from None
    return {"returncode": proc.returncode, "stdout": _b64(proc.stdout), "stderr": _b64(proc.stderr)}


def _read_small(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _boot_time() -> float | None:
    data = _read_small("/proc/stat")
    if data is None:
        return None
    for line in data.splitlines():
        if line.startswith(b"btime "):
            return float(line.split()[1])
    return None


def _listen_inodes() -> dict[str, str]:
    """Socket inode -> ``ip:port`` for every listening TCP socket (``/proc/net/tcp``, ``tcp6``)."""
    out = {}
    for name, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        data = _read_small(name)
        if data is None:
            continue
        for line in data.decode("ascii", "replace").splitlines()[1:]:
            fields = line.split()
            if len(fields) < 10 or fields[3] != "0A":  # 0A: LISTEN
                continue
            addr, _, port_hex = fields[1].partition(":")
            out[fields[9]] = f"{_ip(addr, v6)}:{int(port_hex, 16)}"
    return out


def _hostname() -> str:
    import socket  # here, not at the top: a local ``check`` never needs the module (issue 18)

    return socket.gethostname()


def _ip(hex_addr: str, v6: bool) -> str:
    import socket

    raw = bytes.fromhex(hex_addr)
    # /proc prints each 32-bit word in host (little-endian on x86/arm) order
    words = [raw[i : i + 4][::-1] for i in range(0, len(raw), 4)] if sys.byteorder == "little" else [raw]
    packed = b"".join(words)
    return socket.inet_ntop(socket.AF_INET6 if v6 else socket.AF_INET, packed)


def _sockets_of(pid: str, listen: dict[str, str]) -> list[str]:
    found = set()
    base = "/proc/" + pid + "/fd"
    try:
        fds = os.listdir(base)
    except OSError:
        return []
    for fd in fds:
        try:
            target = os.readlink(base + "/" + fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inode = target[8:-1]
            if inode in listen:
                found.add(listen[inode])
    return sorted(found)


def processes(
    with_env: bool = True, match: list[str] | None = None, listening: bool = True
) -> list[dict[str, Any]]:
    """Every process of this machine from ``/proc``: pid, ppid, uid, user, argv, env (when readable), cwd,
    exe, start time and listening TCP sockets.

    ``match``: env, cwd, exe and sockets are read only for processes whose command line contains one of these
    substrings (the rest get pid, ppid, uid and argv: enough to build the process tree).
    """
    if not os.path.isdir("/proc/self"):
        raise CollectorError("unsupported", f"no /proc on this machine ({sys.platform})")
    btime = _boot_time()
    try:
        ticks = os.sysconf("SC_CLK_TCK")
    except (ValueError, OSError, AttributeError):
        ticks = 100
    me = os.getpid()
    listen = _listen_inodes() if listening else {}
    users: dict[int, str | None] = {}
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        if pid == me:
            continue
        base = "/proc/" + name
        raw = _read_small(base + "/cmdline")
        if raw is None:
            continue
        argv = [w.decode("utf-8", "surrogateescape") for w in raw.split(b"\0")]
        if argv and argv[-1] == "":
            argv.pop()
        detailed = not match or any(m in " ".join(argv) for m in match)
        info: dict[str, Any] = {"pid": pid, "argv": argv, "ppid": None, "uid": None, "name": None}
        status = _read_small(base + "/status") or b""
        for line in status.splitlines():
            if line.startswith(b"PPid:"):
                info["ppid"] = int(line.split()[1])
            elif line.startswith(b"Uid:"):
                info["uid"] = int(line.split()[1])
            elif line.startswith(b"Name:"):
                info["name"] = line.split(b":", 1)[1].strip().decode("utf-8", "replace")
        info["user"] = _user(info["uid"], users)
        info["detailed"] = detailed
        info["start_time"] = None
        info["env"] = info["cwd"] = info["exe"] = None
        info["listening"] = []
        if not detailed:
            out.append(info)
            continue
        stat_raw = _read_small(base + "/stat")
        if stat_raw is not None and btime is not None:
            fields = stat_raw[stat_raw.rfind(b")") + 2 :].split()
            if len(fields) > 19:
                info["start_time"] = btime + int(fields[19]) / float(ticks)
        info["listening"] = _sockets_of(name, listen) if listen else []
        if with_env:
            env_raw = _read_small(base + "/environ")
            if env_raw is not None:
                env = {}
                for item in env_raw.split(b"\0"):
                    k, sep, v = item.partition(b"=")
                    if sep:
                        env[k.decode("utf-8", "surrogateescape")] = v.decode("utf-8", "surrogateescape")
                info["env"] = env
        for key, link in (("cwd", "/cwd"), ("exe", "/exe")):
            try:
                info[key] = os.readlink(base + link)
            except OSError:
                info[key] = None
        out.append(info)
    return out


def _user(uid: int | None, cache: dict[int, str | None]) -> str | None:
    if uid is None:
        return None
    if uid not in cache:
        try:
            import pwd

            cache[uid] = pwd.getpwuid(uid).pw_name
        except (ImportError, KeyError):
            cache[uid] = None
    return cache[uid]


REDIRECT_STATUSES = (301, 302, 303, 307, 308)
MAX_REDIRECTS = 5
# Headers that carry credentials: sent only to the origin the caller named (see http_get).
_CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "cookie")


def _origin(parts: Any) -> tuple[str, str, int]:
    """(scheme, host, port) with the default port filled in: two URLs are one origin when these match."""
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)


def _split_url(url: str) -> Any:
    """``urlsplit`` with the checks a request needs; ``CollectorError("usage")`` for a URL that is not one."""
    import urllib.parse

    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018  (raises ValueError for a port that is not a number in range)
    except ValueError as exc:  # "Invalid IPv6 URL", "Port out of range 0-65535", ...
        raise CollectorError("usage", f"{url}: not a valid URL ({exc})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise CollectorError("usage", f"{url}: only http:// and https:// URLs")
    if not parts.hostname:
        raise CollectorError("usage", f"{url}: no host in the URL")
    return parts


class _Deadline:
    """One deadline for a whole request: connect, TLS, headers, body and every redirect."""

    def __init__(self, seconds: float) -> None:
        import threading
        import time

        self._clock = time.monotonic
        self.end = self._clock() + seconds
        self.expired = False
        self.lock = threading.Lock()
        self.fd: int | None = None  # the connection's socket while a request is under way

    def left(self) -> float:
        return self.end - self._clock()


def _expire(deadline: _Deadline) -> None:
    """Timer thread: the deadline passed; wake whatever recv is blocked by shutting the connection down.

    A socket timeout alone bounds each read, not the request: a server that drips a byte a second would
    hold the reader for as long as it likes. The shutdown goes through a duplicate of the descriptor:
    during a TLS handshake the socket object http.client holds has already been detached from it."""
    import socket

    with deadline.lock:
        deadline.expired = True
        if deadline.fd is None:
            return
        try:
            dup = socket.socket(fileno=os.dup(deadline.fd))
        except OSError:
            return
        try:
            dup.shutdown(socket.SHUT_RDWR)  # shuts the connection itself, for every descriptor of it
        except OSError:
            pass
        finally:
            dup.close()


def _get_once(
    parts: Any, headers: dict[str, str], deadline: _Deadline, limit: int, insecure: bool
) -> tuple[int, dict[str, str], bytes, bool]:
    """One GET on one connection: (status, headers, at most ``limit`` body bytes, truncated)."""
    import http.client
    import socket
    import ssl
    import threading

    left = deadline.left()
    if left <= 0:
        raise TimeoutError("timed out")
    conn: Any
    if parts.scheme.lower() == "https":
        context = ssl.create_default_context()
        if insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        conn = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=left, context=context)
    else:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=left)

    def connect(*args: Any, **kwargs: Any) -> socket.socket:
        sock = socket.create_connection(*args, **kwargs)
        with deadline.lock:
            deadline.fd = sock.fileno()
        return sock

    conn._create_connection = connect  # remember the descriptor before TLS wraps the socket
    # From what is left now: loading the CA store for HTTPS alone can take most of a second.
    timer = threading.Timer(max(deadline.left(), 0.0), _expire, (deadline,))
    timer.daemon = True
    timer.start()
    try:
        target = (parts.path or "/") + ("?" + parts.query if parts.query else "")
        conn.request("GET", target, headers=headers)
        response = conn.getresponse()
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            data = response.read(min(1 << 16, limit + 1 - size))
            if not data:
                break
            chunks.append(data)
            size += len(data)
        if deadline.expired:
            raise TimeoutError("timed out")
        body = b"".join(chunks)
        return response.status, dict(response.getheaders()), body[:limit], size > limit
    except Exception:
        if deadline.expired:  # whatever the shut-down socket made http.client raise, it is the deadline
            raise TimeoutError("timed out") from None
        raise
    finally:
        timer.cancel()
        with deadline.lock:  # from here the descriptor may be closed and reused: never shut it down
            deadline.fd = None
        conn.close()


def http_get(
    url: str,
    timeout: float = 5.0,
    limit: int = MAX_HTTP_BYTES,
    headers: dict[str, str] | None = None,
    insecure: bool = False,
) -> dict[str, Any]:
    """GET an endpoint as seen from this machine (a server usually listens on 127.0.0.1 only).

    Never through a proxy. ``timeout`` is one deadline for the whole request (connect, TLS, headers, body,
    redirects), not per socket read; at most ``limit`` body bytes are kept (``truncated`` says more came).
    Redirects (at most 5) are followed; credentials (``Authorization``, ``Cookie``, a ``user:password@``
    in a URL) go only to the origin given (scheme, host, port): on a redirect to another origin they are
    dropped, the hop is still followed, and ``credentials_dropped`` says so. ``redirects`` lists the URLs
    followed. A failure to connect is an answer, not an error: ``status`` is ``None`` and ``error`` is one
    of ``refused``, ``timeout``, ``dns``, ``tls``, ``other`` with ``detail``.
    """
    import base64
    import socket
    import ssl
    import urllib.parse

    parts = _split_url(url)
    origin = _origin(parts)
    sent = dict(headers or {"User-Agent": "argtrace-collector"})
    if parts.username is not None and not any(k.lower() == "authorization" for k in sent):
        pair = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
        sent["Authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
    out: dict[str, Any] = {
        "status": None,
        "headers": {},
        "body": "",
        "truncated": False,
        "redirects": [],
        "credentials_dropped": False,
    }
    deadline = _Deadline(timeout)
    current = url
    try:
        for hop in range(MAX_REDIRECTS + 1):
            hop_headers = sent
            if _origin(parts) != origin:
                hop_headers = {k: v for k, v in sent.items() if k.lower() not in _CREDENTIAL_HEADERS}
                if len(hop_headers) != len(sent):
                    out["credentials_dropped"] = True
            status, got, body, truncated = _get_once(parts, hop_headers, deadline, limit, insecure)
            location = next((v for k, v in got.items() if k.lower() == "location"), None)
            if status in REDIRECT_STATUSES and location and hop < MAX_REDIRECTS:
                following = urllib.parse.urljoin(current, location.strip())
                try:
                    next_parts = _split_url(following)
                except CollectorError:
                    next_parts = None  # a redirect to ftp:// or garbage: the 3xx itself is the answer
                if next_parts is not None:
                    # Never send a user:password@ that a Location carries, nor keep it in what is reported.
                    name = next_parts.hostname
                    netloc = f"[{name}]" if ":" in name else name
                    if next_parts.port:
                        netloc += f":{next_parts.port}"
                    following = urllib.parse.urlunsplit(
                        (next_parts.scheme, netloc, next_parts.path, next_parts.query, "")
                    )
                    out["redirects"].append(following)
                    current, parts = following, _split_url(following)
                    continue
            out.update(status=status, headers=got, body=_b64(body), truncated=truncated)
            return out
    except Exception as exc:
        reason = getattr(exc, "reason", exc)
        text = f"{type(reason).__name__}: {reason}"
        lowered = text.lower()
        if isinstance(reason, ConnectionRefusedError) or "refused" in lowered:
            kind = "refused"
        elif isinstance(reason, (socket.timeout, TimeoutError)) or "timed out" in lowered:
            kind, text = "timeout", f"no complete answer within {timeout:g} s"
        elif isinstance(reason, socket.gaierror):
            kind = "dns"
        elif isinstance(reason, ssl.SSLError) or "ssl" in lowered or "certificate" in lowered:
            kind = "tls"
        else:
            kind = "other"
        out.update(error=kind, detail=text)
    return out


# A module sent by the local side (the log layer's streaming reader), so a large log is filtered where it
# lies and only the kept lines travel back. Registered in sys.modules because dataclasses look it up.
_LOADED: dict[str, types.ModuleType] = {}


def load_module(name: str, source: str) -> bool:
    """Execute ``source`` as module ``name``. A dotted name gets empty parent packages, so the log reader can
    be loaded as ``argtrace.layers.log.reader`` next to its grep prefilter and their shared ``lines`` module
    (the node has no argtrace installed; these stand-ins exist only in this collector process)."""
    parts = name.split(".")
    for i in range(1, len(parts)):
        parent = ".".join(parts[:i])
        if parent not in sys.modules:
            package = types.ModuleType(parent)
            package.__path__ = []  # a package with nothing on disk: only what is loaded here
            sys.modules[parent] = package
            if i > 1:
                setattr(sys.modules[".".join(parts[: i - 1])], parts[i - 1], package)
    module = types.ModuleType(name)
    module.__file__ = f"<argtrace:{name}>"
    sys.modules[name] = module
    if len(parts) > 1:
        setattr(sys.modules[".".join(parts[:-1])], parts[-1], module)
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    _LOADED[name] = module
    return True


def scan_log(module: str, path: str, label: str | None = None) -> dict[str, Any]:
    """Run ``scan_log`` of a loaded reader module on a file here; the result as plain data."""
    import dataclasses

    mod = _LOADED.get(module)
    if mod is None:
        raise CollectorError("usage", f"module {module} is not loaded")
    import multiprocessing

    # The reader splits a big log between worker processes when grep cannot prefilter it; they find the
    # loaded module only when forked from this process (spawn/forkserver would import it from disk).
    workers = None if multiprocessing.get_start_method(allow_none=False) == "fork" else 1
    try:
        scan = mod.scan_log(_path(path), label, workers=workers)
    except OSError as exc:
        raise _oserror(exc, path) from None
    result: dict[str, Any] = dataclasses.asdict(scan)
    return result


def _path(text: str) -> Any:
    import pathlib

    return pathlib.Path(text)


# ------------------------------------------------------------------------------------------------ run
# ``argtrace run`` (locally and with ``--host``): the one request that writes to this machine and starts a
# program. It writes the probe files it is sent into a private temporary directory, runs the launch there
# with the server start intercepted, and removes the directory again.


def probe_environment(root: str, base: dict[str, str], stubs: bool = True) -> dict[str, str]:
    """``base`` plus what the probe in ``root`` needs: shims first on PATH, the probe first on PYTHONPATH,
    BASH_ENV (the caller's own BASH_ENV and PYTHONPATH are remembered so a capture can show them)."""
    env = dict(base)
    if "BASH_ENV" in env:
        env["ARGTRACE_ORIG_BASH_ENV"] = env["BASH_ENV"]
    if "PYTHONPATH" not in env:
        env["ARGTRACE_PYTHONPATH_UNSET"] = "1"
    env["BASH_ENV"] = os.path.join(root, "bash_env.sh")
    env["ARGTRACE_PROBE_DIR"] = root
    env["ARGTRACE_STUBS"] = "1" if stubs else "0"
    bin_dir, site = os.path.join(root, "bin"), os.path.join(root, "site")
    env["PATH"] = bin_dir + (os.pathsep + base["PATH"] if base.get("PATH") else "")
    env["PYTHONPATH"] = site + (os.pathsep + base["PYTHONPATH"] if base.get("PYTHONPATH") else "")
    return env


def write_probe(root: str, files: dict[str, str], names: list[str]) -> None:
    """The probe directory (``argtrace/probe/__init__.py`` shows its layout) from the files' text.

    The shim runs under this machine's Python (the one running the collector), isolated (``-I``) so that it
    never imports the probe or anything on the launch's PYTHONPATH itself."""
    for sub in ("site", "bin", "captures"):
        os.makedirs(os.path.join(root, sub), mode=0o700, exist_ok=True)
    with open(os.path.join(root, "site", "sitecustomize.py"), "w", encoding="utf-8") as fh:
        fh.write(files["sitecustomize.py"])
    shim = os.path.join(root, "argtrace-shim")
    import shutil

    python = sys.executable or shutil.which("python3") or "/usr/bin/python3"
    with open(shim, "w", encoding="utf-8") as fh:
        fh.write("#!" + python + " -I\n" + files["shim.py"])
    os.chmod(shim, 0o700)
    for name in names:
        os.symlink(shim, os.path.join(root, "bin", name))
    with open(os.path.join(root, "bash_env.sh"), "w", encoding="utf-8") as fh:
        fh.write(files["bash_env.sh"])


class _Interrupted(Exception):
    pass


def _raise_interrupted(signum: int, frame: Any) -> None:
    raise _Interrupted(signum)


def run_probe(
    files: dict[str, str],
    command: list[str],
    env: dict[str, str],
    names: list[str],
    expected: int = 1,
    timeout: float = 60.0,
    stubs: bool = True,
    keep: bool = False,
    cwd: str | None = None,
    grace: float = 0.4,
    tail_lines: int = 40,
    watch_parent: bool = False,
) -> dict[str, Any]:
    """Run ``command`` (an argv: ``bash SCRIPT ARGS`` or ``bash -c TEXT``) in a new session with the probe.

    Stops when ``expected`` server starts were captured (plus ``grace`` seconds), when the launch and
    everything it started have ended, or at ``timeout``; then ends the whole process group. The temporary
    directory (``mkdtemp``: mode 0700) is removed whatever happens (exception, SIGTERM/SIGHUP, the ssh
    connection dropping: ``watch_parent``, the collector's parent changes) unless ``keep``.
    Returns the captures, the stub calls, the exit status (``None`` when argtrace ended the launch),
    ``timed_out`` (no capture by the timeout) and the tail of the output."""
    import glob
    import signal
    import subprocess
    import tempfile
    import threading
    import time

    root = tempfile.mkdtemp(prefix="argtrace-run-")
    parent = os.getppid()
    handlers: dict[Any, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            handlers[signum] = signal.signal(signum, _raise_interrupted)
    try:
        write_probe(root, files, names)
        log_path = os.path.join(root, "output.log")
        status = None
        timed_out = False
        with open(log_path, "wb") as log:
            try:
                proc = subprocess.Popen(
                    command,
                    env=probe_environment(root, env, stubs),
                    cwd=cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            except FileNotFoundError:
                raise CollectorError("not_found", f"{command[0]}: command not found") from None
            except NotADirectoryError:
                raise CollectorError("not_found", f"{cwd}: not a directory") from None
            try:
                started = time.monotonic()
                captured_at = None
                pattern = os.path.join(root, "captures", "*.json")
                while True:
                    if status is None:
                        status = proc.poll()
                    count = len(glob.glob(pattern))
                    now = time.monotonic()
                    if status is not None and not _group_alive(proc.pid):
                        break  # the script and everything it started have ended
                    if count >= max(expected, 1):
                        captured_at = captured_at or now
                        if now - captured_at >= grace:
                            break
                    if now - started >= timeout:
                        timed_out = count == 0
                        break
                    if watch_parent and os.getppid() != parent:
                        raise CollectorError("interrupted", "the connection to argtrace was lost")
                    time.sleep(0.05)
            finally:
                _end_group(proc)
        with open(log_path, "rb") as fh:
            fh.seek(max(0, os.fstat(fh.fileno()).st_size - 64 * 1024))
            tail = fh.read().decode("utf-8", "replace").splitlines()[-tail_lines:]
        return {
            "probe_dir": root,
            "kept": keep,
            "exit_status": status,
            "timed_out": timed_out,
            "output_tail": "\n".join(tail),
            "captures": _read_captures(os.path.join(root, "captures")),
            "stub_calls": _read_jsonl(os.path.join(root, "stubs.jsonl")),
        }
    except _Interrupted as exc:
        raise CollectorError("interrupted", f"argtrace run was ended by signal {exc.args[0]}") from None
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        if not keep:
            import shutil

            shutil.rmtree(root, ignore_errors=True)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _end_group(proc: Any) -> None:
    """End the launch's whole process group (backgrounded servers, nohup'd children included)."""
    import signal
    import subprocess

    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, signum)
        except (ProcessLookupError, PermissionError):
            break
        try:
            proc.wait(timeout=1.0)
            # The leader is gone; members may remain: one SIGKILL for the group.
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            break
        except subprocess.TimeoutExpired:
            continue
    try:
        proc.wait(timeout=2.0)
    except subprocess.TimeoutExpired:
        pass


def _read_captures(directory: str) -> list[dict[str, Any]]:
    out = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            with open(os.path.join(directory, name), encoding="utf-8") as fh:
                out.append(json.load(fh))
        except (OSError, ValueError):
            continue
    return out


def _read_jsonl(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


OPS: dict[str, Callable[..., Any]] = {
    "hello": hello,
    "stat": stat,
    "read": read,
    "listdir": listdir,
    "realpath": realpath,
    "which": which,
    "bash_n": bash_n,
    "run": run,
    "processes": processes,
    "http_get": http_get,
    "load_module": load_module,
    "scan_log": scan_log,
    "run_probe": run_probe,
}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """One request to one response; expected failures become ``{"ok": false, "error": ...}``."""
    rid = request.get("id")
    op = OPS.get(str(request.get("op")))
    if op is None:
        return {"id": rid, "ok": False, "error": {"kind": "usage", "message": "unknown op"}}
    return {"id": rid, **respond(op, request.get("args") or {})}


def _send(out: Any, message: dict[str, Any]) -> None:
    line = MARK + json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n"
    out.write(line.encode("ascii"))
    out.flush()


def serve() -> None:
    """Answer requests from stdin until it closes."""
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    # Nothing else may write to the protocol stream.
    sys.stdout = sys.stderr
    _send(stdout, {"id": 0, "ok": True, "result": hello()})
    for raw in iter(stdin.readline, b""):
        raw = raw.strip()
        if not raw:
            continue
        try:
            request = json.loads(raw.decode("utf-8"))
        except ValueError:
            _send(stdout, {"id": None, "ok": False, "error": {"kind": "usage", "message": "bad request"}})
            continue
        if request.get("op") == "bye":
            break
        _send(stdout, answer(request))


if __name__ == "__main__":
    serve()
