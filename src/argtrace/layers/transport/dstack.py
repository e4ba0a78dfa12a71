"""``argtrace check serve.dstack.yml``: a dstack run configuration (a service or task) as the launch carrier.

This module owns reading a ``.dstack.yml`` into the command line dstack's runner starts and the environment
it gets, as dstack's own code builds them (dstackai/dstack, ``src/dstack/_internal/server/services/jobs/
configurators/base.py``, ``JobConfigurator._commands`` and ``_shell``; ``src/dstack/_internal/core/models/
envs.py``):

* ``commands:`` run as ``[SHELL, "-i", "-c", " && ".join(commands)]``: each item stripped, an item that
  ends in ``&`` wrapped in ``{ ... }`` (``_join_shell_commands``); SHELL is ``shell:`` (a bare name is
  ``/bin/NAME``), else ``/bin/bash`` when no ``image:`` is given (dstack's base image) and ``/bin/sh``
  with one. So a failing item stops the ones after it, and a ``cd`` carries over.
* ``entrypoint:`` (the "docker-like format"): ``shlex.split(entrypoint) + commands``, an argv run without
  a shell.
* neither: the image's own ENTRYPOINT/CMD, read from the registry by dstack, not here (TP090).
* a command item that starts with a bash builtin (`source`, `pushd`, `[[`...) under the image's /bin/sh:
  dash on Debian/Ubuntu images refuses it and the `&&` list stops there (TP091, basis assumed).
* ``env:``: a list of ``NAME=value`` / ``NAME`` items or a mapping. A bare ``NAME`` (or a null value) is
  filled in by ``dstack apply`` from its own environment, which refuses the run when it is not set
  (``EnvSentinel.from_env``, TP089). ``${{ secrets.NAME }}`` is resolved by the dstack server from the
  project's secrets: unknown here.
* the runner adds ``DSTACK_*`` variables (dstack docs, "Environment variables"): set, values unknown (the
  shell and parser layers say which server words take one: SH018, PA013); ``--env`` gives them.
* a service's ``replicas:`` list: each group runs its own ``commands:`` (else the top-level ones).

Each command line goes through the shell layer (and the transport layer, for a ``docker run`` in it) with
its line numbers those of the YAML file.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping

from argtrace.layers.transport.context import TransportResult
from argtrace.layers.transport.yamlnodes import _get, _items, _line, _scalar, _seq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell import ScriptSource
    from argtrace.layers.transport.skypilot import FollowScript

_TOP_KEY = re.compile(r"(?m)^([A-Za-z_][\w-]*)\s*:[ \t]*(.*)$")
_RUN_TYPES = ("service", "task", "dev-environment")
# the keys that say a `type:` file is a dstack run configuration and not another tool's YAML
_RUN_SIGNS = frozenset({"commands", "image", "python", "resources", "replicas", "port", "ports", "nodes"})
_ENV_ITEM = re.compile(r"^([a-zA-Z_][a-zA-Z0-9_]*)(=.*$|$)", re.S)  # envs.py _ENV_STRING_REGEX
_INTERPOLATION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}", re.S)
# dstack docs, reference/environment-variables.md (".dstack.yml"): what every job gets
DSTACK_VARS = (
    "DSTACK_RUN_NAME",
    "DSTACK_RUN_ID",
    "DSTACK_JOB_ID",
    "DSTACK_REPO_ID",
    "DSTACK_GPUS_NUM",
    "DSTACK_NODES_NUM",
    "DSTACK_GPUS_PER_NODE",
    "DSTACK_NODE_RANK",
    "DSTACK_MASTER_NODE_IP",
    "DSTACK_NODES_IPS",
    "DSTACK_MPI_HOSTFILE",
)


def is_run_config(data: bytes) -> bool:
    """A dstack run configuration: a top-level ``type:`` of ``service``, ``task`` or ``dev-environment``
    with one of the keys a run has (``commands:``, ``image:``, ``resources:``...)."""
    head = data[:65536]
    if head.startswith(b"#!") or b"\x00" in head:
        return False
    top = {
        m.group(1): m.group(2).strip().strip("\"'")
        for m in _TOP_KEY.finditer(head.decode("utf-8", "replace"))
    }
    return top.get("type", "").split("#")[0].strip() in _RUN_TYPES and bool(set(top) & _RUN_SIGNS)


def analyze_run_config(
    source: ScriptSource, *, given: Mapping[str, str], follow: FollowScript | None = None
) -> TransportResult:
    """The server starts of a dstack run configuration. ``given``: ``--env``, the environment `dstack
    apply` runs in (what bare ``env:`` names take) and, if a user gives them, the ``DSTACK_*`` values."""
    from argtrace.layers.transport.yamlnodes import _load_yaml_nodes
    from argtrace.rules import dstack as R

    label = source.label
    documents = _load_yaml_nodes(source.data, label)
    root = documents.nodes[0] if documents.nodes else None
    result = TransportResult()
    env: dict[str, str] = {}
    unknown: dict[str, str] = {}
    env_node = _get(root, "env")
    entries: list[tuple[str, str | None, Any]] = []
    for item in _seq(env_node) or []:
        text = _scalar(item)
        m = _ENV_ITEM.match(text or "")
        if text is None or m is None:
            continue  # dstack refuses the file (pydantic), not a launch to follow
        name, eq, after = text.partition("=")
        entries.append((name, after if eq else None, item))
    for name, node in _items(env_node):
        entries.append((name, _scalar(node), node))
    for name, value, node in entries:
        if name in given and value is None:
            env[name] = given[name]
        elif value is None:
            known = bool(given)
            result.findings.append(
                R.TP089.finding(
                    f"env: {name} has no value: `dstack apply` takes it from its own environment and refuses "
                    f'the run when it is not set there ("Environment variable {name} is not set")'
                    + ("" if known else "; that environment is not known here"),
                    at=_line(label, node),
                    severity=None if known else "info",
                    basis=None if known else "assumed",
                )
            )
            unknown[name] = "taken from the environment `dstack apply` runs in"
        elif _INTERPOLATION.search(value):
            unknown[name] = f"`{value}`, resolved by the dstack server when the run starts"
        else:
            env[name] = value
    for name in DSTACK_VARS:
        if name in given:
            env[name] = given[name]
        else:
            unknown[name] = "set by dstack on the node, from the instance it provisions"
    unknown.setdefault("PATH", "the image's PATH (and what an interactive shell's ~/.bashrc adds)")
    result.keep_secrets(env)
    image = _scalar(_get(root, "image"))
    written_shell = _scalar(_get(root, "shell"))
    if written_shell:
        shell = written_shell if written_shell.startswith("/") else "/bin/" + written_shell
    else:
        shell = "/bin/bash" if image is None else "/bin/sh"
    entrypoint = _scalar(_get(root, "entrypoint"))
    groups: list[tuple[str | None, Any]] = []
    for number, group in enumerate(_seq(_get(root, "replicas")) or []):
        if _get(group, "commands") is not None:
            groups.append((_scalar(_get(group, "name")) or f"replicas[{number}]", _get(group, "commands")))
    if not groups:
        groups.append((None, _get(root, "commands")))
    for group_name, commands_node in groups:
        hop: dict[str, Any] = {
            "at": _line(label, commands_node) if commands_node is not None else label,
            "via": "dstack",
            "type": _scalar(_get(root, "type")),
            "image": image,
            "shell": None if entrypoint else f"{shell} -i -c",
            "env": sorted({*env, *(n for n in unknown if n in {e[0] for e in entries})}),
        }
        if group_name:
            hop["replica_group"] = group_name
        result.hops.append(hop)
        items = [n for n in _seq(commands_node) or [] if _scalar(n) is not None]
        if entrypoint is not None:
            argv = [*shlex.split(entrypoint), *(_scalar(n) or "" for n in items)]
            node = _get(root, "entrypoint")
            text = "\n" * node.start_mark.line + shlex.join(argv) + "\n"
            hop["entrypoint"] = argv
        elif items:
            text = _joined(items)
            if not written_shell and image is not None:
                _bash_only_under_sh(label, image, items, result)
        else:
            if image is not None:
                result.findings.append(
                    R.TP090.finding(
                        f"`image: {image}` with no `commands:`: dstack runs the image's own ENTRYPOINT/CMD, "
                        "which argtrace does not read, so the server command is not known here",
                        at=_line(label, _get(root, "image")),
                    )
                )
            continue
        _run(label, text, shell, env, unknown, result, follow)
    return result


# bash builtins and keywords dash (Debian's and Ubuntu's /bin/sh) does not have (dash(1): `.` only)
_BASH_ONLY = ("source", "pushd", "popd", "shopt", "declare", "[[")


def _bash_only_under_sh(label: str, image: str, items: list[Any], result: TransportResult) -> None:
    """TP091: a command item that starts with a bash-only builtin, run by the image's /bin/sh."""
    from argtrace.rules import dstack as R

    for node in items:
        words = (_scalar(node) or "").split()
        if words and words[0] in _BASH_ONLY:
            result.findings.append(
                R.TP091.finding(
                    f"`{words[0]}` is bash's, but with `image: {image}` and no `shell:` dstack runs the "
                    f'commands with /bin/sh, dash on Debian/Ubuntu images: "{words[0]}: not found" (status '
                    "127), and no command after it in the `&&` list runs, the server included",
                    at=_line(label, node),
                    basis="assumed",
                    fix="Add `shell: bash`, or write `.` for `source`.",
                )
            )
            return


def _joined(items: list[Any]) -> str:
    """The ``-c`` string of ``_join_shell_commands``, with each command on its own line of the YAML file:
    a newline after ``&&`` continues the list, so the shell reads the same command."""
    text = ""
    for node in items:
        command = (_scalar(node) or "").strip()
        if command.endswith("&"):
            command = "{ " + command + " }"  # dstack: "escape background command"
        start = node.start_mark.line + (1 if node.style in ("|", ">") else 0)  # 0-based line of its text
        if text:
            text += " &&"
        text += "\n" * max(start - text.count("\n"), 0 if not text else 1) + command
    return text + "\n"


def _run(
    label: str,
    text: str,
    shell: str,
    env: Mapping[str, str],
    unknown: Mapping[str, str],
    result: TransportResult,
    follow: FollowScript | None,
) -> bool:
    from argtrace.layers.shell import ScriptSource, analyze_script

    source = ScriptSource(label=label, data=text.encode("utf-8", "surrogateescape"), path=None)
    shell_result = analyze_script(
        source, [], dict(env), arg0=shell, run_shellcheck=False, cwd=None, unknown_env=dict(unknown)
    )
    result.commands.extend(shell_result.commands)
    result.findings.extend(f for f in shell_result.findings if f.code != "SH019")
    servers = list(shell_result.servers)
    if follow is not None:
        carried = follow(source, shell_result, args=[], env=env)
        result.findings.extend(carried.findings)
        result.hops.extend(carried.hops)
        servers.extend(carried.servers)
    result.servers.extend(servers)
    return bool(servers)
