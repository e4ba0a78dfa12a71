"""Which directory a compose file's relative paths and ``.env`` are read from: docker compose's project
directory (compose-go ``cli.ProjectOptions``: ``--project-directory``, else the directory of the first
``-f`` file). This module owns that decision for one compose file.

A compose file checked on its own is taken as the first ``-f`` file: its own directory is the project's.
Some files are fragments of a bigger project, merged after the project's own compose file (Harbor runs
``docker compose -f compose.yml -f services/compose.sglang.yml``): their relative paths are the project
directory's, not their own. The evidence argtrace takes for that is the file's own ``env_file:`` paths,
which compose requires to exist: none is found beside the file, and every one is found in a directory above
it (at most three levels) that holds a compose file of its own (``compose.yaml``, ``compose.yml``,
``docker-compose.yaml``, ``docker-compose.yml``). That directory is then the project's, as when its compose
file comes first: ``.env`` is read there and the paths are joined to it, and TP106 says so (a note: the
command that runs the project is not in the file). Without such evidence the file's own directory is kept,
and a missing env file is an error as before.
"""

from __future__ import annotations

import posixpath

from argtrace.layers.transport.yamlnodes import _get, _items, _scalar, _seq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# compose-go's default file names (cli/options.go DefaultFileNames), in its order
COMPOSE_NAMES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
_LEVELS = 3

# a compose file's label -> the project directory its relative paths are read from (set once per reading
# by :func:`remember_project`; a file argtrace did not place keeps its own directory)
_PROJECTS: dict[str, str] = {}


def base_dir(label: str) -> str:
    """The directory a compose file's relative paths are joined to (module docstring)."""
    return _PROJECTS.get(label) or posixpath.dirname(label) or "."


def remember_project(label: str, root: Any) -> tuple[str, str] | None:
    """Decide the project directory of the compose file ``label`` (module docstring) and remember it for
    :func:`base_dir`; return ``(directory, compose file there)`` when it is a directory above the file's."""
    _PROJECTS.pop(label, None)
    found = _project_above(label, _relative_env_files(root))
    if found is not None:
        _PROJECTS[label] = found[0]
    return found


def _relative_env_files(root: Any) -> list[str]:
    """The services' relative ``env_file:`` paths as written, those without a variable in them."""
    out: list[str] = []
    for _name, svc in _items(_get(root, "services")):
        node = _get(svc, "env_file")
        listed = _seq(node)
        for item in listed if listed is not None else ([node] if node is not None else []):
            path = _scalar(item) if _scalar(item) is not None else _scalar(_get(item, "path"))
            required = _scalar(_get(item, "required")) if _scalar(item) is None else None
            if path and "$" not in path and not path.startswith("/") and (required or "").lower() != "false":
                out.append(path)
    return out


def _project_above(label: str, paths: list[str]) -> tuple[str, str] | None:
    from argtrace.remote.host import HostError, current_host

    if not paths:
        return None
    host = current_host()

    def exists(path: str) -> bool:
        try:
            return host.stat(path).exists
        except (HostError, OSError):
            return False

    here = posixpath.dirname(label) or "."
    if any(exists(posixpath.join(here, p)) for p in paths):
        return None
    up = here
    for _ in range(_LEVELS):
        up = posixpath.normpath(posixpath.join(up, ".."))
        project_file = next((n for n in COMPOSE_NAMES if exists(posixpath.join(up, n))), None)
        if project_file is not None and all(exists(posixpath.join(up, p)) for p in paths):
            return up, project_file
        if up == "/":
            break
    return None
