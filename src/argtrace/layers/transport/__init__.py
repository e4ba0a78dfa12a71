"""The transport layer: how a command travels to the process that finally runs it.

This package owns the layer's two entry points and the dispatcher between the carriers:

* :func:`analyze_transport` takes what the shell layer predicted for a script or ``-c`` command and follows
  every command in it that carries another command somewhere (``_follow``/``_dispatch``, here); the
  remote command, an uploaded script and a container's ``sh -c`` are analysed with the shell layer again,
  so their server starts become :class:`~argtrace.model.ServerCommand` s like any other.
* :func:`~argtrace.layers.transport.manifest_read.analyze_manifest` (with ``manifest_kind``) reads a docker
  compose file or Kubernetes manifest (``argtrace check compose.yaml --service NAME`` / ``pod.yaml
  --container NAME``) into server commands.

One module per carrier, dependencies one way (each imports only those above it; the carriers call back
into the dispatcher through ``ctx.follow``, never by import):

* ``words`` (showing and reading words), ``context`` (:class:`TransportResult`, the per-script context),
  ``sshcall`` (ssh's command line and the node's session environment), ``envfiles`` (docker and compose
  env files, compose interpolation), ``yamlnodes`` (YAML with line numbers), ``render`` (the text view);
* ``shells`` (``bash -c``, ``sudo``), ``uploads`` (here-documents on ssh's stdin, ``scp``/``rsync``,
  uploaded scripts run on the node), ``ssh`` (the ssh hop), ``containers`` (``docker run``, a container's
  argv and environment), ``sessions`` (tmux, screen), ``compose``, ``kubernetes``, ``manifests``,
  ``interpreters`` (``--host``: the node's interpreter, TP015), ``images`` (official images' effective
  ENTRYPOINT, ``--gpus``), ``k8s_pod`` (service links, GPU limits), ``wrapped`` (``sudo``/``env``/``nohup``...
  in front of ``docker run``: the docker client's environment), ``server_images`` (images whose program
  starts the server itself, GPUStack: the container variables that reach it), ``systemd_syntax`` and
  ``systemd`` (a systemd service unit), ``skypilot`` (a SkyPilot task YAML), ``dockerfile_syntax`` and
  ``dockerfile`` (a Dockerfile), ``quadlet`` (a Podman ``.container`` file), ``workflow`` (a GitHub Actions
  workflow or composite action), ``dstack`` (a dstack run configuration), ``configmaps`` (a manifest's
  ConfigMaps as a container's ``envFrom``/``configMapKeyRef``), ``python_launch`` over ``python_source``,
  ``python_values`` and ``python_fields`` (a Python program or notebook read with ``ast``: the shell
  commands its calls amount to, which ``check.py`` hands the shell layer).

Nothing here runs a shell, ssh or docker: bash semantics come from the shell layer, argv recognition from
``frameworks/detect.py``; this package only knows what ssh, sudo, docker, compose, Kubernetes, systemd,
SkyPilot, Dockerfiles, quadlets, GitHub Actions and dstack do to argv.
The names other code imports (``from argtrace.layers.transport import ...``) are re-exported here, each
carrier's module imported on first use (``_LAZY``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace

from argtrace.layers.transport.command_names import _SHELLS, _basename, _split_at
from argtrace.layers.transport.context import Follow, TransportResult, _Context, _scrubbed
from argtrace.layers.transport.interpreters import _check_node_interpreters

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell import ScriptSource, ShellResult
    from argtrace.layers.shell.holes import Holed
    from argtrace.layers.transport.containers import (
        IMAGE_ENTRYPOINTS,
        container_argv,
        image_entrypoint,
    )
    from argtrace.layers.transport.docker_cli import DockerRun, parse_docker_run
    from argtrace.layers.transport.envfiles import (
        _ABSENT,
        MAX_ENV_FILE_BYTES,
        EnvFile,
        compose_interpolate,
        parse_compose_env_file,
        parse_docker_env_file,
        read_dotenv,
        read_env_file,
    )
    from argtrace.layers.transport.kubernetes import k8s_expand
    from argtrace.layers.transport.manifest_read import analyze_manifest, manifest_selection
    from argtrace.layers.transport.manifests import (
        hcl_not_a_launch,
        json_not_a_launch,
        manifest_kind,
        windows_script_not_a_launch,
        yaml_not_a_launch,
    )
    from argtrace.layers.transport.render import render_transport_section
    from argtrace.layers.transport.sshcall import SSHD_PATH, SshCall, parse_ssh
    from argtrace.layers.transport.words import _Located, _show
    from argtrace.model import VanishedWord

# The re-exported names of the carriers, imported on first use: a plain script needs none of the docker,
# compose, Kubernetes, YAML or ssh modules (start-up, issue 18).
_LAZY = {
    **dict.fromkeys(
        ("IMAGE_ENTRYPOINTS", "container_argv", "image_entrypoint"),
        "containers",
    ),
    **dict.fromkeys(("DockerRun", "parse_docker_run"), "docker_cli"),
    **dict.fromkeys(
        (
            "_ABSENT",
            "MAX_ENV_FILE_BYTES",
            "EnvFile",
            "compose_interpolate",
            "parse_compose_env_file",
            "parse_docker_env_file",
            "read_dotenv",
            "read_env_file",
        ),
        "envfiles",
    ),
    "k8s_expand": "kubernetes",
    **dict.fromkeys(("analyze_manifest", "manifest_selection"), "manifest_read"),
    **dict.fromkeys(
        (
            "manifest_kind",
            "yaml_not_a_launch",
            "hcl_not_a_launch",
            "json_not_a_launch",
            "windows_script_not_a_launch",
        ),
        "manifests",
    ),
    "render_transport_section": "render",
    "_show": "words",
    **dict.fromkeys(("SSHD_PATH", "SshCall", "parse_ssh"), "sshcall"),
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "IMAGE_ENTRYPOINTS",
    "MAX_ENV_FILE_BYTES",
    "SSHD_PATH",
    "_ABSENT",
    "DockerRun",
    "EnvFile",
    "Follow",
    "SshCall",
    "TransportResult",
    "_show",
    "analyze_manifest",
    "analyze_transport",
    "compose_interpolate",
    "container_argv",
    "hcl_not_a_launch",
    "image_entrypoint",
    "json_not_a_launch",
    "k8s_expand",
    "manifest_kind",
    "manifest_selection",
    "parse_compose_env_file",
    "parse_docker_env_file",
    "parse_docker_run",
    "parse_ssh",
    "read_dotenv",
    "read_env_file",
    "render_transport_section",
    "windows_script_not_a_launch",
    "yaml_not_a_launch",
]


# the commands whose stdout in a file argtrace follows (handoff.note_write)
_WRITERS = frozenset({"cat", "tee", "envsubst"})


def analyze_transport(
    source: ScriptSource,
    shell: ShellResult,
    *,
    args: Sequence[str],
    env: Mapping[str, str],
    arg0: str | None = None,
    release: str | None = None,
) -> TransportResult:
    """Follow every ssh/scp/rsync/docker command the shell layer predicted in ``source``; ``release`` is the
    framework release the user named, for images whose tag names none."""
    ctx = _Context(list(args), dict(env), arg0 or source.label, _follow, release=release)
    result = TransportResult()
    _follow(source, shell, ctx, result, local_shell=True)
    _check_node_interpreters(shell.servers, result)
    return _scrubbed(result, env)


def _follow(
    source: ScriptSource,
    shell: ShellResult,
    ctx: _Context,
    result: TransportResult,
    *,
    local_shell: bool,
    ssh_host: str | None = None,
) -> None:
    from argtrace.layers.shell import evaluate as E
    from argtrace.layers.shell.syntax import parse_tree

    interesting = {"ssh", "autossh", "scp", "rsync"}
    needs_source = any(argv and _basename(argv[0]) in interesting for _at, argv, _c in shell.commands)
    prepared = E.prepare_text(source.data.decode("latin-1")) if needs_source else ""
    tree = parse_tree(prepared) if needs_source else None
    for at, argv, _condition in shell.commands:
        if argv and argv[0] in ("export", "declare", "typeset") and (where := _split_at(at)):
            ctx.export_lines.add((where[0], where[1]))
    written: dict[str, Any] = {}  # the files the script wrote from here-documents so far (handoff.py)
    for number, (at, argv, _condition) in enumerate(shell.commands):
        if not argv:
            continue
        base = _basename(argv[0])
        io = shell.command_io[number] if number < len(shell.command_io) else None
        if ssh_host is None and (base in _HAND_OFF_PROGRAMS or (io is not None and base in _WRITERS)):
            # a launch file the script writes, then hands to kubectl/podman (start-up: imported only then)
            from argtrace.layers.transport.handoff import follow_hand_off, hand_off, note_write

            moved = shell.command_dirs[number] if number < len(shell.command_dirs) else (False, None)
            cwd = moved[1] if moved[1] is not None else ("/<unknown directory>" if moved[0] else os.getcwd())
            note_write(written, io, argv, cwd)
            if (found := hand_off(argv)) is not None:
                env = shell.command_env[number] if number < len(shell.command_env) else None
                follow_hand_off(at, found, io, env, cwd, written, ctx, result, source, analyze_transport)
                continue
        if (
            tree is None
            and ssh_host is None
            and base not in _DISPATCHED
            and not any(w is not None and w.endswith(_CONTAINER_ENDINGS) for w in argv[1:])
        ):
            continue  # what _dispatch gives such a command: _wrapped, which finds no container program
        vanished = shell.command_vanished[number] if number < len(shell.command_vanished) else ()
        moved = shell.command_dirs[number] if number < len(shell.command_dirs) else (False, None)
        located: _Located | None = None
        where = _split_at(at) if tree is not None else None
        if tree is not None and where is not None and where[0] == source.label:
            from argtrace.layers.transport.words import _locate  # (a carrier's command only: code35)

            located = _locate(prepared, tree, where[1], where[2])
            if located is not None and located.heredoc is not None and io is not None and io.stdin_line:
                located.expanded = (io.stdin,)
            if located is not None and io is not None and io.piped_from is not None:
                located.piped_from, located.piped = io.piped_from, io.stdin
        # the words known but for some quoted expansions (layers/shell/holes.py), for the carriers that hand
        # such a string to another shell (ssh, a container's `bash -c`)
        holed = {i: (text, holes) for i, text, holes in shell.command_holed.get(number, ())}
        if located is not None:
            located.holed = holed
        before = len(result.servers)
        try:
            _dispatch(at, base, argv, located, ctx, result, source, ssh_host, vanished, moved, holed, written)
            if number < len(shell.command_background) and shell.command_background[number]:
                # a carrier started with `&` (`docker run ... &`): its server runs while the script goes on
                result.servers[before:] = [replace(s, backgrounded=True) for s in result.servers[before:]]
        except Exception as exc:  # one command argtrace cannot follow must not sink the whole report
            if os.environ.get("ARGTRACE_DEBUG"):
                raise
            result.hops.append({"at": at, "via": base, "error": f"{type(exc).__name__}: {exc}"})


def _dispatch(
    at: str,
    base: str,
    argv: list[str | None],
    located: _Located | None,
    ctx: _Context,
    result: TransportResult,
    source: ScriptSource,
    ssh_host: str | None,
    vanished: tuple[VanishedWord, ...] = (),
    moved: tuple[bool, str | None] = (False, None),
    holed: Mapping[int, Holed] | None = None,
    written: Mapping[str, Any] | None = None,
) -> None:
    # each carrier's module is imported when a command of its kind is met (start-up, issue 18)
    if base in ("ssh", "autossh"):
        from argtrace.layers.transport.ssh import _ssh

        _ssh(at, argv, located, ctx, result, source)
    elif base in ("scp", "rsync"):
        from argtrace.layers.transport.uploads import _copy

        _copy(at, argv, ctx, result, written)
    elif base in ("docker", "podman", "nvidia-docker", "nerdctl"):
        from argtrace.layers.transport.containers import _docker

        _docker(at, argv, ctx, result, source, ssh_host, vanished=vanished, moved=moved, holed=holed)
    elif base in _SHELLS:
        from argtrace.layers.transport.shells import _shell_c

        _shell_c(at, argv, result)
        if ssh_host is not None:
            from argtrace.layers.transport.uploads import _run_uploaded

            _run_uploaded(at, argv, ctx, result, ssh_host)
    elif base == "sudo":
        from argtrace.layers.transport.shells import _sudo

        _sudo(at, argv, result)
        _wrapped(at, argv, ctx, result, source, ssh_host, vanished, moved, holed)
    elif base in ("kubectl", "oc") and "exec" in argv:
        from argtrace.layers.transport.kube_exec import follow_kube_exec

        follow_kube_exec(at, argv, result, holed)
    elif base == "gcloud":
        from argtrace.layers.transport.gcloud_run import follow_run_deploy

        follow_run_deploy(at, argv, result)
    elif base in ("tmux", "screen"):
        from argtrace.layers.transport.sessions import _session_manager

        _session_manager(at, base, argv, ctx, result, source)
    elif ssh_host is not None and argv[0] is not None and (ssh_host, argv[0]) in ctx.uploads:
        from argtrace.layers.transport.uploads import _run_uploaded

        _run_uploaded(at, ["bash", *argv], ctx, result, ssh_host)
    else:
        _wrapped(at, argv, ctx, result, source, ssh_host, vanished, moved, holed)


# the programs handoff.py reads a launch file for (`kubectl apply -f`, `podman kube play`, `compose up`)
_HAND_OFF_PROGRAMS = frozenset({"kubectl", "oc", "podman", "docker", "docker-compose", "podman-compose"})

# wrapped.py's CONTAINER_PROGRAMS, repeated so that a command without one imports nothing
_CONTAINER_PROGRAMS = frozenset({"docker", "podman", "nvidia-docker", "nerdctl"})
_CONTAINER_ENDINGS = tuple(_CONTAINER_PROGRAMS)
# the first words _dispatch gives a branch of its own; any other goes to _wrapped (without an ssh host)
_DISPATCHED = frozenset(
    {"ssh", "autossh", "scp", "rsync", "sudo", "gcloud", "tmux", "screen", "kubectl", "oc"}
    | _CONTAINER_PROGRAMS
    | _SHELLS
)


def _wrapped(
    at: str,
    argv: list[str | None],
    ctx: _Context,
    result: TransportResult,
    source: ScriptSource,
    ssh_host: str | None,
    vanished: tuple[VanishedWord, ...] = (),
    moved: tuple[bool, str | None] = (False, None),
    holed: Mapping[int, Holed] | None = None,
) -> None:
    """A container launch behind command wrappers (``sudo docker run``, ``nohup timeout 2h podman run``):
    read like a bare one, with the docker client's environment as the wrappers leave it (wrapped.py)."""
    if not any(
        # every container program's name ends so: the endswith test spares most words their split
        w is not None and w.endswith(_CONTAINER_ENDINGS) and _basename(w) in _CONTAINER_PROGRAMS
        for w in argv[1:]
    ):
        return  # most commands: no container program anywhere, nothing to unwrap (start-up, issue 18)
    from argtrace.layers.transport.wrapped import find_wrapped_carrier

    wrapped = find_wrapped_carrier(argv)
    if wrapped is None:
        return
    from argtrace.layers.transport.containers import _docker

    shifted = tuple(replace(v, index=v.index - wrapped.start) for v in vanished if v.index >= wrapped.start)
    rest = argv[wrapped.start :]
    marks = {k - wrapped.start: h for k, h in (holed or {}).items() if k >= wrapped.start}
    _docker(
        at, rest, ctx, result, source, ssh_host, wrapped=wrapped, vanished=shifted, moved=moved, holed=marks
    )
