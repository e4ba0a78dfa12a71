"""Compose's interpolation over the whole file, and the ``.env`` names it never reads.

This module owns two checks of one compose file read as a whole (compose interpolates every value of the
file, not one service's, before it creates anything):

* TP025: a ``${`` compose's template grammar cannot read. compose-go v2 (``template/template.go``) matches
  ``\\$(?i:(?P<escaped>\\$)|(?P<named>[_a-z][_a-z0-9]*)|{(?:(?P<braced>...)}|(?P<invalid>)))``: a ``${``
  not followed by a name and its ``:-``/``-``/``:?``/``?``/``:+``/``+`` form (``${ARGS[@]}``, ``${#ARGS}``,
  ``${1}``) is ``invalid``, and ``docker compose`` stops with "invalid interpolation format for PATH. You may
  need to escape any $ with another $." (``interpolation/interpolation.go`` ``newPathError``;
  noonghunna/club-3090#429 on Compose 5.1.4). A ``$`` followed by anything but ``$``, a name or ``{``
  (``$@``, ``$1``) matches nothing in v2 and is left as written (compose-go v1 refused it too). The text
  after a braced reference's first ``}`` and a default value are interpolated again, as
  ``DefaultReplacementAppliedFunc`` does. A shell script in a ``sh -c`` item is the usual place: its ``$``
  was meant for the container's shell and must be written ``$$``.
* TP026/TP027: a name ``.env`` sets that no ``${NAME}``/``$NAME`` of the file reads, no bare
  ``environment:`` entry takes and no ``env_file: .env`` loads. Compose uses ``.env`` only to fill the
  file's references (Compose docs, "Set environment variables": ``.env`` is for interpolation; a container
  gets only what ``environment:``/``env_file:`` give it), so the value reaches no container. TP026 (a
  warning) when the name is a near-miss of one the file reads (``MODELS_DIR`` for ``MODEL_DIR``) or is
  written without its ``$`` (``TOKEN={telegram_bot_token}``); TP027 (info) for the others, which may be there
  for other tools (scripts that source the file).

Only names are ever shown, never ``.env`` values (they may be secrets).
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from argtrace.layers.transport.compose_project import base_dir
from argtrace.layers.transport.context import TransportResult
from argtrace.layers.transport.envfiles import (
    EnvFile,
    _env_text,
    compose_interpolate,
    first_closing,
    parse_compose_env_file,
    read_env_file,
)
from argtrace.layers.transport.yamlnodes import _get, _items, _line, _scalar, _seq
from argtrace.model import Evidence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# compose-go template/template.go (delimiter, substitutionNamed, substitutionBraced, patternString), with
# Go's leftmost-first alternation, which Python's re shares
_TEMPLATE = re.compile(
    r"\$(?i:(?P<escaped>\$)|(?P<named>[_a-z][_a-z0-9]*)"
    r"|\{(?:(?P<braced>[_a-z][_a-z0-9]*(?::?[-+?](?:.*))?)\}|(?P<invalid>)))"
)
_OPERATOR = re.compile(r":?[-+?]")
_BRACED_NAME = re.compile(r"[_A-Za-z][_A-Za-z0-9]*")
# How close (difflib ratio) an unread .env name must be to a name the file reads to be taken for it: the
# cutoff the process layer uses for framework variables (layers/process.py NEAR_MISS); MODELS_DIR/MODEL_DIR
# is 0.95, PORT/HOST 0.5
_NEAR_MISS = 0.88
# compose reads these from .env for itself (docs.docker.com/compose/how-tos/environment-variables/envvars/:
# COMPOSE_PROJECT_NAME, COMPOSE_FILE, COMPOSE_PROFILES, ..., and the docker CLI's DOCKER_HOST, DOCKER_CONTEXT)
_COMPOSE_OWN = ("COMPOSE_", "DOCKER_")


@dataclass(frozen=True)
class _Value:
    """A string of a compose file that compose-go interpolates, with where it is."""

    path: str  # compose-go's path: services.vllm.entrypoint.[]
    node: Any
    text: str
    script: bool  # the item after `-c` of a `sh -c`/`bash -c` list


def _values(node: Any, path: str, script: bool = False, seen: set[int] | None = None) -> Iterator[_Value]:
    """Every scalar value of the document (keys are not interpolated), with compose-go's path. An alias is
    the node it names, visited once: an alias bomb (a node referenced from everywhere, nested) costs its
    size, never its expansion (yamlnodes.py)."""
    import yaml

    seen = set() if seen is None else seen
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.ScalarNode):
        text = _scalar(node)
        if text is not None:
            yield _Value(path, node, text, script)
    elif isinstance(node, yaml.MappingNode):
        for key, value in _items(node):
            yield from _values(value, f"{path}.{key}" if path else key, False, seen)
    elif isinstance(node, yaml.SequenceNode):
        items = [_scalar(i) or "" for i in node.value]
        shell = bool(items) and posixpath.basename(items[0]) in ("sh", "bash", "dash", "zsh")
        for n, item in enumerate(node.value):
            yield from _values(item, f"{path}.[]", shell and n > 0 and items[n - 1] == "-c", seen)


def _snippet(text: str, start: int) -> str:
    """The offending reference as written: ``${ARGS[@]}`` up to its brace, else ``$`` and the next char."""
    if text.startswith("${", start):
        end = text.find("}", start)
        return text[start : end + 1] if end > 0 else text[start : start + 12]
    return text[start : start + 2]


# Nested defaults followed (`${A:-${B:-...}}`): compose-go recurses without a limit (Go's stack grows), but
# here each level is a Python frame and a rescan of the rest, so 5,000 levels in one compose value died with
# RecursionError after 7 s (probe of session 13). Deeper templates are read no further.
MAX_NESTING = 64


def _invalid(text: str, offset: int = 0, depth: int = 0) -> list[int]:
    """Where compose-go v2 finds an invalid template in ``text``: the ``invalid`` branch, and again in the
    default of a braced reference and in the text after its first ``}`` (interpolated anew)."""
    out: list[int] = []
    if depth > MAX_NESTING:
        return out
    for m in _TEMPLATE.finditer(text):
        if m.group("invalid") is not None:
            out.append(offset + m.start())
        elif m.group("braced"):
            whole = m.group(0)
            close = first_closing(whole)
            inner = whole[2:close] if close > 0 else whole[2:]
            op = _OPERATOR.search(inner)
            if op is not None:
                out += _invalid(inner[op.end() :], offset + m.start() + 2 + op.end(), depth + 1)
            if close > 0:
                out += _invalid(whole[close + 1 :], offset + m.start() + close + 1, depth + 1)
    return out


def _names(text: str, depth: int = 0) -> set[str]:
    """The names ``text`` reads, as compose-go interpolates it (a braced reference's default and the text
    after its first ``}`` are read again: :func:`_invalid`)."""
    out: set[str] = set()
    if depth > MAX_NESTING:
        return out
    for m in _TEMPLATE.finditer(text):
        if m.group("named"):
            out.add(m.group("named"))
        elif m.group("braced"):
            whole = m.group(0)
            name = _BRACED_NAME.match(m.group("braced"))
            if name is not None:
                out.add(name.group(0))
            close = first_closing(whole)
            inner = whole[2:close] if close > 0 else whole[2:]
            op = _OPERATOR.search(inner)
            if op is not None:
                out |= _names(inner[op.end() :], depth + 1)
            if close > 0:
                out |= _names(whole[close + 1 :], depth + 1)
    return out


def compose_file_checks(label: str, root: Any, result: TransportResult) -> None:
    """TP025 for each value compose refuses to interpolate; TP026/TP027 for the ``.env`` beside ``label``."""
    values = list(_values(root, ""))
    refused = _invalid_interpolations(label, values, result)
    # compose stops before substituting anything: TP012's "substitutes an empty string" for a name in a
    # refused script item is moot, and its fix (set the name where compose runs) is not the script's intent
    result.findings[:] = [f for f in result.findings if not (f.code == "TP012" and f.at in refused)]
    _unread_dotenv(label, root, values, result)


def _invalid_interpolations(label: str, values: list[_Value], result: TransportResult) -> set[str]:
    """TP025 for each value with an invalid template; returns where the refused shell-script items are."""
    from argtrace.rules import transport as R

    refused: set[str] = set()
    for v in values:
        bad = _invalid(v.text)
        if not bad:
            continue
        shown = ", ".join(f"`{_snippet(v.text, i)}`" for i in dict.fromkeys(bad))
        refs = sorted(_names(v.text))
        also = (
            " This item is the script of a shell in the container: its "
            + ", ".join(f"`${{{n}...}}`" for n in refs[:3])
            + (" and the other references" if len(refs) > 3 else "")
            + " are compose's too (filled from the environment `docker compose` runs in, not the "
            "container's)."
            if v.script and refs
            else ""
        )
        if v.script:
            refused.add(_line(label, v.node))
        result.findings.append(
            R.TP025.finding(
                f"compose refuses this file before it starts anything: {shown} in {v.path} is not an "
                "interpolation compose can read (its template reads `$$`, `$NAME` and `${NAME...}` only), so "
                f'`docker compose` stops with "invalid interpolation format for {v.path}. You may need to '
                'escape any $ with another $."' + also,
                at=_line(label, v.node),
                evidence=[Evidence("transport", _line(label, v.node), _snippet(v.text, bad[0]))],
                fix="Write `$$` for each `$` the container's shell should see ("
                + ", ".join(f"`${_snippet(v.text, i)}`" for i in dict.fromkeys(bad))
                + "): compose turns `$$` into `$`."
                + (
                    " Double the `$` of the script's other references too if the container should read them."
                    if also
                    else ""
                ),
            )
        )

    return refused


def _dotenv(label: str) -> EnvFile | None:
    path = posixpath.join(base_dir(label), ".env")
    data, problem, _missing = read_env_file(path)
    if data is None or problem is not None:
        return None
    parsed = EnvFile(path, path)
    parse_compose_env_file(_env_text(data), {}, parsed)
    return parsed if parsed.problem is None else None


def _env_file_paths(root: Any) -> list[str]:
    """The ``env_file:`` paths of every service as written (string, list item, or ``{path: ...}``)."""
    out: list[str] = []
    for _name, svc in _items(_get(root, "services")):
        node = _get(svc, "env_file")
        listed = _seq(node)
        for e in listed if listed is not None else [node]:
            path = _scalar(e) if _scalar(e) is not None else _scalar(_get(e, "path"))
            if path is not None:
                out.append(path)
    return out


_BARE_NAME = re.compile(r"(?m)^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*$")


def _read_by_env_files(label: str, paths: list[str], env: Mapping[str, str | None]) -> set[str]:
    """Names an env file takes from compose's environment (where .env's values are): its ``${NAME}``
    references and its bare ``NAME`` lines (compose-go's dotenv parser looks both up there)."""
    out: set[str] = set()
    for written in paths:
        path, _unset = compose_interpolate(written, {k: v for k, v in env.items() if v is not None})
        data, problem, _missing = read_env_file(posixpath.join(base_dir(label), path))
        if data is None or problem is not None:
            continue
        text = _env_text(data)
        out |= _names(text) | set(_BARE_NAME.findall(text))
    return out


def _unread_dotenv(label: str, root: Any, values: list[_Value], result: TransportResult) -> None:
    from argtrace.rules import transport as R

    dotenv = _dotenv(label)
    env_files = _env_file_paths(root)
    if dotenv is None or not dotenv.values or any(posixpath.normpath(p) == ".env" for p in env_files):
        return  # a service with `env_file: .env` gets every name
    read: set[str] = _read_by_env_files(label, env_files, dotenv.values)
    for v in values:
        read |= _names(v.text)
    for _name, svc in _items(_get(root, "services")):
        env = _get(svc, "environment")
        read |= {(_scalar(i) or "") for i in _seq(env) or [] if "=" not in (_scalar(i) or "")}
        read |= {k for k, val in _items(env) if _scalar(val) is None}
    unread = [n for n in dotenv.values if n not in read and not n.startswith(_COMPOSE_OWN)]
    quiet: list[str] = []
    for name in unread:
        at = f"{dotenv.path}:{dotenv.lines.get(name, 1)}"
        literal = next((v for v in values if f"{{{name}}}" in v.text.replace(f"${{{name}}}", "")), None)
        near = difflib.get_close_matches(name, sorted(read), n=1, cutoff=_NEAR_MISS)
        if literal is not None:
            result.findings.append(
                R.TP026.finding(
                    f"{name} is set in .env, but {literal.path} writes `{{{name}}}` without its `$`: compose "
                    f"fills only `${{{name}}}`, so the container gets the text `{{{name}}}` and the value in "
                    ".env reaches nothing",
                    at=_line(label, literal.node),
                    evidence=[Evidence("transport", at, name)],
                    fix=f"Write `${{{name}}}` in {literal.path}.",
                )
            )
        elif near:
            result.findings.append(
                R.TP026.finding(
                    f"{name} is set in .env, but the compose file reads {near[0]}, never {name}: compose "
                    f"fills only the names the file writes as `${{...}}`, so {near[0]} takes its default (or "
                    f"stays unset) and {name}'s value reaches no container",
                    at=at,
                    evidence=[Evidence("transport", at, name)],
                    fix=f"Rename {name} to {near[0]} in .env.",
                )
            )
        else:
            quiet.append(name)
    if quiet:
        at = f"{dotenv.path}:{dotenv.lines.get(quiet[0], 1)}"
        result.findings.append(
            R.TP027.finding(
                f"{', '.join(quiet)} {'is' if len(quiet) == 1 else 'are'} set in .env but read by no "
                "`${...}` of the compose file, no bare `environment:` entry and no `env_file: .env`: compose "
                "uses .env only to fill the file's references, so no container gets "
                + ("it" if len(quiet) == 1 else "them")
                + " (.env may hold them for other tools)",
                at=at,
                evidence=[Evidence("transport", at, n) for n in quiet],
                fix="Pass what a container needs: `- NAME=${NAME}` under its `environment:`, or "
                "`env_file: .env` in the service.",
            )
        )
