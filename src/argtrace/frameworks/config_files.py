"""A launch's ``--config`` file as both launchers' argv rewrites read it (``argv.read_config_file``,
``argv.config_flags``): where it is (here, a copy the script wrote, a ``--host`` node's copy) and its YAML.
Moved from frameworks/argv.py so a launch without ``--config`` does not read it (unrun37)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from argtrace import localfs
from argtrace.model import ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def resolve_path(path: str, server: ServerCommand) -> Path:
    p = Path(path).expanduser()
    if not p.is_absolute() and server.cwd:
        p = Path(server.cwd) / p
    return p


MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024


def config_file(path_text: str, server: ServerCommand) -> Path | None:
    """The ``--config`` file to read, ``None`` when it is not a file: here, the path itself; with
    ``argtrace --host NODE``, a private local copy of the node's file (a path on the command line is the
    node's path; relative ones start at the server's directory there). The resolution layer hands the same
    copy to the framework's own parser."""
    from argtrace.remote.host import current_host

    host = current_host()
    if not host.is_remote:
        path = resolve_path(path_text, server)
        from argtrace.overlay import overlaid_copy

        edited = overlaid_copy(path)  # a fix being re-checked (argtrace.fixes): the edited file's copy
        if edited is not None:
            return edited
        written = script_written_copy(path, server)
        if written is not None:
            return written
        return path if localfs.is_file(path) else None
    from argtrace.remote.models import node_file_copy

    return node_file_copy(host, node_config_path(path_text, server), limit=MAX_CONFIG_FILE_BYTES)


def script_written_copy(path: Path, server: ServerCommand) -> Path | None:
    """A private copy of the text the script wrote to ``path`` from a here-document before the start
    (``cat > config.yaml <<EOF``; layers/shell/written.py): what the server reads there, whatever this
    machine's disk holds. None when the script wrote no such file or its text is not known statically."""
    import posixpath

    key = posixpath.normpath(str(path))
    text = next((t for p, t in reversed(server.script_files) if p == key), None)
    if text is None:
        return None
    import hashlib

    folder = _written_folder()
    target = folder / hashlib.sha256(f"{key}\0{text}".encode()).hexdigest()[:16] / posixpath.basename(key)
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return target


@functools.cache
def _written_folder() -> Path:
    """The process's folder of script-written files, removed when it exits."""
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="argtrace-written-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def node_label() -> str | None:
    """The ``--host`` node being observed, ``None`` locally."""
    from argtrace.remote.host import current_host

    host = current_host()
    return host.label if host.is_remote else None


def node_config_path(path_text: str, server: ServerCommand) -> str:
    """``--config``'s path on the node (``--host``): ``~/`` is the node's home, relative paths start at the
    server's directory there (what :func:`resolve_path` does here)."""
    import posixpath

    from argtrace.remote.host import current_host

    path = path_text
    if path == "~" or path.startswith("~/"):
        home = current_host().info().home
        if home:
            path = home + path[1:]
    if not path.startswith("/") and server.cwd:
        path = posixpath.join(server.cwd, path)
    return path


def load_yaml_file(path: Path) -> Any:
    import yaml

    with path.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def error_line(exc: BaseException) -> str:
    """An exception as one line for a finding: YAML errors span several lines (problem, then position)."""
    text = " ".join(str(exc).split())
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None)
    if mark is not None:
        # Never str(exc) for a marked YAML error: it echoes the source line, which may hold a secret.
        text = f"{problem or type(exc).__name__} (line {mark.line + 1}, column {mark.column + 1})"
    return text[:300]


def json_dumps_like_python(value: Any) -> str:
    """``json.dumps`` with the defaults the frameworks use (``", "`` and ``": "`` separators)."""
    return json.dumps(value)
