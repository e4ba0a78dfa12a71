"""The environment of a container started by ``docker run``/``docker exec``, as the docker CLI builds it.

This module owns ``docker_environment``: every ``--env-file`` in order, then every ``-e``, a later
assignment of a name winning (docker/cli's ``opts.ReadKVEnvStrings(envFiles, env)``); a bare ``NAME`` copied
from the docker client's own environment, as the wrappers in front of docker leave it (TP006 when sudo reset
it); an env file opened where the script's ``cd``s took docker, refused (TP016) or holding quoted values
that docker keeps (TP017). It is a unit because it reads only the ``DockerRun``'s environment options and
the files they name; containers.py hands the result to the container's process.
"""

from __future__ import annotations

import re

from argtrace.layers.transport.context import TransportResult, _Context
from argtrace.layers.transport.docker_cli import DockerRun
from argtrace.layers.transport.envfiles import _ABSENT, EnvFile, parse_docker_env_file, read_env_file
from argtrace.layers.transport.words import _show
from argtrace.model import Evidence, Origin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell import ScriptSource
    from argtrace.layers.transport.wrapped import Wrapped


def docker_environment(
    at: str,
    run: DockerRun,
    ctx: _Context,
    result: TransportResult,
    source: ScriptSource,
    ssh_host: str | None,
    wrapped: Wrapped | None = None,
    moved: tuple[bool, str | None] = (False, None),
) -> tuple[dict[str, str | None], dict[str, Origin], list[EnvFile]]:
    """The container's environment as docker/cli builds it (``opts.ReadKVEnvStrings(envFiles, env)``):
    every ``--env-file`` in order, then every ``-e``; a later assignment of a name wins."""
    from argtrace.rules import transport as R

    script = source.data.decode("utf-8", "replace")

    def caller_value(name: str) -> object:
        if ssh_host is not None or re.search(
            rf"(?<![\w$]){re.escape(name)}=|\b(?:export|unset|declare|readonly|read)\b[^\n;]*\b{re.escape(name)}\b",
            script,
        ):
            return None  # the node's session, or the script sets it before docker runs: not known here
        return ctx.env[name] if name in ctx.env else _ABSENT

    def client_value(name: str) -> object:
        """A bare ``NAME`` (``-e NAME`` or a line of an env file): the docker client's own variable, as
        the wrappers in front of docker (``sudo``, ``env -i``) leave it."""
        found = caller_value(name)
        if wrapped is None:
            return found
        value, removed_by = wrapped.client_value(name, found, _ABSENT)
        if removed_by == "sudo":
            _sudo_dropped(at, name, result, reading[0].replace("{name}", name))
        return value

    reading = [""]  # how docker is told to copy a name: "-e NAME" or an env file's bare line

    env: dict[str, str | None] = {}
    origins: dict[str, Origin] = {}
    files: list[EnvFile] = []
    for written in run.env_files:
        # docker opens a relative path in its own working directory: the script's start directory (this
        # host's, or the --host session's), or where the script's `cd`s took it before docker ran
        path = _opened_path(written, moved) if ssh_host is None else written
        env_file = EnvFile(path or written, at)
        files.append(env_file)
        data: bytes | None = None
        opened = f" (opened as {_show(path)}, after the script's `cd`)" if path and path != written else ""
        if path is None:
            env_file.skipped = (
                "a relative path, and before docker runs the script changes to a directory not known "
                "statically"
            )
            continue
        if ssh_host is not None:
            upload = ctx.uploads.get((ssh_host, path))
            data = upload[0] if upload is not None else None
            if data is None:
                env_file.skipped = f"a file on {ssh_host}, not readable from here"
                continue
        else:
            data, env_file.problem, _missing = read_env_file(path)
        if data is not None:
            reading[0] = f"the bare `{{name}}` line of {_show(path)}"
            parse_docker_env_file(data, client_value, env_file)
        if env_file.problem is not None:
            result.findings.append(
                R.TP016.finding(
                    f"docker run --env-file {_show(written)}{opened}: {env_file.problem}; docker refuses to "
                    "create the container, so the server never starts",
                    at=at,
                    evidence=[Evidence("transport", at, f"--env-file {_show(written)}")],
                    severity=_env_file_severity(),
                )
            )
            continue
        _quoted_value_findings(at, env_file, result)
        for name, value in env_file.values.items():
            env[name] = value
            origins[name] = Origin(
                at=f"{path}:{env_file.lines[name]}",
                expansion="--env-file",
                known=value is not None,
                reason=None if value is not None else "the docker client's own variable, set at run time",
            )
    for name, value in run.env.items():
        if value is None:
            reading[0] = "`-e {name}`"
            found = client_value(name)
            if found is _ABSENT:
                continue  # `-e NAME` with NAME unset: docker leaves it out
            value = found if isinstance(found, str) else None
        env[name] = value
        origins.pop(name, None)
    for name, why in run.env_unknown.items():
        # `-e "NAME=$VALUE"` whose value the local shell did not know: set in the container, value unknown
        # (an `-e NAME=v` of the same name wins: docker keeps the last, and which came last is not kept here)
        if name in run.env:
            continue
        env[name] = None
        origins[name] = Origin(at=at, expansion=f"-e {name}=...", known=False, reason=why)
    result.keep_secrets(env)
    from argtrace.layers.transport.env_names import blank_env_names

    result.findings.extend(blank_env_names(at, run.env))  # TP033: `-e " NAME=v"`
    return env, origins, files


def _sudo_dropped(at: str, name: str, result: TransportResult, how: str) -> None:
    """TP006: ``sudo docker run -e NAME``: docker copies NAME from its own environment, which sudo reset."""
    from argtrace.layers.shell.wrapenv import sudo_defaults
    from argtrace.rules import transport as R

    message = (
        f"sudo starts docker with a reset environment (env_reset): {how} copies {name} from docker's "
        f"own environment, where sudo removed it, so the container gets no {name} "
        f"({sudo_defaults().basis})"
    )
    if any(f.code == "TP006" and f.at == at and f.message == message for f in result.findings):
        return
    result.findings.append(
        R.TP006.finding(
            message,
            at=at,
            evidence=[Evidence("transport", at, f"sudo docker run ... {how}")],
            fix=f"Pass it through sudo (`sudo --preserve-env={name} docker run ...`), or write it in a file "
            "docker reads (`--env-file FILE`).",
        )
    )


def _quoted_value_findings(at: str, env_file: EnvFile, result: TransportResult) -> None:
    """TP017: ``NAME="value"`` in a ``docker run --env-file``: docker keeps the quotes (compose would not)."""
    from argtrace.redact import is_secret_name
    from argtrace.rules import transport as R

    for name, value in env_file.values.items():
        if value is None or len(value) < 2 or value[0] not in "'\"":
            continue
        # `NAME="value" # note`: the closing quote is followed by more text, which docker keeps too (a shell
        # or compose's .env parser would stop at the quote)
        close = value.find(value[0], 1)
        if close < 0:
            continue
        inner, tail = value[1:close], value[close + 1 :]
        line_at = f"{env_file.path}:{env_file.lines[name]}"
        secret = is_secret_name(name)
        shown = "the value" if secret else f"{inner!r}"
        also = f" and the text after them (`{tail.strip()}`)" if tail.strip() and not secret else ""
        also = " and the text after them" if tail.strip() and secret else also
        result.findings.append(
            R.TP017.finding(
                f"{name} in {_show(env_file.path)} is quoted: `docker run --env-file` passes values as "
                f"written, so the server gets the quote characters{also} as part of {name}, not {shown}",
                at=line_at,
                evidence=[
                    Evidence("transport", line_at, f"{name}={'<redacted>' if secret else value}"),
                    Evidence("transport", at, f"--env-file {_show(env_file.path)}"),
                ],
                fix=f"Write {name}={'VALUE' if secret else inner} without quotes (docker "
                "takes everything after the first `=` literally, blanks included"
                + ("; a note goes on a line of its own, starting with `#`" if tail.strip() else "")
                + ").",
            )
        )


def _env_file_severity() -> Any:
    """Error where the check reads the machine's own files (``--host``); locally a missing file may just
    live on the GPU node, so a warning that says so."""
    from argtrace.remote.host import current_host

    return "error" if current_host().is_remote else "warning"


def _opened_path(path: str, moved: tuple[bool, str | None]) -> str | None:
    """The file docker opens for ``--env-file path``: ``path`` itself when it is absolute or the script is
    still in its start directory; else joined to the directory its `cd`s went to (absolute: the shell
    layer starts from the absolute start directory); None when that directory is not known."""
    import posixpath

    went, cwd = moved
    if path.startswith("/") or not went:
        return path
    if cwd is None:
        return None
    return posixpath.normpath(posixpath.join(cwd, path))
