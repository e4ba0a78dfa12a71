"""``argtrace check vllm.container``: a Podman quadlet as the launch carrier.

This module owns reading a ``.container`` file into the server start the unit quadlet generates would
make, following podman-systemd.unit(5) (https://docs.podman.io/en/latest/markdown/podman-systemd.unit.5.html)
and systemd's own rules for the rest:

* the file is a systemd unit (systemd.syntax(7)): :mod:`.systemd_syntax` reads it; ``[Service]`` and the
  other sections pass to systemd untouched, so the service's own environment is ``[Service]``'s
  ``Environment=``/``EnvironmentFile=`` as for any unit (:func:`.systemd._environment`), plus the
  ``PODMAN_SYSTEMD_UNIT=%n`` quadlet adds;
* ``[Container]`` becomes ``ExecStart=/usr/bin/podman run ... IMAGE EXEC...``: ``Image=`` the image,
  ``Exec=`` "additional arguments for the container; this has exactly the same effect as passing more
  arguments after a ``podman run <image> <arguments>`` invocation. The format is the same as for systemd
  command lines" (the last ``Exec=`` counts), ``Entrypoint=`` overrides the image's, ``Environment=`` sets a
  variable "in the container" (``--env``, systemd's ``Environment=`` quoting), ``EnvironmentFile=`` "a
  line-delimited file to set environment variables in the container" (``--env-file``; a relative path is
  relative to the unit file's directory), ``EnvironmentHost=`` passes the service's environment in,
  ``Secret=NAME,type=env,target=VAR`` a secret as VAR, ``PodmanArgs=`` more ``podman run`` options;
* systemd then substitutes ``$NAME``/``${NAME}`` in that ``ExecStart=`` with the **service's** environment
  (systemd.service(5), "Command lines"), never the container's: a variable set only by ``[Container]``
  ``Environment=``/``EnvironmentFile=`` is unset there, and ``${NAME}`` in ``Exec=`` becomes ``""``
  (podman#25047: "Referenced but unset environment variable evaluates to an empty string"). TP064 says so.

The container's process is then what a ``podman run`` with those options makes of the image
(:mod:`.containers`: the image's entrypoint, TP010, a ``sh -c`` through the shell layer).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import replace

from argtrace.layers.transport import systemd_syntax as S
from argtrace.layers.transport.command_names import _SHELLS
from argtrace.layers.transport.context import TransportResult, opening_line
from argtrace.layers.transport.words import _show
from argtrace.model import Evidence, Origin, VanishedWord, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell import ScriptSource


def is_quadlet(data: bytes) -> bool:
    """A quadlet ``.container`` file: a unit (the first line that is neither blank nor a comment is a
    section header) with a ``[Container]`` section that names an ``Image=``."""
    opened = opening_line(data)
    if opened is None or not (opened[1].startswith("[") and opened[1].endswith("]")):
        return False
    assignments, _ignored = S.read_unit(opened[0])
    return any(a.section == "Container" and a.key == "Image" for a in assignments)


def analyze_quadlet(
    source: ScriptSource, *, manager_env: Mapping[str, str], release: str | None = None
) -> TransportResult:
    """The server start of a quadlet ``.container`` file. ``manager_env``: ``--env``, the manager's own
    environment (as for a service unit)."""
    from argtrace.layers.transport import systemd as U
    from argtrace.layers.transport.containers import (
        _container_servers,
        _entrypoint_findings,
        _image_path,
        _tag_image,
        container_argv,
    )

    label = source.label
    base = posixpath.basename(label)
    # quadlet names the service after the file: NAME.container -> NAME.service
    unit = S.UnitName(base.rsplit(".", 1)[0] + ".service" if base.endswith(".container") else base)
    result = TransportResult()
    assignments, _ignored = S.read_unit(source.data.decode("utf-8", "replace"))
    svc = U._service(assignments)
    svc.environment.append(("PODMAN_SYSTEMD_UNIT=%n", 0))
    service_env, _origins, service_files = U._environment(label, unit, svc, manager_env, result)
    container = [a for a in assignments if a.section == "Container"]
    image = _last(container, "Image")
    exec_line = next((a for a in reversed(container) if a.key == "Exec"), None)
    entry = next((a for a in reversed(container) if a.key == "Entrypoint"), None)
    hop: dict[str, Any] = {
        "at": label,
        "via": "podman quadlet",
        "unit": unit.name,
        "image": image,
        "service_environment": sorted(k for k in service_env if k not in manager_env),
    }
    if service_files:
        hop["service_env_files"] = service_files
    result.hops.append(hop)
    if image is None:
        return result
    env, origins, container_vars, files = _container_env(label, container, unit, service_env)
    hop["container_environment"] = sorted(env)
    if files:
        hop["env_files"] = files
    at = f"{label}:{exec_line.line}" if exec_line is not None else f"{label}:{_line(container, 'Image')}"
    words: list[str] = []
    if exec_line is not None:
        try:
            raw, _unknown_escapes = S.split_words(exec_line.value)
            words = [S.resolve_specifiers(w, unit, svc.user).text for w in raw]
        except S.SyntaxProblem as exc:
            from argtrace.rules import carriers as R

            result.findings.append(
                R.TP060.finding(
                    f"systemd cannot read the `ExecStart=` quadlet makes of this `Exec=` ({exc}): the unit "
                    "has a fatal error and the container never starts",
                    at=at,
                )
            )
            return result
    expanded = S.expand_argv(tuple(words), service_env)
    hop["exec"] = expanded.argv
    entrypoint: list[str] | None = None
    if entry is not None:
        entrypoint = _entrypoint(entry.value)
    final, _image_ep = container_argv(image, entrypoint, expanded.argv, release)
    # `sh -c "... $MODEL"`: systemd leaves a `$NAME` inside a word, and the container's shell expands it
    shell_c = len(final) > 2 and final[0].rsplit("/", 1)[-1] in _SHELLS and "-c" in final[1:3]
    _substitution_findings(at, words, expanded, container_vars, result, shell_c=shell_c)
    hop["argv"] = final
    assumed = _entrypoint_findings(at, image, entrypoint, expanded.argv, result, how="Exec=", release=release)
    shift = len(final) - len(expanded.argv)
    vanished = tuple(
        VanishedWord(index=i + shift, expansion=word, at=at, state="unset", name=name)
        for i, word, name in expanded.vanished
    )
    before = len(result.servers)
    full_env, full_origins = _image_path(env, origins, at, image)
    _container_servers(at, final, full_env, full_origins, f"quadlet {base}", result, vanished)
    _tag_image(result, before, image, assumed)
    for n in range(before, len(result.servers)):
        server = result.servers[n]
        argv = list(server.argv)
        for i in expanded.unknown_at:
            if i + shift < len(argv):
                argv[i + shift] = Word(
                    None,
                    Origin(
                        at=at,
                        expansion=words[i],
                        known=False,
                        reason="set by an EnvironmentFile= not read here",
                    ),
                )
        result.servers[n] = replace(server, argv=tuple(argv))
    result.keep_secrets(env)
    result.keep_secrets(service_env)
    return result


def _entrypoint(value: str) -> list[str]:
    """``Entrypoint=``: podman's ``--entrypoint`` value, "multi option commands in the form of a JSON
    string" (podman-systemd.unit(5)), else one word."""
    from argtrace.safe_json import loads

    if value.startswith("["):
        try:
            listed = loads(value)
        except ValueError:
            return [value]
        if isinstance(listed, list) and all(isinstance(w, str) for w in listed):
            return listed
    return [value]


def _last(assignments: list[S.Assignment], key: str) -> str | None:
    found = [a.value for a in assignments if a.key == key]
    return found[-1] if found else None


def _line(assignments: list[S.Assignment], key: str) -> int:
    found = [a.line for a in assignments if a.key == key]
    return found[-1] if found else 0


def _container_env(
    label: str, container: list[S.Assignment], unit: S.UnitName, service_env: Mapping[str, str | None]
) -> tuple[dict[str, str | None], dict[str, Origin], dict[str, str], list[dict[str, Any]]]:
    """The container's variables in podman's order (``--env-host``, then ``--env-file`` files, then
    ``--env``; a later one wins), where each came from, the ``[Container]`` key that names each (for
    TP064's message, including the names of files not read here: unknown), and the files."""
    from argtrace.layers.transport.envfiles import read_env_file

    env: dict[str, str | None] = {}
    origins: dict[str, Origin] = {}
    named: dict[str, str] = {}
    files: list[dict[str, Any]] = []
    host = (_last(container, "EnvironmentHost") or "").lower() in ("true", "yes", "1", "on")
    if host:
        for k, v in service_env.items():
            env[k] = v
            origins[k] = Origin(at=label, expansion="EnvironmentHost= (the service's environment)")
    for a in container:
        at = f"{label}:{a.line}"
        if a.key == "EnvironmentFile":
            path = S.resolve_specifiers(a.value, unit, None).text
            if not path.startswith("/"):
                path = posixpath.normpath(posixpath.join(posixpath.dirname(label) or ".", path))
            entry: dict[str, Any] = {"path": path, "at": at, "read": None, "variables": []}
            data, problem, _missing = read_env_file(path)
            if data is None:
                entry["problem"] = problem
                entry["assumed"] = f"{path} is read by podman on the node; its names are unknown here"
                named["*"] = f"`EnvironmentFile={a.value}` under [Container] (line {a.line})"
            else:
                entry["read"] = path
                for name, val, number in S.load_env_file(data.decode("utf-8", "replace")):
                    env[name] = val
                    origins[name] = Origin(at=f"{path}:{number}", expansion=f"EnvironmentFile={a.value}")
                    named[name] = f"`EnvironmentFile={a.value}` under [Container] (line {a.line})"
                    entry["variables"].append(name)
            files.append(entry)
    for a in container:
        at = f"{label}:{a.line}"
        if a.key == "Environment":
            try:
                items = S.split_words(a.value)[0]
            except S.SyntaxProblem:
                continue
            for item in items:
                name, eq, value = item.partition("=")
                if eq and S.valid_name(name):
                    env[name] = value
                    origins[name] = Origin(at=at, expansion="Environment= under [Container]")
                    named[name] = f"`Environment=` under [Container] (line {a.line})"
        elif a.key == "Secret":
            fields = dict(part.partition("=")[::2] for part in a.value.split(",")[1:])
            if fields.get("type") == "env":
                name = fields.get("target") or a.value.split(",")[0]
                env[name] = None
                origins[name] = Origin(
                    at=at, expansion="Secret=", known=False, reason="a podman secret, resolved when it starts"
                )
    return env, origins, named, files


def _substitution_findings(
    at: str,
    words: list[str],
    expanded: S.Expanded,
    container_vars: Mapping[str, str],
    result: TransportResult,
    *,
    shell_c: bool = False,
) -> None:
    """TP064 for a variable of ``Exec=`` the service's environment lacks, TP062 for ``$NAME`` inside a
    word: systemd substitutes them in the ``ExecStart=`` quadlet writes, from the service's environment."""
    from argtrace.rules import carriers as R

    def source(name: str) -> str:
        where = container_vars.get(name) or container_vars.get("*")
        if where is None:
            return "set nowhere in the service's environment"
        if name in container_vars:
            return (
                f"not in the service's environment ({where} sets the container's, for podman; systemd "
                "substitutes `Exec=` before podman runs, from [Service]'s `Environment=`/`EnvironmentFile=`)"
            )
        return f"set nowhere in the service's environment ({where} sets the container's only)"

    fix = (
        "Give systemd the variable under [Service] (`Environment=NAME=value`, or the same "
        "`EnvironmentFile=` there), or write the value in `Exec=`."
    )
    # one finding per cause: the variables lost for the same reason are named together
    groups: dict[str, list[tuple[str, str, bool]]] = {}
    for _index, word, name in expanded.vanished:
        groups.setdefault(source(name), []).append((word, name, True))
    for word, name in expanded.empty:
        groups.setdefault(source(name), []).append((word, name, False))
    for reason, lost in groups.items():
        names = ", ".join(dict.fromkeys(name for _w, name, _v in lost))
        shown = ", ".join(f"`{word}`" for word, _n, _v in lost)
        verb = "is" if len(set(n for _w, n, _v in lost)) == 1 else "are"
        outcome = []
        if any(v for _w, _n, v in lost):
            outcome.append("a `$NAME` word is replaced with nothing")
        if not all(v for _w, _n, v in lost):
            outcome.append("each `${NAME}` gets an empty value from systemd")
        pairs = []
        for word, _n, _v in lost:
            i = words.index(word) if word in words else -1
            flag = words[i - 1] if i > 0 and words[i - 1].startswith("-") else ""
            pairs.append(f"{flag} {word}".strip())
        result.findings.append(
            R.TP064.finding(
                f"{shown} in Exec=: {names} {verb} {reason}, so " + " and ".join(outcome),
                at=at,
                fix=fix,
                # the flags and references as written: causes.py's lost-value link reads the flags from it
                evidence=[Evidence("transport", at, "Exec= ... " + " ... ".join(pairs))],
            )
        )
    for word, name in () if shell_c else expanded.literal:
        result.findings.append(
            R.TP062.finding(
                f"{_show(word)} in Exec=: systemd substitutes `${name}` only as a word of its own, so the "
                f"container gets the text `${name}` literally",
                at=at,
                fix=f"Write `${{{name}}}` in place of `${name}`.",
            )
        )
