"""A compose service that runs a script its own file bind-mounts from the project: ``volumes:
- ./launch_server.sh:/app/launch_server.sh`` with ``entrypoint: ["/bin/bash", "/app/launch_server.sh"]``
(NVIDIA's DGX playbooks' txt2kg vLLM service). The container's process is a shell running that file, and
the file is the project's: its text is read as the script the container's shell runs, with the service's
environment and the words after it as ``$1...``, as for a ``bash -c`` string (containers.py).

This module owns finding that file through the service's bind mounts and reading it; what the shell then
runs is containers.py's.

Compose's bind mounts (Compose Specification, "volumes"): the short syntax ``SOURCE:TARGET[:MODE]``, where a
SOURCE that starts with ``.`` or ``/`` is a host path (a relative one is the project directory's) and
anything else a named volume; the long syntax ``{type: bind, source: S, target: T}``. A mounted directory
serves the files under it. ``${VAR}`` in a volume is interpolated as anywhere in the file.

What it does not read: a file a named volume or the image holds, a script the container runs without a
shell in front of it and without a ``#!`` line naming one. ``docker run -v HOST:CTR`` binds are read the
same way (``script_run``), the host file being the disk's or what the launch copied to the node.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence

from argtrace.layers.transport.command_names import _SHELLS, _basename
from argtrace.layers.transport.compose_project import base_dir
from argtrace.layers.transport.envfiles import compose_interpolate
from argtrace.layers.transport.yamlnodes import _get, _scalar, _seq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# a launch script, not a data file: larger ones are not read
_MAX_SCRIPT_BYTES = 256 * 1024


def _bind_mounts(label: str, svc: Any, env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The service's bind mounts as ``(host path, container path)`` (module docstring)."""
    mounts: list[tuple[str, str]] = []
    for item in _seq(_get(svc, "volumes")) or []:
        text = _scalar(item)
        if text is not None:
            text, _unset = compose_interpolate(text, env)
            source, _, rest = text.partition(":")
            target = rest.split(":", 1)[0]
        elif (_scalar(_get(item, "type")) or "") == "bind":
            source = compose_interpolate(_scalar(_get(item, "source")) or "", env)[0]
            target = compose_interpolate(_scalar(_get(item, "target")) or "", env)[0]
        else:
            continue
        if not source.startswith((".", "/")) or not target.startswith("/"):
            continue  # a named volume, or no target
        host = source if source.startswith("/") else posixpath.join(base_dir(label), source)
        mounts.append((posixpath.normpath(host), posixpath.normpath(target)))
    return mounts


def _host_file(path: str, mounts: Sequence[tuple[str, str]]) -> str | None:
    """The host file a container path is, through the last mount over it (a later mount shadows)."""
    for host, target in reversed(mounts):
        if path == target:
            return host
        if path.startswith(target.rstrip("/") + "/"):
            return posixpath.normpath(posixpath.join(host, path[len(target.rstrip("/")) + 1 :]))
    return None


def _read(path: str) -> bytes | None:
    from argtrace.layers.shell import hostfs

    try:
        if not hostfs.isfile(path) or hostfs.getsize(path) > _MAX_SCRIPT_BYTES:
            return None
        return hostfs.read(path, _MAX_SCRIPT_BYTES)
    except OSError:
        return None


def mounted_script(
    label: str, svc: Any, argv: Sequence[str], env: Mapping[str, str]
) -> tuple[list[str], dict[str, str]] | None:
    """The container's argv with the mounted script it runs as a shell's ``-c`` string (``[bash, -c, TEXT,
    /app/launch.sh, ARGS...]``) and where in the host file that string stands (containers.py's
    ``script_at``: ``FILE:LINE:INDENT``); None when the service runs no script of the project (module
    docstring)."""
    if not argv or not argv[0]:
        return None
    mounts = _bind_mounts(label, svc, env)
    return script_run(argv, mounts, _read) if mounts else None


def script_run(
    argv: Sequence[str], mounts: Sequence[tuple[str, str]], read: Callable[[str], bytes | None]
) -> tuple[list[str], dict[str, str]] | None:
    """``argv`` run as ``[bash, -c, TEXT, SCRIPT, ARGS...]`` when it runs a script (by a shell, or by its
    ``#!`` line) that a bind mount brings from the host, with ``read`` giving the host file's bytes (the
    disk's, or what the launch copied to the node); None otherwise. Also for ``docker run -v
    /tmp/serve.sh:/serve.sh --entrypoint bash IMAGE /serve.sh`` (containers.py)."""
    if not argv or not argv[0]:
        return None
    shell, script, rest = argv[0], argv[0], list(argv[1:])
    if _basename(argv[0]) in _SHELLS:
        if len(argv) < 2 or not argv[1].startswith("/"):
            return None  # `bash -c ...`, `bash -lc ...`, or a relative path (the image's working directory)
        script, rest = argv[1], list(argv[2:])
    elif not argv[0].startswith("/"):
        return None
    host = _host_file(script, mounts)
    data = read(host) if host is not None else None
    if host is None or data is None:
        return None
    text = data.decode("utf-8", "surrogateescape")
    if shell == script:
        # run as a program: its `#!` line names the shell (`#!/bin/bash`, `#!/usr/bin/env bash`)
        first = text.split("\n", 1)[0]
        named = first[2:].split() if first.startswith("#!") else []
        interpreter = named[-1] if named and _basename(named[0]) == "env" else (named[0] if named else "")
        if _basename(interpreter) not in _SHELLS:
            return None
        shell = interpreter
    return [shell, "-c", text, script, *rest], {text: f"{host}:1:0"}
