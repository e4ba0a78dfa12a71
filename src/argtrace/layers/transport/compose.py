"""docker compose: a service's ``entrypoint:`` + ``command:`` and its environment.

This module owns reading one compose file's services: ``command:``/``entrypoint:`` (a list item is one
argv word: TP011; a string is split like words, nothing else of a shell applies), compose's ``${VAR}``
interpolation from the caller's environment and ``.env`` (TP012 for an unset name), ``environment:`` (TP019
for a list item whose value keeps its quotes) and ``env_file:`` as compose-go v2 resolves them (TP016 for a
refused file), and handing the container's argv and environment to :mod:`.containers`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from argtrace.layers.transport.compose_project import base_dir
from argtrace.layers.transport.containers import (
    _container_servers,
    _entrypoint_findings,
    _exec_form_findings,
    _image_path,
    _image_started,
    _tag_image,
    container_argv,
)
from argtrace.layers.transport.context import TransportResult
from argtrace.layers.transport.docker_cli import docker_options_in_items
from argtrace.layers.transport.envfiles import (
    EnvFile,
    _env_text,
    compose_interpolate,
    compose_required,
    parse_compose_env_file,
    read_env_file,
)
from argtrace.layers.transport.words import (
    _show,
    empty_value_item,
    folded_continuation,
    one_word_flag,
    one_word_program,
    split_like_shlex,
)
from argtrace.layers.transport.yamlnodes import _get, _items, _line, _scalar, _seq
from argtrace.model import Evidence, Origin, VanishedWord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# an unquoted reference that is a whole word of a string-form command (``serve ${MODEL} --port 8000``)
_WHOLE_WORD_REF = re.compile(r"(?:^|(?<=\s))\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))(?=\s|$)")


def _vanished_words(text: str, env: Mapping[str, str], at: str) -> list[VanishedWord]:
    """The words of a string-form ``command:`` that compose's interpolation turns into nothing. compose
    interpolates the whole file first ("If an environment variable is not set, Compose substitutes with an
    empty string", docs.docker.com/compose/how-tos/environment-variables/variable-interpolation/) and only
    then splits the string into words (compose-go's ShellCommand, shell-like splitting), so an unquoted
    ``${MODEL}`` that is unset or empty leaves no word at all: the same loss as a shell's unquoted
    expansion. ``index`` counts the words before it."""
    out: list[VanishedWord] = []
    for m in _WHOLE_WORD_REF.finditer(text):
        name = m.group(1) or m.group(2)
        value = env.get(name)
        if value:
            continue
        before, _unset = compose_interpolate(text[: m.start()], env)
        try:
            index = len(split_like_shlex(before))
        except ValueError:
            continue  # inside an open quote: a quoted empty string stays a word
        out.append(VanishedWord(index, m.group(0), at, "unset" if value is None else "empty", name))
    return out


def _compose_words(
    label: str, node: Any, env: Mapping[str, str], result: TransportResult, *, what: str
) -> tuple[list[str] | None, list[VanishedWord]]:
    """A compose ``command:``/``entrypoint:``: a list is the argv as is; a string is split like a shell
    would split words (quotes honoured) but nothing else of a shell applies. Also the words the string's
    interpolation left out (``_vanished_words``)."""

    if node is None:
        return None, []
    items = _seq(node)
    at = _line(label, node)
    if items is None:
        text = _scalar(node)
        if text is None:
            return None, []
        value, unset = compose_interpolate(text, env)
        required = compose_required(text, env)
        if (folded := folded_continuation(f"`{what}:` string", node, value, at)) is not None:
            result.findings.append(folded)
        try:
            said = split_like_shlex(value)
        except ValueError:
            _unset_findings(at, unset, result, how=f"`{what}:`", required=required)
            return value.split(), []
        lost = _vanished_words(text, env, at)
        _unset_findings(
            at,
            unset,
            result,
            how=f"`{what}:`",
            vanished={v.name: v for v in lost},
            words=said,
            required=required,
        )
        return said, lost
    words: list[str] = []
    placed: list[tuple[str, str]] = []
    for item in items:
        text = _scalar(item)
        if text is None:
            continue
        value, unset = compose_interpolate(text, env)
        item_at = _line(label, item)
        placed.append((value, item_at))
        flag = words[-1] if words and words[-1].startswith("-") and "=" not in words[-1] else None
        _unset_findings(
            item_at,
            unset,
            result,
            how=f"`{what}:`",
            required=compose_required(text, env),
            item=(text, value, flag),
        )
        if (folded := folded_continuation(f"`{what}:` list item", item, value, item_at)) is not None:
            result.findings.append(folded)
        elif (split := one_word_flag(f"`{what}:` list item", value, text, item_at)) is not None:
            result.findings.append(split)
        elif (empty := empty_value_item(f"`{what}:` list item", value, text, item_at)) is not None:
            result.findings.append(empty)
        elif (
            what == "entrypoint"
            and not words
            and (whole := one_word_program("`entrypoint:` list item", value, text, item_at))
        ):
            result.findings.append(whole)
        words.append(value)
    docker_options_in_items("compose", f"the `{what}:` list", placed, result)
    return words, []


def _unset_findings(
    at: str,
    unset: Sequence[str],
    result: TransportResult,
    *,
    how: str,
    key: str | None = None,
    vanished: Mapping[str | None, VanishedWord] | None = None,
    words: Sequence[str] = (),
    required: Mapping[str, str] | None = None,
    item: tuple[str, str, str | None] | None = None,
) -> None:
    """TP012 for each name compose's interpolation found unset. Compose reads the shell that runs
    `docker compose` (then `.env`): a name unset in the environment argtrace was given may be set there, so
    every verdict that a value is lost rests on that assumption (warning, ``basis: assumed``), as for a
    caller's variable in a script; ``${VAR?err}`` makes compose stop instead (``required``). ``item``: a
    list item as written, as interpolated, and the flag before it (its value is the empty word)."""
    from argtrace.redact import is_secret_name
    from argtrace.rules import transport as R

    for name, message in (required or {}).items():
        # Compose specification, Interpolation: `${VAR:?error}` "otherwise exit with error"
        result.findings.append(
            R.TP012.finding(
                f"${{{name}}} in {how} is required (`?`) and is not set in the environment argtrace was "
                f"given or the .env file: if it is unset where `docker compose` runs too, compose stops "
                f'before creating the container ("{message}")',
                at=at,
                evidence=[Evidence("transport", at, message), Evidence("transport", at, name)],
                severity="warning",
                basis="assumed",
                fix=f"set {name} where `docker compose` runs (or in .env next to the compose file; check "
                f"with `--env {name}=...`)",
            )
        )
    for name in dict.fromkeys(unset):
        if name in (required or {}):
            continue
        if item is not None and key is None:
            written, value, flag = item
            # a list item is one argv word whatever compose makes of it: unset, it is still a word, the
            # empty one (or the text around the reference), and the flag before it gets that
            whole = value == ""
            result.findings.append(
                R.TP012.finding(
                    f"${{{name}}} in {how} is not set in the environment argtrace was given or the .env "
                    f"file: if it is unset where `docker compose` runs too, compose warns and substitutes "
                    f"an empty string, so the list item {_show(written)} reaches the server as "
                    + ("the empty word ''" if whole else repr(value))
                    + (f" (the value of `{flag}`)" if flag else ""),
                    at=at,
                    evidence=[
                        Evidence("transport", at, f"{flag} {written}" if flag else written),
                        Evidence("transport", at, name),
                    ],
                    severity="warning",
                    basis="assumed",
                    fix=f"set {name} where `docker compose` runs (or in .env next to the compose file; check "
                    f"with `--env {name}=...`), or give a default (`${{{name}:-VALUE}}`)",
                )
            )
            continue
        lost = (vanished or {}).get(name)
        if lost is not None:
            # compose reads NAME from the shell that runs `docker compose` (and .env): argtrace's need not
            # be it, so the loss rests on that assumption, like a caller's variable in a script (SH007)
            prev = words[lost.index - 1] if 0 < lost.index <= len(words) else None
            flag = prev if prev is not None and prev.startswith("-") and "=" not in prev else None
            result.findings.append(
                R.TP012.finding(
                    f"${{{name}}} in {how} is not set in the environment argtrace was given or the .env "
                    f"file: if it is unset where `docker compose` runs too, compose warns and substitutes an "
                    f"empty string, and the unquoted word vanishes from the command"
                    + (f" (`{flag}` loses its value)" if flag else ""),
                    at=at,
                    evidence=[
                        Evidence("transport", at, f"{flag} {lost.expansion}" if flag else lost.expansion),
                        Evidence("transport", at, name),
                    ],
                    severity="warning",
                    basis="assumed",
                    fix=f"set {name} where `docker compose` runs (or in .env; check with "
                    f"`--env {name}=...`), or give a default (`${{{name}:-VALUE}}`)",
                )
            )
            continue
        if key is not None and is_secret_name(key):
            # A credential in `environment:` reaches the container as a variable, never as a flag's value,
            # and compose reads it from the shell that runs `docker compose` (where a token is exported),
            # which need not be the one argtrace runs in; empty, it only fails downloads that need it.
            result.findings.append(
                R.TP012.finding(
                    f"${{{name}}} in `environment:` is not set in the environment argtrace runs in or the "
                    f".env file: if it is unset where `docker compose` runs too, compose warns and the "
                    f"container gets {key} empty (a credential: only downloads that need it fail)",
                    at=at,
                    evidence=[Evidence("transport", at, name)],
                    severity="info",
                    basis="assumed",
                )
            )
            continue
        # compose reads NAME from the shell that runs `docker compose`, as for a `command:` item: a value
        # in `environment:` is lost only if that shell lacks it too, which argtrace cannot see
        into = f" in {key}'s value" if key is not None else ""
        result.findings.append(
            R.TP012.finding(
                f"${{{name}}} in {how} is not set in the environment argtrace was given or the .env file: "
                f"if it is unset where `docker compose` runs too, compose warns and substitutes an empty "
                f"string{into}",
                at=at,
                evidence=[Evidence("transport", at, name)],
                severity="warning",
                basis="assumed",
                fix=f"set {name} where `docker compose` runs (or in .env next to the compose file; check "
                f"with `--env {name}=...`), or give a default (`${{{name}:-VALUE}}`)",
            )
        )


def _quoted_item_finding(at: str, name: str, value: str, result: TransportResult) -> None:
    """TP019: ``- NAME="value"`` in a list-form ``environment:``: compose-go cuts the item at the first
    ``=`` and keeps the rest as written (``MappingWithEquals.DecodeMapstructure``), quotes included."""
    from argtrace.redact import is_secret_name
    from argtrace.rules import transport as R

    if len(value) < 2 or value[0] not in "'\"" or value[-1] != value[0]:
        return
    secret = is_secret_name(name)
    shown = "the value" if secret else repr(value[1:-1])
    result.findings.append(
        R.TP019.finding(
            f"{name} in `environment:` is quoted: compose passes a list item's value as written, so the "
            f"server gets the quote characters as part of {name}, not {shown}",
            at=at,
            evidence=[Evidence("transport", at, f"- {name}={'<redacted>' if secret else value}")],
            fix=f"Write - {name}={'VALUE' if secret else value[1:-1]} without the quotes (or the map form "
            f"{name}: {'VALUE' if secret else value}, whose quotes YAML removes).",
        )
    )


def _compose(
    label: str, root: Any, env: Mapping[str, str], service: str | None, result: TransportResult
) -> None:
    from argtrace.model import UsageError

    services = _items(_get(root, "services"))
    if service is not None:
        services = [(n, s) for n, s in services if n == service]
        if not services:
            raise UsageError(f"{label}: no service named {service!r}")
    for name, svc in services:
        image = _scalar(_get(svc, "image")) or ""
        image, _ = compose_interpolate(image, env)
        entrypoint, lost_ep = _compose_words(label, _get(svc, "entrypoint"), env, result, what="entrypoint")
        command, lost_cmd = _compose_words(label, _get(svc, "command"), env, result, what="command")
        at = _line(label, _get(svc, "command") or _get(svc, "entrypoint") or svc)
        svc_env: dict[str, str | None] = {}
        env_node = _get(svc, "environment")
        for item in _seq(env_node) or []:
            text = _scalar(item) or ""
            key, has, value = text.partition("=")
            if has:
                _quoted_item_finding(_line(label, item), key, value, result)
            value, unset = compose_interpolate(value, env)
            _unset_findings(_line(label, item), unset, result, how="`environment:`", key=key)
            svc_env[key] = value if has else env.get(key)
        for key, value_node in _items(env_node):
            raw = _scalar(value_node)
            if raw is None:
                svc_env[key] = env.get(key)  # `NAME:` with no value: taken from compose's environment
                continue
            interpolated, unset = compose_interpolate(raw, env)
            _unset_findings(_line(label, value_node), unset, result, how="`environment:`", key=key)
            svc_env[key] = interpolated
        svc_env, origins, files = _compose_env_files(label, name, svc, env, svc_env, result)
        final, image_ep = container_argv(image, entrypoint, command)
        shift = len(final) - len(command or [])
        lost = (
            *(lost_ep if entrypoint is not None else []),
            *(replace(v, index=v.index + shift) for v in lost_cmd),
        )
        hop: dict[str, Any] = {
            "at": at,
            "via": "compose",
            "service": name,
            "image": image,
            "entrypoint": entrypoint
            if entrypoint is not None
            else (list(image_ep) if image_ep is not None else None),
            "command": command,
            "argv": final,
        }
        if files:
            hop["env_files"] = [f.hop() for f in files]
        result.hops.append(hop)
        assumed = None
        if command:
            assumed = _entrypoint_findings(at, image, entrypoint, command, result, how="`command:`")
            # a string is split into words by compose itself (compose-go's shellwords): no shell runs it
            # either, so what survived interpolation (`$${PORT}` -> `${PORT}`, `&&`) reaches the program as is
            form = "list" if _seq(_get(svc, "command")) is not None else "string"
            _exec_form_findings(at, command, result, how=f"service {name}'s `command:` {form}", final=final)
        before = len(result.servers)
        from argtrace.layers.transport.mounted import mounted_script

        # a script of the project the service bind-mounts and runs (layers/transport/mounted.py): its text is
        # what the container's shell runs
        mounted = mounted_script(label, svc, final, env)
        _container_servers(
            at,
            mounted[0] if mounted else final,
            *_image_path(svc_env, origins, at, image),
            f"compose service {name}",
            result,
            () if mounted else lost,
            script_at=mounted[1] if mounted else None,
        )
        if any(v.state == "empty" for v in lost):
            # set to "" (in .env): certain, not assumed; the flag that loses its value is said as a shell's
            # empty expansion is (SH026), TP012 being only for what is not set
            from argtrace.layers.shell.vanished import vanished_after_flags

            for server in result.servers[before:]:
                empty = tuple(v for v in server.vanished if v.state == "empty")
                result.findings.extend(vanished_after_flags(replace(server, vanished=empty), 0))
        _tag_image(result, before, image, assumed)
        _image_started(at, image, svc_env, result, before)
        gpus = compose_gpus(svc)
        # `privileged: true` gives the container every host GPU, numbered as on the host, whatever the
        # device reservation asks (as `docker run --privileged`: docker_cli.DockerRun.privileged)
        if gpus is not None and (_scalar(_get(svc, "privileged")) or "").lower() not in ("true", "yes", "on"):
            result.servers[before:] = [
                replace(s, gpus=gpus, gpus_from=f"service {name}'s deploy.resources.reservations.devices")
                for s in result.servers[before:]
            ]


def compose_gpus(svc: Any) -> int | None:
    """The GPUs a compose service reserves (Compose file reference, deploy.resources.reservations.devices:
    ``count`` N, or the ``device_ids`` listed, an item holding several comma-separated; ``count: all`` is the
    host's, not known here)."""
    total = 0
    found = False
    devices = _get(_get(_get(_get(svc, "deploy"), "resources"), "reservations"), "devices")
    for item in _seq(devices) or []:
        caps = [(_scalar(c) or "") for c in _seq(_get(item, "capabilities")) or []]
        if "gpu" not in caps and (_scalar(_get(item, "driver")) or "") != "nvidia":
            continue
        count = _scalar(_get(item, "count"))
        ids = _seq(_get(item, "device_ids"))
        if count is not None and count.isdigit():
            total, found = total + int(count), True
        elif ids is not None:
            # the daemon joins the IDs with commas into NVIDIA_VISIBLE_DEVICES (moby daemon/nvidia_linux.go,
            # setNvidiaGPUs: strings.Join(req.DeviceIDs, ",")), so one item "5,6" is two GPUs, as ["5", "6"]
            named = [part for item in ids for part in (_scalar(item) or "").split(",") if part.strip()]
            total, found = total + len(named), True
        else:
            return None  # count: all (or nothing): the host's GPUs
    return total if found else None


# TP012 findings of one env file: one per unset name; the names past this share one finding
MAX_UNSET_NAMES = 20
_LOOKED_IN = (
    "the environment argtrace was given, the .env file, the service's environment or the env file above it"
)


def _also_on(lines: list[int]) -> str:
    """`` (also lines 7, 9)`` for a name unset on more lines than its first (`` and 3 more`` past four)."""
    if len(lines) < 2:
        return ""
    more = f" and {len(lines) - 4} more" if len(lines) > 4 else ""
    return f" (also line{'s' if len(lines) > 2 else ''} {', '.join(map(str, lines[1:4]))}{more})"


def _compose_env_file_entries(
    label: str, node: Any, env: Mapping[str, str]
) -> list[tuple[str, bool, str, str]]:
    """A service's ``env_file:`` (a string, a list of strings, or a list of ``{path, required, format}``)
    as ``(path, required, at, format)``; paths are interpolated and joined to the compose file's directory."""
    entries: list[tuple[str, bool, str, str]] = []
    items = _seq(node)
    for item in items if items is not None else ([node] if node is not None else []):
        text = _scalar(item)
        required, form = True, ""
        if text is None:
            text = _scalar(_get(item, "path"))
            flag = _scalar(_get(item, "required"))
            required = flag is None or flag.lower() != "false"
            form = _scalar(_get(item, "format")) or ""
        if not text:
            continue
        path, _unset = compose_interpolate(text, env)
        if not path.startswith("/"):  # compose-go: filepath.Join(project directory, path)
            path = posixpath.normpath(posixpath.join(base_dir(label), path))
        entries.append((path, required, _line(label, item), form))
    return entries


def _compose_env_files(
    label: str,
    service: str,
    svc: Any,
    env: Mapping[str, str],
    svc_env: dict[str, str | None],
    result: TransportResult,
) -> tuple[dict[str, str | None], dict[str, Origin], list[EnvFile]]:
    """The service's environment as compose-go v2 resolves it (``Project.WithServicesEnvironmentResolved``):
    each ``env_file:`` in order over the ``environment:`` values (a later file wins, ``${VAR}`` and bare
    names look in compose's environment first, then in ``environment:``, then in what was read so far), and
    ``environment:`` over all of them. A missing file is an error unless it says ``required: false``."""
    from argtrace.rules import transport as R

    entries = _compose_env_file_entries(label, _get(svc, "env_file"), env)
    if not entries:
        return svc_env, {}, []
    known_svc = {k: v for k, v in svc_env.items() if v is not None}
    lookup = {**known_svc, **env}
    merged: dict[str, str | None] = dict(known_svc)
    origins: dict[str, Origin] = {}
    files: list[EnvFile] = []
    for path, required, at, form in entries:
        env_file = EnvFile(path, at)
        files.append(env_file)
        if form:
            env_file.skipped = f"format {form!r}: argtrace reads only the default .env format"
            continue
        data, problem, missing = read_env_file(path)
        if data is None and missing and not required:
            env_file.skipped = "missing, and `required: false`: compose ignores it"
            continue
        env_file.problem = problem
        if data is not None:
            parse_compose_env_file(_env_text(data), lookup, env_file, earlier=merged)
        if env_file.problem is not None:
            result.findings.append(
                R.TP016.finding(
                    f"service {service}'s env_file {_show(path)}: {env_file.problem}; docker compose "
                    "stops before creating the container, so the server never starts",
                    at=at,
                    evidence=[Evidence("transport", at, f"env_file: {path}")],
                    fix=None
                    if not missing
                    else f"Create {path}, fix the path (relative paths start at the compose file's "
                    "directory), or mark it optional: `env_file: [{path: ..., required: false}]`.",
                )
            )
            continue
        # one finding per unset name (at its first line, the others named), and past MAX_UNSET_NAMES names
        # one for the rest: an env file of 50,000 `A=${B}` lines made as many findings, minutes to report
        lines_of: dict[str, list[int]] = {}
        for name, line in env_file.unset:
            if line not in lines_of.setdefault(name, [])[-1:]:
                lines_of[name].append(line)
        names = list(lines_of)
        for name in names[:MAX_UNSET_NAMES]:
            lines = lines_of[name]
            # compose's own environment (the shell that runs it) comes first in an env_file's lookup
            # (compose-go WithServicesEnvironmentResolved): argtrace cannot see it, so the loss is assumed
            result.findings.append(
                R.TP012.finding(
                    f"${{{name}}} in {path}{_also_on(lines)} (env_file of service {service}) is not set in "
                    f"{_LOOKED_IN}: if it is unset where `docker compose` runs too, compose substitutes an "
                    "empty string",
                    at=f"{path}:{lines[0]}",
                    evidence=[Evidence("transport", f"{path}:{n}", name) for n in lines[:3]],
                    severity="warning",
                    basis="assumed",
                    fix=f"set {name} where `docker compose` runs (or in .env next to the compose file; check "
                    f"with `--env {name}=...`), or give a default (`${{{name}:-VALUE}}`)",
                )
            )
        if len(names) > MAX_UNSET_NAMES:
            rest = names[MAX_UNSET_NAMES:]
            shown = ", ".join(f"${{{n}}}" for n in rest[:5]) + (
                f" and {len(rest) - 5} more" if len(rest) > 5 else ""
            )
            result.findings.append(
                R.TP012.finding(
                    f"{len(rest)} more variables in {path} (env_file of service {service}) are not set in "
                    f"{_LOOKED_IN} ({shown}): if they are unset where `docker compose` runs too, compose "
                    "substitutes empty strings",
                    at=f"{path}:{lines_of[rest[0]][0]}",
                    evidence=[Evidence("transport", f"{path}:{lines_of[n][0]}", n) for n in rest[:3]],
                    severity="warning",
                    basis="assumed",
                    fix="set them where `docker compose` runs (or in .env next to the compose file), or give "
                    "defaults (`${NAME:-VALUE}`)",
                )
            )
        for name, value in env_file.values.items():
            merged[name] = value
            origins[name] = Origin(at=f"{path}:{env_file.lines[name]}", expansion="env_file")
    final = {**merged, **svc_env}
    for name in svc_env:
        origins.pop(name, None)
    result.keep_secrets(final)
    return final, origins, files
