"""Questions about local paths that never raise, whatever the path text is.

``Path.is_file()`` and friends (Python 3.11) swallow only "does not exist"-like errors: a path component
longer than the file system allows (``ENAMETOOLONG``), a permission error on a parent or a NUL byte
raises, and an interpreter or ``--model-path`` value in a launch script is arbitrary text. Here every such
path simply is not a file (as ``os.path.isfile`` and Python 3.14's pathlib answer), and the caller's own
"not found" handling takes over.
"""

from __future__ import annotations

import os
import stat
import sys
from contextvars import ContextVar

# The PATH lookups of one command (``frameworks.installed.remembered`` sets it): a check and each of its fix
# re-checks look the same names up on the same PATH (bash for ``bash -n``, shellcheck, the server's
# interpreter); within one command the files are taken not to change, as everywhere else in it (issue 18).
# Keyed by what a lookup reads: the name, the PATH and the directory an empty or relative entry means.
LOOKUPS: ContextVar[dict[tuple[str | None, ...], str | None] | None] = ContextVar(
    "argtrace_path_lookups", default=None
)


def _mode(path: str | os.PathLike[str]) -> int | None:
    try:
        return os.stat(path).st_mode
    except (OSError, ValueError):  # ValueError: an embedded NUL byte
        return None


def is_file(path: str | os.PathLike[str]) -> bool:
    """A regular file (symlinks followed); ``False`` for anything that cannot be stat'ed."""
    mode = _mode(path)
    return mode is not None and stat.S_ISREG(mode)


def is_dir(path: str | os.PathLike[str]) -> bool:
    mode = _mode(path)
    return mode is not None and stat.S_ISDIR(mode)


def exists(path: str | os.PathLike[str]) -> bool:
    return _mode(path) is not None


def path_problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be read as a regular file, in words (``None``: it can be opened)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except ValueError:
        return "the path contains a NUL byte"
    except OSError as exc:
        return (exc.strerror or str(exc)).lower()
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory"
    from argtrace.remote.collector_files import special_kind

    return f"is a {special_kind(mode)}, not a regular file"


class NotReadable(OSError):
    """A path that is not read: not a regular file, or larger than the caller's budget. ``strerror`` says
    why in words, so callers' ``exc.strerror`` messages read as for any other OSError."""


def read_regular(path: str | os.PathLike[str], limit: int, *, cut: bool = False) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; ``NotReadable`` (an OSError) for a
    FIFO, a device, a directory or a file over ``limit`` bytes (``cut``: its first ``limit`` bytes).

    The open is non-blocking and the type is checked on the opened descriptor: opening a FIFO for reading
    blocks until a writer comes, ``/dev/zero`` never ends (and a plain ``read_bytes`` of it fills memory),
    and a file swapped for either between a ``stat`` and the ``open`` is still caught."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except ValueError:  # an embedded NUL byte
        raise NotReadable(22, "the path contains a NUL byte") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise NotReadable(21, "is a directory")
        if not stat.S_ISREG(mode):
            from argtrace.remote.collector_files import special_kind

            raise NotReadable(22, f"is a {special_kind(mode)}, not a regular file")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        if cut:
            return data[:limit]
        raise NotReadable(27, f"larger than {limit:,} bytes")
    return data


def write_regular(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` (created 0666 & ~umask, or truncated): refused (``NotReadable``) when it
    is not a regular file. A FIFO opened for writing blocks until a reader comes; opened non-blocking it
    fails at once (no reader, ENXIO) or is refused here after the open."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except ValueError:
        raise NotReadable(22, "the path contains a NUL byte") from None
    except OSError as exc:
        if exc.errno == 6:  # ENXIO: a FIFO without a reader
            raise NotReadable(22, "is a named pipe (FIFO), not a regular file") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            from argtrace.remote.collector_files import special_kind

            raise NotReadable(22, f"is a {special_kind(mode)}, not a regular file")
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def which(name: str) -> str | None:
    """``shutil.which(name)`` for a command name without a directory part, without importing ``shutil``
    (with ``bz2`` and ``lzma``: 6.7 M instructions of a short check, issue 18): the first entry of ``PATH``
    (unset: ``os.confstr("CS_PATH")``, else ``os.defpath``; each directory once) holding an executable
    ``name`` that is no directory. Windows (``PATHEXT``, the current directory first) and a name with a
    directory part are left to ``shutil.which`` itself."""
    if sys.platform == "win32" or os.path.dirname(name):
        import shutil

        return shutil.which(name)
    path = os.environ.get("PATH", None)
    memory = LOOKUPS.get()
    if memory is None:
        return _which_on_path(name, path)
    key = ("here", name, path, os.getcwd())  # an empty PATH entry is the working directory
    if key not in memory:
        memory[key] = _which_on_path(name, path)
    return memory[key]


def _which_on_path(name: str, path: str | None) -> str | None:
    """:func:`which` with ``PATH`` (None: unset)."""
    if path is None:
        try:
            path = os.confstr("CS_PATH")
        except (AttributeError, ValueError):
            path = os.defpath
    if not path:
        return None
    seen: set[str] = set()
    for directory in path.split(os.pathsep):
        if directory in seen:
            continue
        seen.add(directory)
        candidate = os.path.join(directory, name)
        if os.path.exists(candidate) and os.access(candidate, os.F_OK | os.X_OK):
            if not os.path.isdir(candidate):
                return candidate
    return None
