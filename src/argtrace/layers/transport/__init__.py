"""The transport layer: how a command travels to the process that finally runs it.

Entry points (see ``docs``/the lead's ``check.py`` wiring):

* :func:`analyze_transport` takes what the shell layer predicted for a script or ``-c`` command and follows
  every ``ssh``/``scp``/``rsync``/``docker run`` in it: which expansions the *local* shell already did,
  how ssh joins its arguments with spaces for the node's shell to split again, ``bash -c`` that keeps only
  its first word, ``sudo``, backgrounding over ssh, the non-interactive environment, here-document uploads
  (what ``cat > f <<EOF`` really wrote), CRLF files copied with ``scp``, and an image's entrypoint in front
  of the container's arguments. The remote command itself is analysed with the shell layer, so its server
  starts become :class:`~argtrace.model.ServerCommand` s like any other.
* :func:`manifest_kind` / :func:`analyze_manifest` read a docker compose file or Kubernetes manifest
  (``argtrace check compose.yaml --service NAME`` / ``pod.yaml --container NAME``) into server commands.

Nothing here runs a shell, ssh or docker: bash semantics come from the shell layer, argv recognition from
``frameworks/detect.py``; this module only knows what ssh, sudo, docker, compose and Kubernetes do to argv.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from argtrace.layers.transport.context import Follow, TransportResult, _Context, _scrubbed
from argtrace.layers.transport.envfiles import (
    _ABSENT,
    MAX_ENV_FILE_BYTES,
    EnvFile,
    _env_text,
    compose_interpolate,
    parse_compose_env_file,
    parse_docker_env_file,
    read_dotenv,
    read_env_file,
)
from argtrace.layers.transport.interpreters import _check_node_interpreters
from argtrace.layers.transport.render import render_transport_section
from argtrace.layers.transport.shells import _shell_c, _sudo
from argtrace.layers.transport.ssh import _ssh
from argtrace.layers.transport.sshcall import SSHD_PATH, SshCall, parse_ssh
from argtrace.layers.transport.uploads import _copy, _run_uploaded
from argtrace.layers.transport.words import (
    _SHELLS,
    _basename,
    _locate,
    _Located,
    _show,
    _show_argv,
    _split_at,
)
from argtrace.layers.transport.yamlnodes import _get, _items, _line, _load_yaml_nodes, _scalar, _seq
from argtrace.model import EnvValue, Evidence, Origin, ServerCommand, Word

if TYPE_CHECKING:
    from argtrace.layers.shell import ScriptSource, ShellResult

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
    "image_entrypoint",
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
]


# ------------------------------------------------------------------------------------------------ tables

# Entrypoints of well-known images (``docker inspect -f '{{json .Config.Entrypoint}}' IMAGE``). Arguments
# after the image name (compose ``command:``, Kubernetes ``args:``) are appended to these.
#   vllm/vllm-openai: vLLM's docker/Dockerfile final stage, ``ENTRYPOINT ["vllm", "serve"]`` (current
#     releases); older tags used ``python3 -m vllm.entrypoints.openai.api_server`` (same effect here: a
#     repeated ``vllm serve`` is not accepted).
#   lmsysorg/sglang: no entrypoint; the command must name the launcher (``python3 -m sglang.launch_server``).
IMAGE_ENTRYPOINTS: Mapping[str, tuple[str, ...]] = {
    "vllm/vllm-openai": ("vllm", "serve"),
    "vllm/vllm-openai-rocm": ("vllm", "serve"),
    "lmsysorg/sglang": (),
}


_EXEC_FORM_SHELL_WORDS = {"&&", "||", "|", ";", ">", ">>", "<", "2>&1", "&>", "&"}

_DOCKER_BOOL = {
    "-d", "--detach", "-i", "--interactive", "-t", "--tty", "--rm", "--privileged", "--init", "-P",
    "--publish-all", "--read-only", "--no-healthcheck", "--oom-kill-disable", "--sig-proxy",
    "--disable-content-trust", "-q", "--quiet", "--use-api-socket",
}  # fmt: skip


# ------------------------------------------------------------------------------------------------ result


# ---------------------------------------------------------------------------------------------- helpers


# ------------------------------------------------------------------------------------------------- ssh


# --------------------------------------------------------------------------------------------- analysis


def analyze_transport(
    source: ScriptSource,
    shell: ShellResult,
    *,
    args: Sequence[str],
    env: Mapping[str, str],
    arg0: str | None = None,
) -> TransportResult:
    """Follow every ssh/scp/rsync/docker command the shell layer predicted in ``source``."""
    ctx = _Context(list(args), dict(env), arg0 or source.label, _follow)
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
        if not argv:
            continue
        base = _basename(argv[0])
        located: _Located | None = None
        where = _split_at(at)
        if tree is not None and where is not None and where[0] == source.label:
            located = _locate(prepared, tree, where[1], where[2])
        try:
            _dispatch(at, base, argv, located, ctx, result, source, ssh_host)
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
) -> None:
    if base in ("ssh", "autossh"):
        _ssh(at, argv, located, ctx, result, source)
    elif base in ("scp", "rsync"):
        _copy(at, argv, ctx, result)
    elif base in ("docker", "podman", "nvidia-docker"):
        _docker(at, argv, ctx, result, source, ssh_host)
    elif base in _SHELLS:
        _shell_c(at, argv, result)
        if ssh_host is not None:
            _run_uploaded(at, argv, ctx, result, ssh_host)
    elif base == "sudo":
        _sudo(at, argv, result)
    elif base in ("tmux", "screen"):
        _session_manager(at, base, argv, ctx, result, source)
    elif ssh_host is not None and argv[0] is not None and (ssh_host, argv[0]) in ctx.uploads:
        _run_uploaded(at, ["bash", *argv], ctx, result, ssh_host)


# ----------------------------------------------------------------------------------------------- uploads


# --------------------------------------------------------------------------------------- bash -c, sudo


# ---------------------------------------------------------------------------------------- tmux, screen

_TMUX_NEW = {"new-session": "new-session", "new": "new-session", "new-window": "new-window",
             "neww": "new-window", "split-window": "split-window", "splitw": "split-window",
             "respawn-pane": "respawn-pane", "respawnp": "respawn-pane", "respawn-window": "respawn-window",
             "respawnw": "respawn-window"}  # fmt: skip
_TMUX_WITH_VALUE = set("cefFlnstxyp")
_SCREEN_WITH_VALUE = {"-S", "-c", "-e", "-h", "-p", "-T", "-t", "-Logfile", "-X"}
_ENTER_KEYS = {"Enter", "C-m", "KPEnter", "C-j"}
_EXPORT = re.compile(r"(?m)^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=")


def _session_manager(
    at: str, base: str, argv: list[str | None], ctx: _Context, result: TransportResult, source: ScriptSource
) -> None:
    """``tmux new -d 'CMD'``, ``tmux send-keys -t S 'CMD' Enter``, ``screen -dmS S CMD ARGS``: the command
    runs inside the session; with tmux, in the environment of the tmux *server* (TP014)."""
    from argtrace.rules import transport as R

    words = [w for w in argv]
    if any(w is None for w in words):
        return
    known = [w or "" for w in words]
    inner: list[str] | None = None
    how = base
    env_flags: list[str] = []
    if base == "tmux":
        i = 1
        while i < len(known) and known[i].startswith("-"):  # tmux's own options (-L socket, -f conf)
            i += 2 if known[i] in ("-L", "-S", "-f", "-T") else 1
        if i >= len(known):
            return
        sub = known[i]
        rest = known[i + 1 :]
        if sub in _TMUX_NEW:
            how = f"tmux {_TMUX_NEW[sub]}"
            j = 0
            while j < len(rest) and rest[j].startswith("-") and rest[j] != "--":
                letters = rest[j][1:]
                takes = next((k for k, c in enumerate(letters) if c in _TMUX_WITH_VALUE), None)
                if takes is not None:
                    value = letters[takes + 1 :] or (rest[j + 1] if j + 1 < len(rest) else "")
                    if letters[takes] == "e":
                        env_flags.append(value)
                    j += 1 if letters[takes + 1 :] else 2
                else:
                    j += 1
            if j < len(rest) and rest[j] == "--":
                j += 1
            command = rest[j:]
            if not command:
                return
            inner = ["sh", "-c", command[0]] if len(command) == 1 else command
        elif sub in ("send-keys", "send"):
            how = "tmux send-keys"
            j = 0
            while j < len(rest) and rest[j].startswith("-") and len(rest[j]) > 1:
                j += 2 if rest[j] in ("-t", "-N") else 1
            keys = rest[j:]
            if not keys or keys[-1] not in _ENTER_KEYS:
                return
            inner = ["sh", "-c", "".join(keys[:-1])]
        else:
            return
    else:
        i = 1
        while i < len(known) and known[i].startswith("-"):
            opt = known[i]
            if opt in _SCREEN_WITH_VALUE or (opt[1:2] and opt[-1] in "Sc" and len(opt) > 2 and opt[1] != "-"):
                i += 2
            else:
                i += 1
        inner = known[i:]
        if not inner:
            return
        how = "screen"
    if inner is None:
        return
    before = len(result.servers)
    _container_servers(at, inner, dict(ctx.env), None, how, result)
    result.hops.append({"at": at, "via": how, "argv": inner})
    if base != "tmux" or len(result.servers) == before:
        return
    text = source.data.decode("utf-8", "replace")
    where = _split_at(at)
    upto = "\n".join(text.split("\n")[: where[1] - 1]) if where else text
    exported = [
        n for n in dict.fromkeys(_EXPORT.findall(upto)) if n not in {e.split("=", 1)[0] for e in env_flags}
    ]
    if exported:
        result.findings.append(
            R.TP014.finding(
                f"{how} runs the server in the environment of the tmux server, not of this shell: "
                "when a tmux "
                f"server is already running, {', '.join(exported)} exported here do not reach it",
                at=at,
                evidence=[Evidence("transport", at, _show_argv(known))],
            )
        )


# ------------------------------------------------------------------------------------------------ docker


@dataclass
class DockerRun:
    image: str
    entrypoint: tuple[str, ...] | None  # --entrypoint override ("" clears it)
    args: list[str]
    env: dict[str, str | None]  # None: taken from the caller's environment (-e NAME)
    env_files: list[str]


def parse_docker_run(argv: Sequence[str | None]) -> DockerRun | None:
    words = list(argv)
    i = 1
    if i < len(words) and words[i] == "container":
        i += 1
    if i >= len(words) or words[i] != "run":
        return None
    i += 1
    entrypoint: tuple[str, ...] | None = None
    env: dict[str, str | None] = {}
    env_files: list[str] = []
    while i < len(words):
        w = words[i]
        if w is None:
            return None
        if w == "--":
            i += 1
            break
        if not w.startswith("-") or w == "-":
            break
        name, eq, inline = w.partition("=")
        if name.startswith("--"):
            if name in _DOCKER_BOOL:
                i += 1
                continue
            value = inline if eq else (words[i + 1] if i + 1 < len(words) else None)
            i += 1 if eq else 2
        else:
            # -it, -dit: flags; -e X / -eX / -v X: a value
            letters = w[1:]
            value = None
            for k, letter in enumerate(letters):
                if f"-{letter}" in _DOCKER_BOOL:
                    continue
                value = letters[k + 1 :] or (words[i + 1] if i + 1 < len(words) else None)
                if not letters[k + 1 :]:
                    i += 1
                name = f"-{letter}"
                break
            i += 1
            if value is None:
                continue
        if value is None:
            return None
        if name in ("-e", "--env"):
            key, has, val = value.partition("=")
            env[key] = val if has else None
        elif name == "--env-file":
            env_files.append(value)
        elif name == "--entrypoint":
            entrypoint = tuple(shlex.split(value)) if value else ()
    if i >= len(words) or words[i] is None:
        return None
    return DockerRun(words[i] or "", entrypoint, [w or "" for w in words[i + 1 :]], env, env_files)


def image_entrypoint(image: str) -> tuple[str, ...] | None:
    """The entrypoint of a well-known image (tag and registry ignored), ``None`` when not in the table."""
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name = name[: len(name) - len(last)] + last.split(":", 1)[0]
    for prefix in ("docker.io/", "index.docker.io/", "library/"):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return IMAGE_ENTRYPOINTS.get(name)


def container_argv(
    image: str, entrypoint: Sequence[str] | None, command: Sequence[str] | None
) -> tuple[list[str], tuple[str, ...] | None]:
    """The process argv of a container: entrypoint (override or image's) + command; and the image's one."""
    image_ep = image_entrypoint(image)
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
) -> None:
    from argtrace.rules import transport as R

    image_ep = image_entrypoint(image)
    if entrypoint is not None or not image_ep or not command:
        return
    first = _basename(command[0])
    repeats = list(command[: len(image_ep)]) == list(image_ep) or command[0] == image_ep[-1]
    launcher = first in ("vllm", "sglang", "python", "python3") or command[0].startswith("python")
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


def _exec_form_findings(
    at: str, words: Sequence[str], result: TransportResult, *, how: str, final: Sequence[str] = ()
) -> None:
    from argtrace.rules import transport as R

    if final and _basename(final[0]) in _SHELLS:
        return  # `sh -c STRING`: a shell does run, shell syntax is meant

    for word in words:
        if word in _EXEC_FORM_SHELL_WORDS or "$(" in word or (word.startswith("$") and len(word) > 1):
            result.findings.append(
                R.TP013.finding(
                    f"{how} is an exec-form argv: no shell runs it, so {_show(word)} is passed to the "
                    f"program "
                    "as a literal argument",
                    at=at,
                    evidence=[Evidence("transport", at, _show_argv(words))],
                )
            )
            return


def _server_from_argv(
    at: str,
    argv: Sequence[str],
    env: Mapping[str, str | None],
    expansion: str,
    origins: Mapping[str, Origin] | None = None,
) -> ServerCommand | None:
    from argtrace.frameworks.detect import detect_server

    detection = detect_server(list(argv))
    if detection is None:
        return None
    words = tuple(Word(w, Origin(at=at, expansion=expansion)) for w in argv)
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


def _container_servers(
    at: str,
    argv: Sequence[str],
    env: Mapping[str, str | None],
    origins: Mapping[str, Origin] | None,
    expansion: str,
    result: TransportResult,
) -> None:
    """Servers of a container's process: its argv, or the script of a ``sh -c STRING`` entrypoint (the
    pattern of vLLM's Kubernetes guide), analysed by the shell layer with the container's environment."""
    from argtrace.layers.shell import ScriptSource, analyze_script

    if len(argv) >= 3 and _basename(argv[0]) in _SHELLS:
        i = 1
        while i < len(argv) and argv[i] in ("-l", "--login", "-e", "-x", "-u", "-o", "pipefail"):
            i += 1
        if i + 1 < len(argv) and argv[i] in ("-c", "-lc", "-ec", "-xc"):
            _shell_c(at, list(argv), result)
            known = {k: v for k, v in env.items() if v is not None}
            label = f"<{expansion}>"
            source = ScriptSource(label=label, data=argv[i + 1].encode("utf-8", "surrogateescape"), path=None)
            shell = analyze_script(
                source,
                list(argv[i + 3 :]),
                known,
                arg0=argv[i + 2] if i + 2 < len(argv) else argv[0],
                run_shellcheck=False,
                cwd="/",
            )
            result.findings.extend(f for f in shell.findings if f.code != "SH019")
            for inner in shell.servers:
                # Variables the shell could not be given (unknown: the image's PATH) stay unknown, not unset.
                missing = {
                    k: EnvValue(None, origin)
                    for k, origin in (origins or {}).items()
                    if env.get(k) is None and k not in inner.env and not origin.known
                }
                result.servers.append(replace(inner, env={**inner.env, **missing}) if missing else inner)
            return
    server = _server_from_argv(at, argv, env, expansion, origins)
    if server is not None:
        result.servers.append(server)


def _docker(
    at: str,
    argv: list[str | None],
    ctx: _Context,
    result: TransportResult,
    source: ScriptSource,
    ssh_host: str | None,
) -> None:
    run = parse_docker_run(argv)
    if run is None:
        return
    final, image_ep = container_argv(run.image, run.entrypoint, run.args)
    env, origins, files = _docker_environment(at, run, ctx, result, source, ssh_host)
    hop: dict[str, Any] = {
        "at": at,
        "via": "docker run",
        "image": run.image,
        "entrypoint": list(run.entrypoint)
        if run.entrypoint is not None
        else (list(image_ep) if image_ep is not None else None),
        "argv": final,
    }
    if files:
        hop["env_files"] = [f.hop() for f in files]
    result.hops.append(hop)
    _entrypoint_findings(
        at, run.image, run.entrypoint, run.args, result, how="the command after the image name"
    )
    _container_servers(at, final, *_image_path(env, origins, at, run.image), "docker run", result)


def _docker_environment(
    at: str,
    run: DockerRun,
    ctx: _Context,
    result: TransportResult,
    source: ScriptSource,
    ssh_host: str | None,
) -> tuple[dict[str, str | None], dict[str, Origin], list[EnvFile]]:
    """The container's environment as docker/cli builds it (``opts.ReadKVEnvStrings(envFiles, env)``):
    every ``--env-file`` in order, then every ``-e``; a later assignment of a name wins."""
    from argtrace.redact import is_secret_name
    from argtrace.rules import transport as R

    script = source.data.decode("utf-8", "replace")

    def client_value(name: str) -> object:
        """A bare ``NAME`` (``-e NAME`` or a line of an env file): the docker client's own variable."""
        if ssh_host is not None or re.search(
            rf"(?<![\w$]){re.escape(name)}=|\b(?:export|unset|declare|readonly|read)\b[^\n;]*\b{re.escape(name)}\b",
            script,
        ):
            return None  # the node's session, or the script sets it before docker runs: not known here
        return ctx.env[name] if name in ctx.env else _ABSENT

    env: dict[str, str | None] = {}
    origins: dict[str, Origin] = {}
    files: list[EnvFile] = []
    # docker opens a relative path in its own working directory: the script's start directory (this
    # host's, or the --host session's), unless the script changes directory (not followed per command here)
    moves = re.search(r"(?m)(^|[;&|(`\s])(cd|pushd|popd)(\s|$)", script) is not None
    for path in run.env_files:
        env_file = EnvFile(path, at)
        files.append(env_file)
        data: bytes | None = None
        if not path.startswith("/") and moves and ssh_host is None:
            env_file.skipped = "a relative path, and the script changes directory before docker runs"
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
            parse_docker_env_file(data, client_value, env_file)
        if env_file.problem is not None:
            result.findings.append(
                R.TP016.finding(
                    f"docker run --env-file {_show(path)}: {env_file.problem}; docker refuses to create the "
                    "container, so the server never starts",
                    at=at,
                    evidence=[Evidence("transport", at, f"--env-file {_show(path)}")],
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
            found = client_value(name)
            if found is _ABSENT:
                continue  # `-e NAME` with NAME unset: docker leaves it out
            value = found if isinstance(found, str) else None
        env[name] = value
        origins.pop(name, None)
    for name, value in env.items():
        if value and is_secret_name(name):
            result.secrets.add(value)
    return env, origins, files


def _quoted_value_findings(at: str, env_file: EnvFile, result: TransportResult) -> None:
    """TP017: ``NAME="value"`` in a ``docker run --env-file``: docker keeps the quotes (compose would not)."""
    from argtrace.redact import is_secret_name
    from argtrace.rules import transport as R

    for name, value in env_file.values.items():
        if value is None or len(value) < 2 or value[0] not in "'\"" or value[-1] != value[0]:
            continue
        line_at = f"{env_file.path}:{env_file.lines[name]}"
        shown = "the value" if is_secret_name(name) else f"{value[1:-1]!r}"
        result.findings.append(
            R.TP017.finding(
                f"{name} in {_show(env_file.path)} is quoted: `docker run --env-file` passes values as "
                f"written, so the server gets the quote characters as part of {name}, not {shown}",
                at=line_at,
                evidence=[
                    Evidence(
                        "transport", line_at, f"{name}={'<redacted>' if is_secret_name(name) else value}"
                    ),
                    Evidence("transport", at, f"--env-file {_show(env_file.path)}"),
                ],
                fix=f"Write {name}={'VALUE' if is_secret_name(name) else value[1:-1]} without quotes (docker "
                "takes everything after the first `=` literally, blanks included).",
            )
        )


def _env_file_severity() -> Any:
    """Error where the check reads the machine's own files (``--host``); locally a missing file may just
    live on the GPU node, so a warning that says so."""
    from argtrace.transport.host import current_host

    return "error" if current_host().is_remote else "warning"


# --------------------------------------------------------------------------------------------- manifests


def manifest_kind(data: bytes) -> str | None:
    """``"compose"``, ``"kubernetes"`` or ``None`` (a script, or a framework's own ``--config`` YAML)."""
    head = data[:65536]
    if head.startswith(b"#!") or b"\x00" in head:
        return None
    text = head.decode("utf-8", "replace")
    if re.search(r"(?m)^services:\s*(#.*)?$", text):
        return "compose"
    if re.search(r"(?m)^apiVersion:\s*\S", text) and re.search(r"(?m)^kind:\s*\S", text):
        return "kubernetes"
    return None


def manifest_selection(
    words: Sequence[str], service: str | None = None, container: str | None = None
) -> tuple[str | None, str | None]:
    """``--service NAME`` / ``--container NAME`` given after the manifest's path (where a script's
    arguments would go): a manifest takes no other arguments."""
    from argtrace.model import UsageError

    i = 0
    while i < len(words):
        word = words[i]
        name, eq, value = word.partition("=")
        if name in ("--service", "--container"):
            if not eq:
                if i + 1 >= len(words):
                    raise UsageError(f"{name} needs a NAME")
                value = words[i + 1]
                i += 1
            if name == "--service":
                service = value
            else:
                container = value
            i += 1
            continue
        raise UsageError(
            f"{word!r}: a compose file or Kubernetes manifest takes no script arguments "
            "(only --service NAME / --container NAME)"
        )
    return service, container


def analyze_manifest(
    source: ScriptSource,
    *,
    env: Mapping[str, str],
    service: str | None = None,
    container: str | None = None,
    dotenv: Mapping[str, str] | None = None,
) -> TransportResult:
    """The server commands of a docker compose file or Kubernetes manifest, with transport findings."""
    from argtrace.model import UsageError

    kind = manifest_kind(source.data)
    nodes = _load_yaml_nodes(source.data, source.label)
    result = TransportResult()
    if kind == "compose" and dotenv is None:
        dotenv = read_dotenv(posixpath.join(posixpath.dirname(source.label) or ".", ".env"), env)
    if kind == "compose":
        _compose(source.label, nodes[0] if nodes else None, {**(dotenv or {}), **env}, service, result)
    elif kind == "kubernetes":
        _kubernetes(source.label, nodes, container, result)
    else:
        raise UsageError(f"{source.label}: neither a docker compose file nor a Kubernetes manifest")
    return _scrubbed(result, {**(dotenv or {}), **env})


# --- compose


# --- env files: `docker run --env-file`, compose `env_file:` and compose's own `.env`


def _compose_words(
    label: str, node: Any, env: Mapping[str, str], result: TransportResult, *, what: str
) -> list[str] | None:
    """A compose ``command:``/``entrypoint:``: a list is the argv as is; a string is split like a shell
    would split words (quotes honoured) but nothing else of a shell applies."""
    from argtrace.rules import transport as R

    if node is None:
        return None
    items = _seq(node)
    at = _line(label, node)
    if items is None:
        text = _scalar(node)
        if text is None:
            return None
        value, unset = compose_interpolate(text, env)
        _unset_findings(at, unset, result, how=f"`{what}:`")
        try:
            return shlex.split(value)
        except ValueError:
            return value.split()
    words: list[str] = []
    for item in items:
        text = _scalar(item)
        if text is None:
            continue
        value, unset = compose_interpolate(text, env)
        item_at = _line(label, item)
        _unset_findings(item_at, unset, result, how=f"`{what}:`")
        if value.startswith("-") and re.search(r"\s", value.strip()):
            flag, _, rest = value.strip().partition(" ")
            result.findings.append(
                R.TP011.finding(
                    f"the `{what}:` list item {_show(value)} is ONE argv word: the server receives the "
                    f"flag and its "
                    "value as a single argument, which argparse does not recognise",
                    at=item_at,
                    evidence=[Evidence("transport", item_at, f"- {text}")],
                    fix=f"Give the flag and its value as two list items: `- {flag}` and `- {rest.strip()}` "
                    f"(or write `{flag}={rest.strip()}`).",
                )
            )
        words.append(value)
    return words


def _unset_findings(at: str, unset: Sequence[str], result: TransportResult, *, how: str) -> None:
    from argtrace.rules import transport as R

    for name in dict.fromkeys(unset):
        result.findings.append(
            R.TP012.finding(
                f"${{{name}}} in {how} is not set in the environment or the .env file: compose "
                f"substitutes an "
                "empty string",
                at=at,
                evidence=[Evidence("transport", at, name)],
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
        entrypoint = _compose_words(label, _get(svc, "entrypoint"), env, result, what="entrypoint")
        command = _compose_words(label, _get(svc, "command"), env, result, what="command")
        at = _line(label, _get(svc, "command") or _get(svc, "entrypoint") or svc)
        svc_env: dict[str, str | None] = {}
        env_node = _get(svc, "environment")
        for item in _seq(env_node) or []:
            text = _scalar(item) or ""
            key, has, value = text.partition("=")
            value, unset = compose_interpolate(value, env)
            _unset_findings(_line(label, item), unset, result, how="`environment:`")
            svc_env[key] = value if has else env.get(key)
        for key, value_node in _items(env_node):
            raw = _scalar(value_node)
            if raw is None:
                svc_env[key] = env.get(key)  # `NAME:` with no value: taken from compose's environment
                continue
            interpolated, unset = compose_interpolate(raw, env)
            _unset_findings(_line(label, value_node), unset, result, how="`environment:`")
            svc_env[key] = interpolated
        svc_env, origins, files = _compose_env_files(label, name, svc, env, svc_env, result)
        final, image_ep = container_argv(image, entrypoint, command)
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
        if command:
            _entrypoint_findings(at, image, entrypoint, command, result, how="`command:`")
            if _seq(_get(svc, "command")) is not None:
                _exec_form_findings(at, command, result, how=f"service {name}'s `command:` list", final=final)
        _container_servers(
            at, final, *_image_path(svc_env, origins, at, image), f"compose service {name}", result
        )


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
            path = posixpath.normpath(posixpath.join(posixpath.dirname(label), path))
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
    from argtrace.redact import is_secret_name
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
        for name, line in dict.fromkeys(env_file.unset):
            result.findings.append(
                R.TP012.finding(
                    f"${{{name}}} in {path} (env_file of service {service}) is not set in the environment, "
                    "the .env file, the service's environment or the env file above it: compose substitutes "
                    "an empty string",
                    at=f"{path}:{line}",
                    evidence=[Evidence("transport", f"{path}:{line}", name)],
                )
            )
        for name, value in env_file.values.items():
            merged[name] = value
            origins[name] = Origin(at=f"{path}:{env_file.lines[name]}", expansion="env_file")
    final = {**merged, **svc_env}
    for name in svc_env:
        origins.pop(name, None)
    for name, value in final.items():
        if value and is_secret_name(name):
            result.secrets.add(value)
    return final, origins, files


# --- kubernetes

_K8S_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


def k8s_expand(text: str, env: Mapping[str, str | None]) -> tuple[str, list[str]]:
    """Kubernetes ``$(VAR)`` expansion: from earlier env entries; unresolvable references stay literal;
    ``$$`` is a literal ``$``. Returns the text and the unresolved names."""
    missing: list[str] = []

    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "$$":
            return "$"
        name = m.group(1)
        value = env.get(name)
        if value is None:
            missing.append(name)
            return m.group(0)
        return value

    return _K8S_REF.sub(sub, text), missing


def _pod_specs(doc: Any) -> list[Any]:
    kind = _scalar(_get(doc, "kind")) or ""
    spec = _get(doc, "spec")
    if kind == "Pod":
        return [spec]
    if kind == "CronJob":
        return [_get(_get(_get(_get(spec, "jobTemplate"), "spec"), "template"), "spec")]
    if kind == "LeaderWorkerSet":
        lws = _get(spec, "leaderWorkerTemplate")
        return [_get(_get(lws, t), "spec") for t in ("leaderTemplate", "workerTemplate") if _get(lws, t)]
    template = _get(spec, "template")
    return [_get(template, "spec")] if template is not None else []


def _kubernetes(label: str, docs: Sequence[Any], container: str | None, result: TransportResult) -> None:
    from argtrace.model import UsageError
    from argtrace.rules import transport as R

    containers: list[tuple[str, Any]] = []
    for doc in docs:
        if _scalar(_get(doc, "kind")) == "List":
            for item in _seq(_get(doc, "items")) or []:
                containers += [(c_name, c) for spec in _pod_specs(item) for c_name, c in _containers(spec)]
            continue
        for spec in _pod_specs(doc):
            containers += _containers(spec)
    if container is not None:
        containers = [(n, c) for n, c in containers if n == container]
        if not containers:
            raise UsageError(f"{label}: no container named {container!r}")
    for name, node in containers:
        image = _scalar(_get(node, "image")) or ""
        env: dict[str, str | None] = {}
        for item in _seq(_get(node, "env")) or []:
            key = _scalar(_get(item, "name")) or ""
            raw = _scalar(_get(item, "value"))
            if raw is None:
                env[key] = None  # valueFrom: a secret or field, known only in the cluster
                continue
            value, missing = k8s_expand(raw, env)
            env[key] = value
        resolvable = {k: v for k, v in env.items() if v is not None}
        has_env_from = _get(node, "envFrom") is not None
        words: dict[str, list[str] | None] = {}
        for field_name in ("command", "args"):
            field_node = _get(node, field_name)
            items = _seq(field_node)
            if items is None:
                words[field_name] = None
                continue
            out: list[str] = []
            for item in items:
                text = _scalar(item)
                if text is None:
                    continue
                value, missing = k8s_expand(text, resolvable)
                item_at = _line(label, item)
                for ref in dict.fromkeys(missing):
                    if ref in env or has_env_from:
                        # valueFrom (a Secret, a field) or envFrom: expanded in the cluster
                        continue
                    why = "is not defined in the container's env"
                    result.findings.append(
                        R.TP012.finding(
                            f"$({ref}) in container {name}'s `{field_name}` {why}: Kubernetes leaves it "
                            f"literal and "
                            f"the process receives {_show(value)}",
                            at=item_at,
                            evidence=[Evidence("transport", item_at, text)],
                        )
                    )
                if value.startswith("-") and re.search(r"\s", value.strip()):
                    flag, _, rest = value.strip().partition(" ")
                    result.findings.append(
                        R.TP011.finding(
                            f"the `{field_name}` item {_show(value)} is ONE argv word: the server "
                            f"receives the flag "
                            "and its value as a single argument, which argparse does not recognise",
                            at=item_at,
                            evidence=[Evidence("transport", item_at, f"- {text}")],
                            fix=f"Give the flag and its value as two items: `- {flag}` and `- "
                            f"{rest.strip()}`.",
                        )
                    )
                out.append(value)
            words[field_name] = out
        command, args = words["command"], words["args"]
        at = _line(label, _get(node, "args") or _get(node, "command") or node)
        final, _image_ep = container_argv(image, command, args)
        result.hops.append(
            {
                "at": at,
                "via": "kubernetes",
                "container": name,
                "image": image,
                "command": command,
                "args": args,
                "argv": final,
            }
        )
        if command is None and args:
            _entrypoint_findings(at, image, None, args, result, how="`args:`")
        _exec_form_findings(
            at, [*(command or []), *(args or [])], result, how=f"container {name}'s command", final=final
        )
        container_env = _image_path(env, None, at, image)
        _container_servers(at, final, *container_env, f"kubernetes container {name}", result)


def _containers(spec: Any) -> list[tuple[str, Any]]:
    out = []
    for node in _seq(_get(spec, "containers")) or []:
        out.append((_scalar(_get(node, "name")) or "", node))
    return out


# ---------------------------------------------------------------------------------------------- text view
