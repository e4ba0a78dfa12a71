"""The files the shell evaluator looks at (``source FILE``, ``bash FILE``, ``[ -f FILE ]``, ``realpath``),
on the machine the script runs on: this one, or under ``argtrace --host NODE`` the node
(:func:`argtrace.remote.host.current_host`).

Locally every function is exactly the ``os.path`` function (or ``open``) it replaces. On a node the answers
come from the collector (``stat`` follows symlinks, so :func:`lexists` is :func:`exists` there and
:func:`islink` is unknown); each path is asked once per run. A failure to read raises ``OSError`` in both
cases, so callers keep their ``except OSError``.
"""

from __future__ import annotations

import os
import weakref

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.remote.host import FileStat, Host

_STATS: weakref.WeakKeyDictionary[Host, dict[str, FileStat]] = weakref.WeakKeyDictionary()


def _remote() -> Host | None:
    from argtrace.remote.host import current_host

    host = current_host()
    return host if host.is_remote else None


def _stat(host: Host, path: str) -> FileStat:
    from argtrace.remote.host import FileStat, HostError

    cache = _STATS.setdefault(host, {})
    if path not in cache:
        try:
            cache[path] = host.stat(path)
        except HostError as exc:
            from argtrace.remote.ssh import TransportError

            if isinstance(exc, TransportError):
                raise
            cache[path] = FileStat(exists=False)  # e.g. a directory on the way is not searchable
    return cache[path]


def exists(path: str) -> bool:
    host = _remote()
    return os.path.exists(path) if host is None else _stat(host, path).exists


def lexists(path: str) -> bool:
    host = _remote()
    return os.path.lexists(path) if host is None else _stat(host, path).exists


def isfile(path: str) -> bool:
    host = _remote()
    return os.path.isfile(path) if host is None else _stat(host, path).is_file


def isdir(path: str) -> bool:
    host = _remote()
    return os.path.isdir(path) if host is None else _stat(host, path).is_dir


def islink(path: str) -> bool | None:
    """``None`` on a node (the collector follows symlinks)."""
    host = _remote()
    return os.path.islink(path) if host is None else None


def getsize(path: str) -> int:
    host = _remote()
    if host is None:
        return os.path.getsize(path)
    st = _stat(host, path)
    if not st.exists or st.size is None:
        raise FileNotFoundError(2, "No such file or directory", path)
    return st.size


def realpath(path: str) -> str:
    host = _remote()
    if host is None:
        return os.path.realpath(path)
    from argtrace.remote.host import HostError
    from argtrace.remote.ssh import TransportError

    try:
        return host.realpath(path)
    except TransportError:
        raise
    except HostError:  # a path the node cannot resolve (e.g. a NUL byte): as written
        return os.path.normpath(path)


def read(path: str, limit: int) -> bytes:
    """At most ``limit`` bytes of the file; ``OSError`` when it cannot be read."""
    host = _remote()
    if host is None:
        from argtrace.localfs import read_regular

        # never a FIFO or a device, even one swapped in after the caller's checks (an OSError like any)
        return read_regular(path, limit, cut=True)
    from argtrace.remote.host import HostError
    from argtrace.remote.ssh import TransportError

    try:
        return host.read_bytes(path, limit=limit)
    except TransportError:
        raise
    except HostError as exc:
        raise OSError(f"{host.describe(path)}: {exc}") from exc
