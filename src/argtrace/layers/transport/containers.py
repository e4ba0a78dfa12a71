"""Containers: ``docker run`` (also ``podman``), and the argv and environment of a container's process.

This module owns the entrypoints of well-known images (``IMAGE_ENTRYPOINTS``), entrypoint + command (TP010
when a launcher is appended to an image that already has one), exec-form argv that no shell runs (TP013),
and the servers of a container's process (its argv, or the script of a ``sh -c STRING``), which compose and
Kubernetes reuse. The ``docker run``/``docker exec`` command line is read by docker_cli.py, the
container's environment as docker/cli builds it (``--env-file`` in order, then ``-e``; TP016 for a refused
file, TP017 for a quoted value) by docker_env.py.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import replace

from argtrace.layers.shell.core import HOLE
from argtrace.layers.transport.command_names import _SHELLS, _basename
from argtrace.layers.transport.context import TransportResult, _Context
from argtrace.layers.transport.docker_cli import (
    DockerRun,
    options_after_image,
    parse_docker_exec,
    parse_docker_run,
)
from argtrace.layers.transport.docker_env import docker_environment
from argtrace.layers.transport.shells import _shell_c
from argtrace.layers.transport.words import _show, _show_argv
from argtrace.model import AssumedEntrypoint, EnvValue, Evidence, Origin, ServerCommand, VanishedWord, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell import ScriptSource
    from argtrace.layers.shell.holes import Holed
    from argtrace.layers.transport.wrapped import Wrapped


# Entrypoints of well-known images not in the generated table (layers/transport/images.py, which has
# vllm/vllm-openai and lmsysorg/sglang from their Dockerfiles): arguments after the image name (compose
# ``command:``, Kubernetes ``args:``) are appended to these.
IMAGE_ENTRYPOINTS: Mapping[str, tuple[str, ...]] = {
    "vllm/vllm-openai": ("vllm", "serve"),
    "vllm/vllm-openai-rocm": ("vllm", "serve"),
    "lmsysorg/sglang": (),
}


_EXEC_FORM_SHELL_WORDS = {"&&", "||", "|", ";", ">", ">>", "<", "2>&1", "&>", "&"}


def image_entrypoint(image: str, release: str | None = None) -> tuple[str, ...] | None:
    """The entrypoint of a well-known image, ``None`` when not known: the generated table first
    (images.py, per tag where known), then ``IMAGE_ENTRYPOINTS``."""
    from argtrace.layers.transport.images import image_entry, split_image

    entry = image_entry(image, release)
    if entry is not None:
        return entry.entrypoint
    return IMAGE_ENTRYPOINTS.get(split_image(image)[0])


def container_argv(
    image: str, entrypoint: Sequence[str] | None, command: Sequence[str] | None, release: str | None = None
) -> tuple[list[str], tuple[str, ...] | None]:
    """The process argv of a container: entrypoint (override or image's) + command; and the image's one
    (``release``: the one the user named, for a tag that names none)."""
    image_ep = image_entrypoint(image, release)
    ep = list(entrypoint) if entrypoint is not None else list(image_ep or ())
    return ep + list(command or ()), image_ep


def _entrypoint_findings(
    at: str,
    image: str,
    entrypoint: Sequence[str] | None,
    command: Sequence[str],
    result: TransportResult,
    *,
    how: str,
    release: str | None = None,
) -> AssumedEntrypoint | None:
    """TP040/TP044/TP010 for a container's entrypoint; the entrypoint TP044 assumed, for its servers."""
    from argtrace.layers.transport.images import image_entry
    from argtrace.rules import transport as R

    image_ep = image_entrypoint(image, release)
    entry = image_entry(image, release)
    assumed = None
    if entrypoint is None and command:
        assumed = _image_basis_findings(at, image, image_ep, entry, result)
    if (
        entrypoint is None
        and command
        and command[0].startswith("-")
        and (image_ep == () or (entry is not None and entry.exec_wrapper))
    ):
        _flag_as_program(at, image, image_ep, command, result, how=how)
        return assumed
    if entry is not None and entry.exec_wrapper:
        return assumed  # NVIDIA's entrypoint runs the command it is given: naming the launcher is right
    if entrypoint is not None or not image_ep or not command:
        return assumed
    first = _basename(command[0])
    repeats = list(command[: len(image_ep)]) == list(image_ep) or command[0] == image_ep[-1]
    # a shell too (`bash -c "vllm serve ..."`): appended to the image's launcher it is an argument
    launcher = first in ("vllm", "sglang", "python", "python3", *_SHELLS) or command[0].startswith("python")
    if repeats or launcher:
        final = [*image_ep, *command]
        result.findings.append(
            R.TP010.finding(
                f"{image} already has the entrypoint `{_show_argv(image_ep)}`; {how} is appended to it, "
                f"so the "
                f"container runs `{_show_argv(final[:8])}{' ...' if len(final) > 8 else ''}`"
                + (f" and {_show(command[0])} becomes the model name" if image_ep[-1:] == ("serve",) else ""),
                at=at,
                evidence=[Evidence("transport", at, _show_argv(command))],
            )
        )
    return assumed


def _flag_as_program(
    at: str,
    image: str,
    image_ep: Sequence[str] | None,
    command: Sequence[str],
    result: TransportResult,
    *,
    how: str,
) -> None:
    """TP045: the image has no entrypoint, or one that runs its arguments, and the command opens with a
    flag."""
    from argtrace.rules.wrappers import TP045

    runs = "it has no entrypoint"
    if image_ep:
        runs = f"its entrypoint `{_show_argv(image_ep)}` runs its arguments"
    result.findings.append(
        TP045.finding(
            f"{image}: {runs}, so {how} is the program: the container tries to run {_show(command[0])} as a "
            f'program and exits at once ("executable file not found"); no server starts',
            at=at,
            evidence=[Evidence("transport", at, _show_argv(command))],
        )
    )


def _image_basis_findings(
    at: str, image: str, image_ep: Sequence[str] | None, entry: Any, result: TransportResult
) -> AssumedEntrypoint | None:
    """TP040 once per image whose entrypoint is unknown; TP044 once per image whose entrypoint is assumed for
    its tag, and the assumption for every container that runs it (its servers carry it for the verdicts)."""
    from argtrace.rules.wrappers import TP040, TP044

    said = {f.message.split("`")[1] for f in result.findings if f.code in ("TP040", "TP044")}
    if image_ep is None and image not in said:
        result.findings.append(
            TP040.finding(
                f"`{image}`: its entrypoint is not known here, so the words after the image are read as the "
                "whole command; an ENTRYPOINT in the image would run before them",
                at=at,
            )
        )
    elif image_ep is not None and entry is not None and entry.others:
        shown = _show_argv(entry.entrypoint)
        if image not in said:
            result.findings.append(
                TP044.finding(f"`{image}`: entrypoint `{shown}` assumed from {entry.basis}", at=at)
            )
        return AssumedEntrypoint(at, image, shown)
    return None


def _exec_form_findings(
    at: str, words: Sequence[str], result: TransportResult, *, how: str, final: Sequence[str] = ()
) -> None:
    from argtrace.rules import transport as R

    if final and _basename(final[0]) in _SHELLS:
        return  # `sh -c STRING`: a shell does run, shell syntax is meant

    for word in words:
        if word in _EXEC_FORM_SHELL_WORDS or "$(" in word or _REFERENCE_IN.search(word):
            result.findings.append(
                R.TP013.finding(
                    f"{how} is an exec-form argv: no shell runs it, so {_show(word)} is passed to the "
                    f"program "
                    "as a literal argument",
                    at=at,
                    evidence=[Evidence("transport", at, _show_argv(words))],
                    fix=_exec_form_fix(
                        list(final) or list(words),
                        word,
                        compose=how.startswith("service "),
                        entrypoint=bool(final) and list(final) != list(words),
                    ),
                )
            )
            return


_REFERENCE = re.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$")
# a word that starts with a shell reference, or a flag whose value does (`--api-key=$KEY`): no shell turns
# it into the variable's value in an exec-form argv
_REFERENCE_IN = re.compile(r"^\$.|^-[^=$]*=\$\{?[A-Za-z_]")


def _exec_form_fix(words: Sequence[str], word: str, *, compose: bool, entrypoint: bool) -> str | None:
    """The fix for a `$NAME` item of an exec-form list, written for its carrier: compose runs no shell, so
    the whole command (``words``: the image's entrypoint and the list) goes through `sh -c` with the `$`
    doubled (compose's template turns `$$` into `$`), as the `entrypoint:` when the image has one (a
    `command:` would be its arguments); Kubernetes substitutes `$(NAME)` itself from the container's `env`
    (the Container API's "Variable references"). None (the rule's generic fix) for shell syntax other than
    one reference."""
    m = _REFERENCE.match(word)
    flag, eq, value = word.partition("=")
    inner = _REFERENCE.match(value) if m is None and eq and flag.startswith("-") else None
    if not compose and inner is not None:
        # `--api-key=$KEY`: the same substitution inside the word
        name = inner.group(1)
        return (
            f"Write `{flag}=$({name})` and give {name} in the container's `env`: Kubernetes (and Cloud Run) "
            "substitutes it before the start (a variable only the image sets stays literal)."
        )
    if m is None:
        return None
    if not compose:
        return (
            f"Write `$({m.group(1)})` and give {m.group(1)} in the container's `env`: Kubernetes substitutes "
            "it before the start (a variable only the image sets stays literal)."
        )
    script = " ".join(f'"{w}"' if w == word else shlex.quote(w) for w in words).replace("$", "$$")
    listed = json.dumps(["sh", "-c", f"exec {script}"])
    if entrypoint:
        return (
            f"Run the command through a shell, which expands {word} in the container: `entrypoint: {listed}` "
            "in place of the image's, and no `command:`."
        )
    return f"Run the command through a shell, which expands {word} in the container: `command: {listed}`."


def _server_from_argv(
    at: str,
    argv: Sequence[str],
    env: Mapping[str, str | None],
    expansion: str,
    origins: Mapping[str, Origin] | None = None,
    unknown: Mapping[int, tuple[str | None, str]] | None = None,
) -> ServerCommand | None:
    """``unknown``: the words of ``argv`` not known here, by index, each with the expansion as the script
    wrote it (None: not known) and why: the process gets a value argtrace cannot read, not the empty word
    ``argv`` holds for it."""
    from argtrace.frameworks.detect import detect_server

    detection = detect_server(list(argv))
    if detection is None:
        return None
    unknown = unknown or {}
    words = tuple(
        Word(None, Origin(at=at, expansion=unknown[k][0] or expansion, known=False, reason=unknown[k][1]))
        if k in unknown
        else Word(w, Origin(at=at, expansion=expansion))
        for k, w in enumerate(argv)
    )
    envs = {
        k: EnvValue(
            v,
            (origins or {}).get(k)
            or Origin(
                at=at,
                expansion=expansion,
                known=v is not None,
                reason=None if v is not None else "taken from the environment at run time",
            ),
        )
        for k, v in env.items()
    }
    for _index, name, value in detection.env_assignments:
        envs[name] = EnvValue(value, Origin(at=at, expansion="env"))
    interpreter = argv[detection.command_index] if detection.interpreter is not None else None
    return ServerCommand(
        at=at,
        framework=detection.framework,
        argv=words,
        env=envs,
        server_args_start=detection.server_args_start,
        entrypoint=detection.entrypoint,
        interpreter=interpreter,
        runner=detection.runner,
    )


def _image_path(
    env: Mapping[str, str | None], origins: Mapping[str, Origin] | None, at: str, image: str | None
) -> tuple[dict[str, str | None], dict[str, Origin]]:
    """The container's environment with the image's ``PATH`` when nothing else sets it: the image's
    ``ENV`` lines give it (docker and Kubernetes add a default only when the image has none), unknown here."""
    out, why = dict(env), dict(origins or {})
    if "PATH" not in out:
        name = image or "the image"
        out["PATH"] = None
        why["PATH"] = Origin(
            at=at, expansion=f"image {name}", known=False, reason=f"set by {name}'s ENV lines, not read here"
        )
    return out, why


def _tag_image(
    result: TransportResult, before: int, image: str | None, assumed: AssumedEntrypoint | None = None
) -> None:
    """The servers a container added since ``before`` run in ``image`` (its tag names the release), with
    the entrypoint assumed for it (TP044), if any."""
    if image:
        result.servers[before:] = [replace(s, image=image) for s in result.servers[before:]]
    if assumed is not None:
        result.servers[before:] = [replace(s, assumed_entrypoint=assumed) for s in result.servers[before:]]


def _image_started(
    at: str, image: str | None, env: Mapping[str, str | None], result: TransportResult, before: int
) -> None:
    """A container with no server start of its own whose image's program starts servers itself (GPUStack):
    the variables it hands them are checked (server_images.py)."""
    if len(result.servers) != before or not image:
        return
    from argtrace.layers.transport.server_images import check_image_env, server_image

    starts = server_image(image)
    if starts is not None:
        check_image_env(at, starts, env, result)


def _container_servers(
    at: str,
    argv: Sequence[str],
    env: Mapping[str, str | None],
    origins: Mapping[str, Origin] | None,
    expansion: str,
    result: TransportResult,
    vanished: tuple[VanishedWord, ...] = (),
    *,
    script_at: Mapping[str, str] | None = None,
    shell_as_written: bool = True,
    holed: Mapping[int, Holed] | None = None,
    unknown_words: Mapping[int, tuple[str | None, str]] | None = None,
) -> None:
    """Servers of a container's process: its argv, or the script of a ``sh -c STRING`` entrypoint (the
    pattern of vLLM's Kubernetes guide), analysed by the shell layer with the container's environment.
    ``vanished``: the words of the argv that expanded to nothing before the carrier handed it on (a local
    ``docker run``'s, compose's interpolation), numbered in ``argv``. ``script_at``: where in the carrier's
    file a string stands (``FILE:LINE:INDENT``), so that the script's findings point at the file's own
    characters. ``shell_as_written``: the ``sh -c`` is the user's (a manifest's ``command:``), not how
    argtrace stands for a session's own shell (tmux and screen type the keys into it): only then SH052.
    ``holed``: the words of ``argv`` the local shell knew but for some quoted expansions, by index (a
    ``docker run IMAGE bash -c "... --host $ip"``): the container's shell reads the rest of such a string.
    ``unknown_words``: the words of ``argv`` the local shell did not know at all, by index
    (``_unknown_words``)."""
    from argtrace.frameworks.detect import EXEC_ARGS_ENTRYPOINTS
    from argtrace.layers.shell import ScriptSource, analyze_script

    whole = argv
    # each word's holed text, moved with the word as the argv is cut below
    marks: list[Holed | None] = [(holed or {}).get(k) for k in range(len(argv))]
    # an entrypoint that runs its arguments (lmsysorg/sglang's nvidia_entrypoint.sh) before `bash -c STRING`
    # (a compose `command:` of sglang#4968): the shell is what it runs
    while len(argv) >= 4 and _basename(argv[0]) in EXEC_ARGS_ENTRYPOINTS:
        argv, marks = argv[1:], marks[1:]
    if len(argv) >= 3 and _basename(argv[0]) in _SHELLS:
        i = 1
        while i < len(argv) and argv[i] in ("-l", "--login", "-e", "-x", "-u", "-o", "pipefail"):
            i += 1
        # `bash -lc -- SCRIPT` (an OME runtime's `command: [/bin/bash, -lc, --]`): `--` ends the shell's
        # options, and the command string is the first word after it
        if i + 2 < len(argv) and argv[i] in ("-c", "-lc", "-ec", "-xc") and argv[i + 1] == "--":
            argv, marks = [*argv[: i + 1], *argv[i + 2 :]], [*marks[: i + 1], *marks[i + 2 :]]
        if i + 1 < len(argv) and argv[i] in ("-c", "-lc", "-ec", "-xc"):
            written_as: dict[str, str] = {}
            mark = marks[i + 1]
            holes: dict[str, str] = {}
            if mark is not None and not argv[i + 1] and mark[0] != HOLE:
                # the string is known but for some values the local shell computes (`"... --host $ip"`):
                # each stands in it as a variable of the container's shell whose value is not known
                from argtrace.layers.shell.holes import fill_holes

                text, holes, written_as = fill_holes(*mark)
                argv = [*argv[: i + 1], text, *argv[i + 2 :]]
            _shell_c(at, list(argv), result)
            known = {k: v for k, v in env.items() if v is not None}
            # set in the container but not known here (valueFrom, the image's ENV): set for the shell
            unknown: dict[str, str] = {}
            for k, v in env.items():
                if v is None:
                    origin = (origins or {}).get(k)
                    why = origin.reason if origin else None
                    unknown[k] = why or f"set in the {expansion}, not known here"
            label = f"<{expansion}>"
            data = argv[i + 1].encode("utf-8", "surrogateescape")
            file, line, indent = _file_place((script_at or {}).get(argv[i + 1]))
            if file is not None:
                # the script's characters are the file's: findings name the place the user edits
                pad = b" " * indent
                moved = b"\n".join(pad + ln if ln else ln for ln in data.split(b"\n"))
                label, data = file, b"\n" * (line - 1) + moved
            source = ScriptSource(label=label, data=data, path=None)
            shell = analyze_script(
                source,
                list(argv[i + 3 :]),
                known,
                arg0=argv[i + 2] if i + 2 < len(argv) else argv[0],
                run_shellcheck=False,
                cwd="/",
                unknown_env={**unknown, **holes},
            )
            if written_as:
                from argtrace.layers.shell.holes import as_written

                shell = as_written(shell, written_as)
            result.findings.extend(f for f in shell.findings if f.code != "SH019")
            if shell_as_written and _basename(argv[0]) in ("sh", "dash") and shell.servers:
                from argtrace.layers.shell.analysis import sh_script_bash_features

                features = sh_script_bash_features(
                    label,
                    data,
                    f"the {expansion}'s `{argv[0]} {argv[i]}`",
                    f"Run the script with `bash {argv[i]}` instead of `{argv[0]} {argv[i]}` (the SGLang and "
                    "vLLM images have bash).",
                )
                if features is not None:
                    result.findings.append(features)
            for inner in shell.servers:
                # Variables the shell could not be given (unknown: the image's PATH) stay unknown, not unset.
                missing = {
                    k: EnvValue(None, origin)
                    for k, origin in (origins or {}).items()
                    if env.get(k) is None and k not in inner.env and not origin.known
                }
                # what the shell inherited from the container keeps where the container got it (a Service
                # link the kubelet set is not "the caller's environment")
                kept = {
                    k: replace(v, origin=(origins or {})[k])
                    for k, v in inner.env.items()
                    if k in (origins or {}) and v.origin.expansion == "environment" and v.value == env.get(k)
                }
                merged = {**inner.env, **kept, **missing}
                result.servers.append(replace(inner, env=merged) if kept or missing else inner)
            return
    if holed:
        # no shell of the container runs such a string: it is one word of the argv, said as the script wrote
        # it (`${DP}` in it), not as the empty word the container reader holds for it
        whole = _shown(whole, {k: h for k, h in holed.items() if k not in (unknown_words or {})})
    server = _server_from_argv(at, whole, env, expansion, origins, unknown_words)
    if server is not None:
        result.servers.append(replace(server, vanished=vanished) if vanished else server)
        return
    from argtrace.layers.shell.lost import subcommand_finding

    # the container runs `sglang --model-path M` (the image's entrypoint runs its arguments): TP104; not
    # where the image's entrypoint is not known (TP040): it may take those words as its own arguments
    no_subcommand = subcommand_finding(list(whole), at, "transport")
    if no_subcommand is not None and not any(f.code == "TP040" for f in result.findings):
        result.findings.append(no_subcommand)


def _file_place(where: str | None) -> tuple[str | None, int, int]:
    """(file, line, indentation) of a ``FILE:LINE:INDENT`` place; (None, 0, 0) for none."""
    parts = (where or "").rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return None, 0, 0
    return parts[0], int(parts[1]), int(parts[2])


def _docker(
    at: str,
    argv: list[str | None],
    ctx: _Context,
    result: TransportResult,
    source: ScriptSource,
    ssh_host: str | None,
    *,
    wrapped: Wrapped | None = None,
    vanished: tuple[VanishedWord, ...] = (),
    moved: tuple[bool, str | None] = (False, None),
    holed: Mapping[int, Holed] | None = None,
) -> None:
    """``docker run`` (or ``docker exec``); ``moved``: whether the script changed directory before it, and
    where it went (None: not known), for the relative paths docker opens in its working directory;
    ``holed``: the words of ``argv`` known but for some quoted expansions, by index."""
    run = parse_docker_run(argv, holed)
    if run is None:
        _docker_exec(at, argv, ctx, result, source, ssh_host, wrapped, vanished, moved, holed)
        return
    final, image_ep = container_argv(run.image, run.entrypoint, run.args, ctx.release)
    # the words after the image are the local shell's: an unquoted `$MODEL` it expanded to nothing is a
    # word the container's process never gets, in the same place of the container's argv
    shift = len(final) - len(run.args) - run.args_start
    lost = tuple(replace(v, index=v.index + shift) for v in vanished if v.index >= run.args_start)
    # the holed words after the image, numbered in run.args and in the container's argv
    in_args = {k - run.args_start: h for k, h in (holed or {}).items() if k >= run.args_start}
    marks = {k + len(final) - len(run.args): h for k, h in in_args.items()}
    unknown = _unknown_words(run, in_args, len(final) - len(run.args))
    env, origins, files = docker_environment(at, run, ctx, result, source, ssh_host, wrapped, moved)
    hop: dict[str, Any] = {
        "at": at,
        "via": "docker run",
        **({"wrappers": list(wrapped.wrappers)} if wrapped is not None else {}),
        "image": run.image,
        "entrypoint": list(run.entrypoint)
        if run.entrypoint is not None
        else (list(image_ep) if image_ep is not None else None),
        "argv": _shown(final, marks),
    }
    if files:
        hop["env_files"] = [f.hop() for f in files]
    result.hops.append(hop)
    assumed = _entrypoint_findings(
        at,
        run.image,
        run.entrypoint,
        _shown(run.args, in_args),
        result,
        how="the command after the image name",
        release=ctx.release,
    )
    before = len(result.servers)
    # a script a `-v` bind brings from the host (`-v /tmp/serve.sh:/serve.sh --entrypoint bash IMAGE
    # /serve.sh`): its text is what the container's shell runs, read from the disk or, on a node, from what
    # the launch copied there (mounted.py)
    script_at: dict[str, str] | None = None
    if run.mounts and not (lost or marks or unknown):
        from argtrace.layers.transport.mounted import script_run

        def read(path: str) -> bytes | None:
            if ssh_host is not None:
                return ctx.uploads.get((ssh_host, path), (None, ""))[0]
            from argtrace.layers.transport.mounted import _read

            return _read(path)

        if (ran := script_run(final, run.mounts, read)) is not None:
            final, script_at = ran
            if ssh_host is not None:
                script_at = None  # the node's copy: no file of this machine to point at
    _container_servers(
        at,
        final,
        *_image_path(env, origins, at, run.image),
        "docker run",
        result,
        lost,
        script_at=script_at,
        holed=marks,
        unknown_words=unknown,
    )
    options_after_image(at, run, result, starts_server=len(result.servers) > before)
    if lost:
        from argtrace.layers.shell.vanished import vanished_after_flags

        for server in result.servers[before:]:
            result.findings.extend(vanished_after_flags(server, len(ctx.args)))
    _tag_image(result, before, run.image, assumed)
    if run.devices:  # the device files name the accelerator vendor (layers/device_env.py)
        result.servers[before:] = [replace(s, devices=run.devices) for s in result.servers[before:]]
    # how /dev/shm is set: NCCL keeps its segments between the ranks there (layers/container_shm.py)
    result.servers[before:] = [replace(s, container_shm=run.shm) for s in result.servers[before:]]
    _image_started(at, run.image, env, result, before)
    from argtrace.layers.transport.images import docker_gpus, gpus_refusal, runtime_visible_devices

    refused = gpus_refusal(run.gpus) if run.gpus is not None else None
    if refused is not None:
        _gpus_refused(at, run.gpus or "", refused, result)
        return
    # --gpus is docker's own device request; the variable decides only without it. A privileged container
    # has every host GPU whatever either asks (docker_cli.DockerRun.privileged), numbered as on the host:
    # how many the host has is not in the launch
    # a --gpus value not known here asks for GPUs all the same: how many is not known (no count)
    count = (
        None
        if run.gpus_unknown
        else docker_gpus(run.gpus, env)
        if run.gpus is not None
        else runtime_visible_devices(run.runtime, run.env)
    )
    if count is not None and not run.privileged:
        result.servers[before:] = [
            replace(s, gpus=count[0], gpus_from=count[1]) for s in result.servers[before:]
        ]


_SHELL_C = re.compile(r"-[a-z]*c[a-z]*")
# a variable read as it is (`$TP`, `${TP}`), not through a default of the script's (`${PORT:-30000}`)
_BARE_READ = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def running_environment(
    command: Sequence[str | None], env: dict[str, str | None], origins: dict[str, Origin], at: str, where: str
) -> None:
    """A command run in a running container (``docker exec``, ``kubectl exec``) gets that container's
    environment, which is not known here: a variable its ``sh -c``/``bash -c`` string reads and does not
    set (``bash -c 'vllm serve "$MODEL_ID" --tensor-parallel-size "$TP"'``) has a value there that argtrace
    does not know. It goes into ``env`` as unknown (it was read as unset: an empty model, SH026's "not set in
    the environment argtrace was given" about the pod's own variable). One the string reads only through a
    default of its own (``${PORT:-30000}``) keeps that default, the value its author expects there."""
    if not command or command[0] is None or _basename(command[0]) not in _SHELLS:
        return
    flag = next((k for k, w in enumerate(command[1:], 1) if w is not None and _SHELL_C.fullmatch(w)), None)
    if flag is None or flag + 1 >= len(command) or command[flag + 1] is None:
        return
    from argtrace.layers.shell.markdown import placeholders

    why = f"{where}'s environment, not known here"
    text = str(command[flag + 1])
    bare = {a or b for a, b in _BARE_READ.findall(text)}
    for name in placeholders(text.encode("utf-8", "surrogateescape"), why):
        if name in bare and name not in env:
            env[name] = None
            origins[name] = Origin(at=at, expansion=f"${name}", known=False, reason=why)


def _docker_exec(
    at: str,
    argv: list[str | None],
    ctx: _Context,
    result: TransportResult,
    source: ScriptSource,
    ssh_host: str | None,
    wrapped: Wrapped | None,
    vanished: tuple[VanishedWord, ...],
    moved: tuple[bool, str | None],
    holed: Mapping[int, Holed] | None = None,
) -> None:
    """``docker exec CONTAINER CMD...``: CMD runs in the running container as written (no entrypoint), so
    its server is read like a container's process; the container's own environment (its image and its
    ``docker run``) is not known here, only ``-e`` and ``--env-file``."""
    run = parse_docker_exec(argv, holed)
    if run is None:
        return
    lost = tuple(replace(v, index=v.index - run.args_start) for v in vanished if v.index >= run.args_start)
    marks = {k - run.args_start: h for k, h in (holed or {}).items() if k >= run.args_start}
    env, origins, files = docker_environment(at, run, ctx, result, source, ssh_host, wrapped, moved)
    hop: dict[str, Any] = {
        "at": at,
        "via": "docker exec",
        **({"wrappers": list(wrapped.wrappers)} if wrapped is not None else {}),
        "container": run.image,
        "argv": _shown(run.args, marks),
        "environment": "the container's own (its image and `docker run`) is not known here; -e and "
        "--env-file are added to it",
    }
    if files:
        hop["env_files"] = [f.hop() for f in files]
    result.hops.append(hop)
    env, origins = dict(env), dict(origins)
    if "PATH" not in env:
        # the running container's PATH (its image's ENV, its docker run): set, but not known here
        env["PATH"] = None
        origins["PATH"] = Origin(
            at=at,
            expansion=f"container {run.image}",
            known=False,
            reason=f"the running container {run.image}'s, not known here",
        )
    running_environment(run.args, env, origins, at, f"the running container {run.image}")
    _container_servers(
        at,
        tuple(run.args),
        env,
        origins,
        f"docker exec {run.image}",
        result,
        lost,
        holed=marks,
        unknown_words=_unknown_words(run, marks, 0),
    )


def _unknown_words(
    run: DockerRun, holed: Mapping[int, Holed], shift: int
) -> dict[int, tuple[str | None, str]]:
    """The words after the image (or the exec'd container) the local shell did not know at all, numbered in
    the container's argv (``shift``: the entrypoint's words before them), with the expansion as written
    (where the shell kept it) and why: each is a value not
    known here (``--model-path "$MODEL"`` on a page that leaves MODEL to its reader), not the empty word the
    reader holds for it (an argparse refusal of ``''``). A word known but for some expansions (``"node-$i"``,
    a ``bash -c`` string) keeps its holed text."""
    out: dict[int, tuple[str | None, str]] = {}
    for k in run.unknown_args:
        mark = holed.get(k)
        if mark is not None and mark[0] != HOLE:
            continue
        written, reason = mark[1][0] if mark is not None and mark[1] else (None, None)
        out[k + shift] = (written, reason or "the local shell's value, not known statically")
    return out


def _shown(argv: Sequence[str], holed: Mapping[int, Holed]) -> list[str]:
    """A hop's argv: a word known but for some expansions is shown with them as the script wrote them
    (``--host $ip``), not as the empty word the container reader holds for it."""
    if not holed:
        return list(argv)
    from argtrace.layers.shell.holes import shown_as_written

    return [shown_as_written(holed[k]) if k in holed and not w else w for k, w in enumerate(argv)]


def _gpus_refused(at: str, value: str, refused: str, result: TransportResult) -> None:
    """TP024: docker refuses the ``--gpus`` value (``images.gpus_refusal``): the container never starts."""
    from argtrace.rules import transport as R

    ids = value.partition("device=")[2]
    quoted = f"'\"device={ids}\"'" if ids and "," in ids and '"' not in value else None
    first, _, rest = ids.partition(",")
    counted = f", so `{rest}` after `device={first}` is read as a GPU count" if quoted else ""
    result.findings.append(
        R.TP024.finding(
            f"`--gpus {value}`: docker reads the value as comma-separated fields{counted}"
            + f', and refuses it ("{refused}"): the container never starts',
            at=at,
            evidence=[Evidence("transport", at, f"--gpus {value}")],
            fix=f"Write `--gpus {quoted}`: the double quotes reach docker and keep the list one field."
            if quoted
            else None,
        )
    )
