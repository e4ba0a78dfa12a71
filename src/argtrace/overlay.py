"""Files read as edited text instead of what the disk holds: how ``argtrace.fixes`` re-checks an edit of a
file the launch reads besides the script (a ``docker --env-file`` / compose ``env_file``, a framework
``--config`` YAML) without writing it (issue 13). Only this machine's files are overlaid: under ``--host``
the node's files are read as they are.

The overlay is a context variable, so a re-check sees it and nothing else does (``argtrace mcp`` serves
calls in one process). Keys are real paths: ``cfg.yaml`` and ``./cfg.yaml`` are the same file.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path

_FILES: ContextVar[Mapping[str, bytes] | None] = ContextVar("argtrace_overlay", default=None)
_COPIES: ContextVar[str | None] = ContextVar("argtrace_overlay_copies", default=None)


def _key(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.fspath(path))


def overlaid(path: str | os.PathLike[str]) -> bytes | None:
    """The edited bytes of ``path``, or None when it is read from the disk."""
    files = _FILES.get()
    return files.get(_key(path)) if files else None


def active() -> bool:
    """Whether some file reads as edited text here (a re-check of a fix that edits a file)."""
    return bool(_FILES.get())


def overlaid_copy(path: str | os.PathLike[str]) -> Path | None:
    """A private file holding the edited bytes of ``path`` (same base name), for readers that take a path
    (the framework's own ``--config`` reader); None when ``path`` is not overlaid."""
    data = overlaid(path)
    folder = _COPIES.get()
    if data is None or folder is None:
        return None
    target = Path(folder) / str(len(os.listdir(folder))) / os.path.basename(os.fspath(path))
    target.parent.mkdir()
    target.write_bytes(data)
    return target


@contextlib.contextmanager
def overlay(files: Mapping[str, bytes]) -> Iterator[None]:
    """Within the block, each path of ``files`` reads as its bytes."""
    if not files:
        yield
        return
    import tempfile  # here: most checks verify no fix that writes files (tempfile imports random)

    with tempfile.TemporaryDirectory(prefix="argtrace-overlay-") as folder:
        token = _FILES.set({_key(p): data for p, data in files.items()})
        copies = _COPIES.set(folder)
        try:
            yield
        finally:
            _COPIES.reset(copies)
            _FILES.reset(token)
