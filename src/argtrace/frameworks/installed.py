"""Which framework version the server would run: find its interpreter, then ask it (or its site-packages).

The interpreter is ``--python`` when given, else the server's interpreter word (``python3``,
``/opt/venv/bin/python``) resolved on the PATH the server process would get, else (console scripts such as
``vllm serve``) the ``#!`` line of the script found on that PATH. The version is read from a
``<name>-<version>.dist-info`` directory next to the interpreter when there is one, else by asking the
interpreter ``importlib.metadata.version(name)`` in a subprocess with a short timeout. Nothing of the
launch script is ever executed.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from argtrace import localfs
from argtrace.model import Finding, ServerCommand

if TYPE_CHECKING:
    from argtrace.transport.host import Host

TIMEOUT_SECONDS = 5.0
_DIST_INFO = re.compile(r"^(?P<name>[A-Za-z0-9_.\-]+?)-(?P<version>[0-9][^-]*)\.(?:dist-info|egg-info)$")


@dataclass(frozen=True)
class InstalledVersion:
    version: str | None
    interpreter: str | None
    how: str | None = None  # "dist-info" or "importlib.metadata"
    findings: tuple[Finding, ...] = field(default=())


def _server_env(server: ServerCommand | None) -> dict[str, str]:
    env: dict[str, str] = {}
    if server is not None:
        for key, value in server.env.items():
            if value.value is not None:
                env[key] = value.value
    return env


def which(name: str, path: str | None, cwd: str | None = None) -> str | None:
    """``name`` resolved like the shell does: a word with a slash is a path, else searched on PATH.
    Under ``argtrace --host`` on the node (``cwd`` then defaults to the node's session directory)."""
    host = _remote_host()
    if host is not None:
        return _which_on(host, name, path, cwd)
    if "/" in name:
        candidate = Path(name) if os.path.isabs(name) else Path(cwd or os.getcwd()) / name
        return str(candidate) if localfs.is_file(candidate) and os.access(candidate, os.X_OK) else None
    for directory in (path or "").split(os.pathsep):
        if not directory:
            directory = cwd or os.getcwd()
        candidate = Path(directory) / name
        if localfs.is_file(candidate) and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _remote_host() -> Host | None:
    from argtrace.transport.host import current_host

    host = current_host()
    return host if host.is_remote else None


def _which_on(host: Host, name: str, path: str | None, cwd: str | None) -> str | None:
    """:func:`which` with the node's files: a regular file with an execute bit."""
    from argtrace.transport.host import HostError

    def executable(candidate: str) -> bool:
        try:
            st = host.stat(candidate)
        except HostError:
            return False
        return st.is_file and bool((st.mode or 0) & 0o111)

    base = cwd or host.info().cwd or "/"
    if "/" in name:
        candidate = name if name.startswith("/") else f"{base.rstrip('/')}/{name}"
        return candidate if executable(candidate) else None
    for directory in (path or "").split(os.pathsep):
        candidate = f"{(directory or base).rstrip('/')}/{name}"
        if executable(candidate):
            return candidate
    return None


def shebang_interpreter(script: str) -> str | None:
    """The interpreter named in a console script's ``#!`` line (``#!/usr/bin/env python3`` too)."""
    host = _remote_host()
    if host is not None:  # argtrace --host: the node's script
        from argtrace.transport.host import HostError

        try:
            first = host.read_bytes(script, limit=512).split(b"\n", 1)[0]
        except HostError:
            return None
    else:
        try:
            with open(script, "rb") as fh:
                first = fh.readline(512)
        except OSError:
            return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if words[0].endswith("/env") and len(words) > 1:
        return words[-1]
    return words[0]


def server_interpreter(server: ServerCommand | None, python: str | None = None) -> str | None:
    """The path of the Python interpreter the server process would run, when it can be found here."""
    env = _server_env(server)
    path = env.get("PATH", os.environ.get("PATH", ""))
    cwd = server.cwd if server is not None else None
    if python:
        return which(python, path, cwd) or (python if os.path.exists(python) else None)
    if server is None:
        return None
    if server.interpreter:
        return which(server.interpreter, path, cwd)
    # A console script (``vllm serve``): the word before the subcommand.
    index = server.server_args_start - (2 if server.entrypoint.endswith(" serve") else 1)
    if 0 <= index < len(server.argv) and server.argv[index].text:
        script = which(server.argv[index].text or "", path, cwd)
        if script:
            interp = shebang_interpreter(script)
            if interp:
                return which(interp, path, cwd) if "/" not in interp else interp
    return None


def _site_dirs(interpreter: str, env: Mapping[str, str]) -> tuple[list[Path], bool]:
    """Where ``interpreter`` imports packages from, found without running it, and whether that list is
    complete (a real binary whose prefix we know: a virtual environment, conda, or a system prefix).

    Scanned: the venv's own site-packages (plus the base's when ``include-system-site-packages``), the
    prefix's ``lib/python3*/{site,dist}-packages``, the user site of ``HOME`` and ``PYTHONPATH``.
    """
    sites: list[Path] = [Path(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    root = Path(interpreter).parent.parent  # the venv root, when the interpreter is a venv's symlink
    cfg = root / "pyvenv.cfg"
    prefixes = [root]
    include_system = True
    if localfs.is_file(cfg):
        try:
            text = cfg.read_text(errors="replace")
        except OSError:
            text = ""
        include_system = bool(re.search(r"include-system-site-packages\s*=\s*true", text, re.I))
    if include_system:
        real_root = Path(os.path.realpath(interpreter)).parent.parent
        if real_root not in prefixes:
            prefixes.append(real_root)
    for prefix in prefixes:
        for pattern in (
            "lib/python3*/site-packages",
            "lib/python3*/dist-packages",
            "lib/python3/dist-packages",
        ):
            sites.extend(sorted(prefix.glob(pattern)))
    home = env.get("HOME")
    if home and include_system:
        sites.extend(sorted(Path(home).glob(".local/lib/python3*/site-packages")))
    complete = _is_binary(os.path.realpath(interpreter))
    return sites, complete


def _is_binary(path: str) -> bool:
    if not localfs.is_file(path):  # a FIFO would block the read below forever
        return False
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"\x7fELF"
    except OSError:
        return False


def _pyenv_target(shim: str, env: Mapping[str, str], cwd: str | None) -> str | None:
    """The interpreter a pyenv shim runs: ``PYENV_VERSION``, else ``.python-version`` up from the cwd, else
    ``$PYENV_ROOT/version`` (first entry)."""
    path = Path(shim)
    if path.parent.name != "shims":
        return None
    root = Path(env.get("PYENV_ROOT") or path.parent.parent)
    version = env.get("PYENV_VERSION")
    if not version:
        here = Path(cwd or os.getcwd())
        for directory in (here, *here.parents):
            candidate = directory / ".python-version"
            if localfs.is_file(candidate):
                version = (
                    candidate.read_text(errors="replace").split()[0]
                    if candidate.read_text().split()
                    else None
                )
                break
    if not version:
        try:
            version_file = root / "version"
            words = version_file.read_text(errors="replace").split() if localfs.is_file(version_file) else []
        except OSError:
            words = []
        version = words[0] if words else None
    if not version or version == "system":
        return None
    target = root / "versions" / version / "bin" / path.name
    return str(target) if localfs.exists(target) else None


def dist_info_version(site_dirs: list[Path], name: str) -> str | None:
    wanted = name.lower().replace("-", "_")
    for site in site_dirs:
        try:
            entries = os.listdir(site)
        except OSError:
            continue
        for entry in entries:
            m = _DIST_INFO.match(entry)
            if m and m.group("name").lower().replace("-", "_").replace(".", "_") == wanted:
                return m.group("version")
    return None


def _same_interpreter(interpreter: str) -> bool:
    try:
        return os.path.samefile(interpreter, sys.executable)
    except OSError:
        return False


def _in_process_version(name: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=16)
def ask_interpreter_version(
    interpreter: str, name: str, pythonpath: str | None, cwd: str | None = None
) -> str | None:
    """The version of distribution ``name`` that ``interpreter`` imports (run from ``cwd``), or None."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    code = f"import importlib.metadata as m\ntry:\n print(m.version({name!r}))\nexcept Exception:\n pass\n"
    try:
        proc = subprocess.run(
            [interpreter, "-c", code],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            env=env,
            stdin=subprocess.DEVNULL,
            cwd=cwd if cwd and os.path.isdir(cwd) else None,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = proc.stdout.strip().splitlines()
    return out[-1].strip() if proc.returncode == 0 and out and out[-1].strip() else None


def installed_framework_version(
    framework: str, *, server: ServerCommand | None = None, python: str | None = None
) -> InstalledVersion:
    """The framework version installed for the server's interpreter, or ``version=None``.

    Read from ``dist-info`` directories where the interpreter's package directories can be known without
    running it; asking the interpreter itself (a subprocess with a short timeout) is the last resort, for
    wrapper scripts argtrace cannot see through."""
    interpreter = server_interpreter(server, python)
    if interpreter is None:
        return InstalledVersion(None, None)
    host = _remote_host()
    if host is not None:  # argtrace --host: ask the interpreter on the node
        from argtrace.transport.processes import framework_version_on

        version = framework_version_on(host, interpreter, framework, _server_env(server))
        return InstalledVersion(version, interpreter, "importlib.metadata" if version else None)
    env: Mapping[str, str] = {"HOME": os.environ.get("HOME", ""), **_server_env(server)}
    target = _pyenv_target(interpreter, env, server.cwd if server is not None else None)
    if target is not None:
        interpreter = target
    sites, complete = _site_dirs(interpreter, env)
    version = dist_info_version(sites, framework)
    if version:
        return InstalledVersion(version, interpreter, "dist-info")
    if complete:
        return InstalledVersion(None, interpreter)
    if _same_interpreter(interpreter) and not env.get("PYTHONPATH"):
        version = _in_process_version(framework)
        return InstalledVersion(version, interpreter, "importlib.metadata" if version else None)
    version = ask_interpreter_version(interpreter, framework, env.get("PYTHONPATH"))
    if version:
        return InstalledVersion(version, interpreter, "importlib.metadata")
    return InstalledVersion(None, interpreter)
