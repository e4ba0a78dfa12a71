"""The collector's file requests (``stat``, ``read_raw``, ``listdir``, ``realpath``) and the shape of its
answers (:func:`respond`): the part of ``collector.py`` a local check calls in-process (``LocalHost``),
apart so that such a check does not load the rest (processes, HTTP, the probe: code35, ~48 KB of
bytecode it never ran). Like the collector it is standard library only and runs on Python 3.8 or newer:
the program sent to a node is this file's text followed by ``collector.py``'s (``ssh.collector_source``).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

DEFAULT_READ_LIMIT = 64 * 1024 * 1024


class CollectorError(Exception):
    """An observation that failed in an expected way (no such file, permission, timeout)."""

    def __init__(self, kind: str, message: str, errno_: int | None = None) -> None:
        Exception.__init__(self, message)
        self.kind = kind
        self.errno = errno_


def _oserror(exc: OSError, path: str) -> CollectorError:
    kind = {2: "not_found", 13: "permission", 21: "is_directory", 20: "not_a_directory"}.get(
        exc.errno or 0, "os_error"
    )
    return CollectorError(kind, f"{path}: {exc.strerror or exc}", exc.errno)


# errno values for which a path names nothing that could exist: ENOTDIR, ENAMETOOLONG, ELOOP.
_NO_SUCH_PATH = {20: None, 36: "file name too long", 40: "too many levels of symbolic links"}


def special_kind(mode: int) -> str:
    """What a file that is neither a regular file nor a directory is, in words."""
    import stat as stat_mod

    for test, name in (
        (stat_mod.S_ISFIFO, "named pipe (FIFO)"),
        (stat_mod.S_ISSOCK, "socket"),
        (stat_mod.S_ISCHR, "character device"),
        (stat_mod.S_ISBLK, "block device"),
    ):
        if test(mode):
            return name
    return "special file"


def stat(path: str) -> dict[str, Any]:
    """``{"exists": false}`` (with ``problem`` when the path cannot name a file at all, e.g. a component
    longer than the file system allows) or the file's type, size, mtime and mode (symlinks followed);
    ``special`` says what an ``other`` is (a FIFO, a socket, a device)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return {"exists": False}
    except ValueError:  # an embedded NUL byte: no file can have that name
        return {"exists": False, "problem": "the path contains a NUL byte"}
    except OSError as exc:
        if exc.errno in _NO_SUCH_PATH:
            problem = _NO_SUCH_PATH[exc.errno]
            return {"exists": False, "problem": problem} if problem else {"exists": False}
        raise _oserror(exc, path) from None
    import stat as stat_mod

    special = None
    if stat_mod.S_ISDIR(st.st_mode):
        kind = "dir"
    elif stat_mod.S_ISREG(st.st_mode):
        kind = "file"
    else:
        kind, special = "other", special_kind(st.st_mode)
    return {
        "exists": True,
        "type": kind,
        "size": st.st_size,
        "mtime": st.st_mtime,
        "mode": st.st_mode & 0o7777,
        "readable": os.access(path, os.R_OK),
        "special": special,
    }


def _open_regular(path: str) -> Any:
    """``path`` opened for binary reading, refused unless it is a regular file.

    Checked with ``stat`` before opening: opening a FIFO for reading blocks until a writer comes, and a
    device such as ``/dev/zero`` never ends. The open itself is non-blocking and re-checked with ``fstat``,
    so a file swapped for a FIFO in between still cannot hang the reader."""
    import stat as stat_mod

    try:
        before = os.stat(path)
        if not stat_mod.S_ISREG(before.st_mode):
            if stat_mod.S_ISDIR(before.st_mode):
                raise CollectorError("is_directory", f"{path}: is a directory", 21)
            what = special_kind(before.st_mode)
            raise CollectorError("not_regular", f"{path}: is a {what}, not a regular file")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise _oserror(exc, path) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat_mod.S_ISREG(mode):
            raise CollectorError("not_regular", f"{path}: is a {special_kind(mode)}, not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_raw(path: str, offset: int = 0, limit: int = DEFAULT_READ_LIMIT) -> tuple[bytes, int, bool]:
    """Up to ``limit`` bytes of a regular file from ``offset``, the file's size, and whether more follows."""
    fh = _open_regular(path)
    try:
        with fh:
            if offset:
                fh.seek(offset)
            data = fh.read(limit + 1)
            size = os.fstat(fh.fileno()).st_size
    except OSError as exc:
        raise _oserror(exc, path) from None
    return data[:limit], size, len(data) > limit


def realpath(path: str) -> str:
    """The path with symlinks resolved (as far as they exist)."""
    return os.path.realpath(path)


def listdir(path: str) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError as exc:
        raise _oserror(exc, path) from None


def respond(op: Callable[..., Any], args: dict[str, Any]) -> dict[str, Any]:
    """``op(**args)`` as a response: its result, or its expected failure as ``error``. The local host calls
    an op through here in-process (``LocalHost``), the remote collector through :func:`answer`."""
    try:
        return {"ok": True, "result": op(**args)}
    except CollectorError as exc:
        return {"ok": False, "error": {"kind": exc.kind, "message": str(exc), "errno": exc.errno}}
    except Exception as exc:  # report, keep serving
        return {"ok": False, "error": {"kind": "internal", "message": f"{type(exc).__name__}: {exc}"}}


# The requests a local check sends most (a file's kind, a directory, a resolved path), answered without
# loading collector.py; ``LocalHost.call`` sends any other to :func:`collector.answer`
FILE_OPS: dict[str, Callable[..., Any]] = {"stat": stat, "listdir": listdir, "realpath": realpath}
