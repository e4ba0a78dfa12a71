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
    from argtrace.remote.collector import special_kind

    return f"is a {special_kind(mode)}, not a regular file"
