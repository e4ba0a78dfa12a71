"""Which framework version the server would run: find its interpreter, then read its site-packages.

The interpreter is ``--python`` when given, else the server's interpreter word (``python3``,
``/opt/venv/bin/python``) resolved on the PATH the server process would get, else (console scripts such as
``vllm serve``) the ``#!`` line of the script found on that PATH. The version is read from the
``*.dist-info``/``*.egg-info`` records in the directories that interpreter imports from, found from its
files alone (``frameworks/site_packages.py``: ``pyvenv.cfg``, the prefix's ``lib/pythonX.Y``, pyenv's
version files). Nothing a launch script names is ever executed, not even to ask its version: a
``python3`` that is a shell script, or whose site-packages cannot be told from its files, gives an
unknown version with the reason.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from argtrace import localfs
from argtrace.frameworks import site_packages
from argtrace.model import ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.remote.host import Host

# pip/distlib's console-script header for an interpreter path too long for a ``#!`` line: ``#!/bin/sh``,
# then a line ``'''exec' "/long/path/python" "$0" "$@"`` (read here, never run).
_SH_EXEC = re.compile(rb"^'''exec' \"?(?P<python>[^\"\n]+?)\"? \"\$0\" \"\$@\"", re.M)


@dataclass(frozen=True)
class InstalledVersion:
    """The framework release installed for an interpreter, read from its package metadata, or why it could
    not be read."""

    version: str | None
    interpreter: str | None
    how: str | None = None  # "dist-info" or "egg-info" (the record the version was read from)
    where: str | None = None  # the .dist-info / .egg-info path
    reason: str | None = None  # why the version is unknown, when it is


def _server_env(server: ServerCommand | None) -> dict[str, str]:
    env: dict[str, str] = {}
    if server is not None:
        for key, value in server.env.items():
            if value.value is not None:
                env[key] = value.value
    return env


def which(name: str, path: str | None, cwd: str | None = None) -> str | None:
    """``name`` resolved like the shell does: a word with a slash is a path, else searched on PATH.
    Under ``argtrace --host`` on the node (``cwd`` then defaults to the node's session directory).

    Within :func:`remembered` (one command: a check and its fix re-checks) the answer for the same name,
    PATH and directory is read from the files once: the release decision and the process layer of the check
    and of each re-check ask for the server's interpreter (four lookups of eight files each for the shipped
    example, issue 18). Not while a re-check reads an edited file (``overlay``)."""
    host = _remote_host()
    if host is not None:
        return _which_on(host, name, path, cwd)
    memory = localfs.LOOKUPS.get()
    from argtrace import overlay

    if memory is None or overlay.active():
        return _which_here(name, path, cwd)
    # a relative name, or an empty PATH entry, is looked up in the working directory: part of the key
    key = ("server", name, path, cwd or os.getcwd())
    if key not in memory:
        memory[key] = _which_here(name, path, cwd)
    return memory[key]


def _which_here(name: str, path: str | None, cwd: str | None) -> str | None:
    """:func:`which` with this machine's files."""
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
    from argtrace.remote.host import current_host

    host = current_host()
    return host if host.is_remote else None


def _which_on(host: Host, name: str, path: str | None, cwd: str | None) -> str | None:
    """:func:`which` with the node's files: a regular file with an execute bit."""
    from argtrace.remote.host import HostError

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


def _script_head(script: str) -> bytes | None:
    host = _remote_host()
    if host is not None:  # argtrace --host: the node's script
        from argtrace.remote.host import HostError

        try:
            return host.read_bytes(script, limit=1024)
        except HostError:
            return None
    if not localfs.is_file(script):  # a FIFO would block the read forever
        return None
    try:
        with open(script, "rb") as fh:
            return fh.read(1024)
    except OSError:
        return None


def shebang_words(script: str) -> list[str]:
    """The interpreter and its options that a console script names, read from its first lines (never run):
    ``#!/opt/venv/bin/python3 -s``, ``#!/usr/bin/env python3`` (``env``'s options and ``VAR=value`` words
    skipped), or pip's ``#!/bin/sh`` + ``'''exec' "/long/path/python"`` header for long paths."""
    head = _script_head(script)
    if head is None or not head.startswith(b"#!"):
        return []
    first = head.split(b"\n", 1)[0]
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return []
    if words[0] in ("/bin/sh", "/usr/bin/sh"):
        m = _SH_EXEC.search(head)
        if m:
            return [m.group("python").decode("utf-8", "replace")]
    if words[0].endswith("/env"):
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return rest
    return words


def shebang_interpreter(script: str) -> str | None:
    """The interpreter named in a console script's ``#!`` line (``#!/usr/bin/env python3`` too)."""
    words = shebang_words(script)
    return words[0] if words else None


def _console_script(server: ServerCommand, path: str, cwd: str | None) -> str | None:
    # A console script (``vllm serve``): the word before the subcommand.
    index = server.server_args_start - (
        2 if " " in server.entrypoint else 1
    )  # `vllm serve`, `trl vllm-serve`
    if 0 <= index < len(server.argv) and server.argv[index].text:
        return which(server.argv[index].text or "", path, cwd)
    return None


def server_interpreter(server: ServerCommand | None, python: str | None = None) -> str | None:
    """The path of the Python interpreter the server process would run, when it can be found here."""
    env = _server_env(server)
    path = env.get("PATH", os.environ.get("PATH", ""))
    cwd = server.cwd if server is not None else None
    if python:
        return which(python, path, cwd) or (python if os.path.exists(python) else None)
    if server is None:
        return None
    if server.runner is not None:
        return None  # uv run / conda run -n ...: the environment's interpreter, not the one PATH finds here
    if server.interpreter:
        return which(server.interpreter, path, cwd)
    script = _console_script(server, path, cwd)
    if script:
        interp = shebang_interpreter(script)
        if interp:
            return which(interp, path, cwd) if "/" not in interp else interp
    return None


def _server_flags(server: ServerCommand | None, python: str | None) -> site_packages.Flags:
    """The interpreter options of the launch (``python3 -s -m ...``, or a console script's ``#!`` line)."""
    if server is None or python:
        return site_packages.Flags()
    words = [w.text or "" for w in server.argv]
    if server.interpreter:
        if server.interpreter in words:
            start = words.index(server.interpreter) + 1
            return site_packages.interpreter_flags(words[start : server.server_args_start])
        return site_packages.Flags()
    env = _server_env(server)
    script = _console_script(server, env.get("PATH", os.environ.get("PATH", "")), server.cwd)
    return site_packages.interpreter_flags(shebang_words(script)[1:]) if script else site_packages.Flags()


class _ReadEnv(Mapping[str, str]):
    """The launch's environment as a lookup reads it: the names it asked for, with their values (None: not
    set), or ``everything`` when it went through all of them."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env
        self.read: dict[str, str | None] = {}
        self.everything = False

    def __getitem__(self, key: str) -> str:
        self.read[key] = self._env.get(key)
        return self._env[key]

    def get(self, key: str, default: Any = None) -> Any:
        self.read[key] = self._env.get(key)
        return self._env.get(key, default)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.read[key] = self._env.get(key)
        return key in self._env

    def __iter__(self) -> Iterator[str]:
        self.everything = True
        return iter(self._env)

    def __len__(self) -> int:
        self.everything = True
        return len(self._env)


@dataclass(frozen=True)
class _Remembered:
    """A lookup's answer and the environment it read: the same answer holds where those names have the same
    values (the whole environment, when it read all of it)."""

    read: Mapping[str, str | None] | None  # None: every name
    env: Mapping[str, str]
    found: site_packages.Lookup

    def holds_for(self, env: Mapping[str, str]) -> bool:
        if self.read is None:
            return dict(env) == dict(self.env)
        return all(env.get(name) == value for name, value in self.read.items())


# The lookups of one command (``remembered``): its check and each fix re-check ask the same interpreter for
# the same framework (issue 18: a third of a re-check's release decision); a re-check's environment differs
# only in names the lookup does not read (SHLVL, the edited variable).
_REMEMBERED: ContextVar[dict[tuple[Any, ...], list[_Remembered]] | None] = ContextVar(
    "argtrace_installed_lookups", default=None
)


@contextlib.contextmanager
def remembered() -> Iterator[None]:
    """Within the block (one command: a check and its fix re-checks), a lookup of the same framework for the
    same interpreter, working directory, interpreter options and host, in an environment where every name
    the first lookup read has the same value, reads the files once. The files are taken not to change
    within one command, as everywhere else in it; a lookup while a re-check reads an edited file
    (``overlay``) is neither remembered nor answered from memory."""
    if _REMEMBERED.get() is not None:
        yield
        return
    token, lookups = _REMEMBERED.set({}), localfs.LOOKUPS.set({})  # and the PATH lookups (localfs.py)
    try:
        yield
    finally:
        localfs.LOOKUPS.reset(lookups)
        _REMEMBERED.reset(token)


def _lookup(
    interpreter: str, framework: str, env: dict[str, str], cwd: str | None, flags: site_packages.Flags
) -> site_packages.Lookup:
    from argtrace import overlay
    from argtrace.remote.host import current_host

    memory = _REMEMBERED.get()
    if memory is None or overlay.active():
        return site_packages.installed_version(interpreter, framework, env, cwd, flags=flags)
    kept = memory.setdefault((interpreter, framework, cwd, flags, id(current_host())), [])
    for entry in kept:
        if entry.holds_for(env):
            return entry.found
    reading = _ReadEnv(env)
    found = site_packages.installed_version(interpreter, framework, reading, cwd, flags=flags)
    kept.append(_Remembered(None if reading.everything else dict(reading.read), dict(env), found))
    return found


def installed_framework_version(
    framework: str, *, server: ServerCommand | None = None, python: str | None = None
) -> InstalledVersion:
    """The framework version installed for the server's interpreter, or ``version=None`` with the reason.

    Read from the interpreter's files only (:func:`argtrace.frameworks.site_packages.installed_version`);
    the launch's environment is data (``PYTHONPATH``, ``PYENV_VERSION``, ``HOME``), never handed to a
    process. Under ``argtrace --host`` the node's files are read by the collector there."""
    interpreter = server_interpreter(server, python)
    if interpreter is None:
        return InstalledVersion(None, None)
    env = _server_env(server)
    found = _lookup(
        interpreter, framework, env, server.cwd if server is not None else None, _server_flags(server, python)
    )
    if found.distribution is not None:
        return InstalledVersion(
            found.version, found.interpreter, found.distribution.kind, where=found.distribution.path
        )
    return InstalledVersion(None, found.interpreter, reason=found.reason)
