"""A compose file's top-level ``include:`` (Compose Specification, "Include"; docker compose 2.20 and
later): each entry names another compose file, loaded as a compose application of its own and merged into
this one. This module owns finding those files and handing each to the compose reader.

The spec's forms: a list of paths (``- compose-vllm.yml``), or of mappings whose ``path:`` is one path or a
list of them (merged together), with an optional ``project_directory:`` (relative paths of the included
file are resolved from it; by default from the included file's own directory) and ``env_file:`` (by default
the ``.env`` of that project directory). A relative path is the including file's project directory's. An
included file that is not there stops ``docker compose`` before any service
starts: TP105 says so. A remote include (``oci://``, ``git@``) is not read.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping

from argtrace.layers.transport.context import TransportResult
from argtrace.layers.transport.yamlnodes import _get, _items, _line, _scalar, _seq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# an included path that names a compose file (`compose-vllm.yml`, `docker-compose.gpu.yaml`, `x/compose.yaml`)
_COMPOSE_PATH = re.compile(
    r"(?m)^[ \t]*-?[ \t]*(?:path:[ \t]*)?['\"]?[^\s'\"#]*compose[^\s'\"#]*\.ya?ml['\"]?\s*$"
)
# at most this many files are read through include: (an include may include again)
_MAX_FILES = 32


def is_including_compose(text: str) -> bool:
    """A compose file that is only a top-level ``include:`` of other compose files (no ``services:`` of its
    own): the key, and an entry that names a compose file."""
    return re.search(r"(?m)^include:\s*(#.*)?$", text) is not None and _COMPOSE_PATH.search(text) is not None


def _entries(label: str, root: Any, base: str) -> list[tuple[str, list[str], str, str | None]]:
    """``(where, paths, project directory, env file or None for its .env)`` of each ``include:`` entry."""
    out: list[tuple[str, list[str], str, str | None]] = []
    for item in _seq(_get(root, "include")) or []:
        where = _line(label, item)
        if _scalar(item) is not None:
            paths = [_scalar(item) or ""]
            project, env_file = None, None
        else:
            node = _get(item, "path")
            paths = [_scalar(p) or "" for p in (_seq(node) or ([node] if node is not None else []))]
            project = _scalar(_get(item, "project_directory"))
            env_file = _scalar(_get(item, "env_file"))
        paths = [posixpath.normpath(posixpath.join(base, p)) for p in paths if p]
        if not paths:
            continue
        directory = (
            posixpath.normpath(posixpath.join(base, project)) if project else posixpath.dirname(paths[0])
        )
        env = posixpath.normpath(posixpath.join(base, env_file)) if env_file else None
        out.append((where, paths, directory, env))
    return out


def follow_includes(
    label: str,
    root: Any,
    env: Mapping[str, str],
    base: str,
    read_services: Callable[[str, Any, Mapping[str, str], TransportResult], None],
    result: TransportResult,
    _seen: set[str] | None = None,
) -> None:
    """Read the services of every file ``label``'s ``include:`` names, each with its own project directory's
    ``.env`` (``env`` first: the variables argtrace was given win, as compose's own environment does);
    ``read_services`` reads one file's services (compose.py's reader)."""
    from argtrace.layers.transport.envfiles import read_dotenv, read_env_file
    from argtrace.layers.transport.yamlnodes import _load_yaml_nodes
    from argtrace.model import Evidence, UsageError
    from argtrace.rules.carriers import TP105

    seen = _seen if _seen is not None else {label}
    # each env file read once, and only for an entry whose file is read: an include: of 20,000 entries, each
    # naming a 20,000-line env file, read that file once per entry before looking at the entry's path
    # (more than 60 s; session 30, reproducer includes-many-entries-one-env-file)
    dotenvs: dict[str, dict[str, str]] = {}
    for where, paths, directory, env_file in _entries(label, root, base):
        if len(seen) >= _MAX_FILES:
            break
        for path in paths:
            if "://" in path or path.startswith("git@") or path in seen or len(seen) >= _MAX_FILES:
                continue
            seen.add(path)
            data, problem, _missing = read_env_file(path)
            if data is None:
                result.findings.append(
                    TP105.finding(
                        f"`include:` names {path} ({problem}): docker compose stops before it starts any "
                        "service",
                        at=where,
                        evidence=[Evidence("transport", where, path)],
                    )
                )
                continue
            try:
                documents = _load_yaml_nodes(data, path)
            except UsageError:
                continue
            included = documents.nodes[0] if documents.nodes else None
            env_path = env_file or posixpath.join(directory, ".env")
            if env_path not in dotenvs:
                dotenvs[env_path] = read_dotenv(env_path, env)
            merged = {**dotenvs[env_path], **env}
            if _items(_get(included, "services")):
                read_services(path, included, merged, result)
            follow_includes(path, included, env, directory, read_services, result, seen)
