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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from argtrace.model import EnvValue, Evidence, Finding, LayerResult, Observation, Origin, ServerCommand, Word

if TYPE_CHECKING:
    from argtrace.layers.shell import ScriptSource, ShellResult

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

# The environment sshd gives a non-interactive command before the login shell's rc files run.
SSHD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

_SSH_OPTS_WITH_VALUE = set("BbcDEeFIiJLlmOoPpQRSWw")
_SSH_FLAGS = set("46AaCfGgKkMNnqsTtVvXxYy")
_SCP_OPTS_WITH_VALUE = set("cDFiJlOoPSX")
_SHELLS = {"bash", "sh", "dash", "zsh", "ksh"}
# A blank or a character the node's shell gives a meaning to.
_SHELL_SPECIAL = re.compile(r"[\s'\"`$;&|<>()*?\[\]#~\\{}]")
# What changes the argv when the node's shell splits the joined text again (a glob or `$` quoted locally
# for the node to expand is usually meant).
_RESPLIT = re.compile(r"[\s'\"\\]")
_BARE_RUNNERS = {"python", "python3", "sglang", "vllm", "pip", "pip3", "torchrun", "uv"}
_EXEC_FORM_SHELL_WORDS = {"&&", "||", "|", ";", ">", ">>", "<", "2>&1", "&>", "&"}
_FRAMEWORK_ENV = re.compile(
    r"^(SGLANG_|VLLM_|CUDA_|NCCL_|HF_|HUGGING_FACE_|TORCH_|PYTORCH_|PYTHONPATH$|PATH$)"
)

_DOCKER_BOOL = {
    "-d", "--detach", "-i", "--interactive", "-t", "--tty", "--rm", "--privileged", "--init", "-P",
    "--publish-all", "--read-only", "--no-healthcheck", "--oom-kill-disable", "--sig-proxy",
    "--disable-content-trust", "-q", "--quiet", "--use-api-socket",
}  # fmt: skip


# ------------------------------------------------------------------------------------------------ result


@dataclass
class TransportResult:
    """Servers reached through ssh/docker/manifests, findings of layer ``transport``, and the report "
    "section."""

    servers: list[ServerCommand] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    hops: list[dict[str, Any]] = field(default_factory=list)
    uploads: list[dict[str, Any]] = field(default_factory=list)
    # values of secret-named variables read from env files: masked wherever the journey copied them
    secrets: set[str] = field(default_factory=set)

    # id(server) -> ({flag: (value as written before the journey, value that arrived or None, at)}, how)
    written: dict[int, tuple[dict[str, tuple[str, str | None, str | None]], str]] = field(
        default_factory=dict
    )

    @property
    def section(self) -> dict[str, Any]:
        """The ``transport`` top-level JSON key."""
        return {"hops": self.hops, "uploads": self.uploads}

    def layer_result(self, server: ServerCommand, schema: Any) -> LayerResult:
        """Observations of layer ``transport`` for one server: each flag's value as the user wrote it before
        ssh, an upload or a local expansion changed it (``schema`` maps flags to setting names)."""
        out = LayerResult()
        entry = self.written.get(id(server))
        if entry is None:
            return out
        flags, via = entry
        for flag, (written, arrived, at) in flags.items():
            spec = schema.option(flag) if schema is not None else None
            dest = getattr(spec, "dest", None)
            if not dest:
                continue
            observation = Observation(
                "transport",
                arrived,
                at=at,
                known=arrived is not None,
                reason=None
                if arrived is not None
                else f"written as {written}; no value arrived after {flag}",
                by=via,
                detail={"written": written},
            )
            out.observations[dest] = (flag, [observation])
        return out


@dataclass
class _Context:
    """What is known while following one script: its args/env and files uploaded so far."""

    args: list[str]
    env: dict[str, str]
    arg0: str
    uploads: dict[tuple[str, str], tuple[bytes | None, str]] = field(default_factory=dict)
    # (host, path) -> (here-document body as written, at of its first line), for uploads that expanded
    written_uploads: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    depth: int = 0


# ---------------------------------------------------------------------------------------------- helpers


def _split_at(at: str) -> tuple[str, int, int] | None:
    parts = at.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return None
    return parts[0], int(parts[1]), int(parts[2])


def _basename(word: str | None) -> str:
    return (word or "").rsplit("/", 1)[-1]


def _show(word: str | None) -> str:
    if word is None:
        return "<unknown>"
    return shlex.quote(word) if word == "" or _SHELL_SPECIAL.search(word) else word


def _show_argv(argv: Sequence[str | None]) -> str:
    return " ".join(_show(w) for w in argv)


@dataclass
class _Located:
    """The source of one simple command: its raw words and a here-document on its stdin, if any."""

    raw_words: list[str]
    heredoc: str | None = None
    heredoc_quoted: bool = False
    heredoc_line: int | None = None
    stdin_file: str | None = None
    herestring: str | None = None


def _locate(text: str, tree: Any, line: int, col: int) -> _Located | None:
    """Raw words and stdin of the simple command that starts at ``line``:``col`` (1-based) of ``text``."""
    from argtrace.layers.shell import lexer as L

    node = tree.root_node.descendant_for_point_range((line - 1, col - 1), (line - 1, col - 1))
    while node is not None and node.type != "command":
        node = node.parent
    if node is None:
        return None
    stmt = node.parent if node.parent is not None and node.parent.type == "redirected_statement" else node
    raw = text.encode("latin-1")
    start = len(raw[: node.start_byte].decode("latin-1"))
    end = len(raw[: stmt.end_byte].decode("latin-1"))
    try:
        toks = L.tokenize_command(text, start, end)
    except L.LexError:
        return None
    located = _Located([w.raw for w in toks.words])
    for redir in toks.redirs:
        if redir.op in ("<<", "<<-") and redir.heredoc is not None:
            located.heredoc = redir.heredoc
            located.heredoc_quoted = redir.heredoc_quoted
            located.heredoc_line = text.count("\n", 0, redir.start) + 2
        elif redir.op == "<" and redir.target is not None and (redir.fd in (None, "0")):
            located.stdin_file = redir.target.raw
        elif redir.op == "<<<" and redir.target is not None:
            located.herestring = redir.target.raw
    return located


def _local_expansions(raw: str, predicted: str | None) -> list[tuple[str, str | None]]:
    """The expansions the *local* shell performs in one raw word (outside single quotes), each with the
    text it produced when that can be read off the predicted word (``None`` otherwise)."""
    from argtrace.layers.shell import lexer as L

    try:
        parts = L.parse_word(raw)
    except Exception:
        return []
    expansions = [p.raw for p in parts if isinstance(p, (L.Param, L.CmdSub, L.Arith))]
    if not expansions or predicted is None:
        return [(e, None) for e in expansions]
    pattern = ""
    for part in parts:
        if isinstance(part, L.Lit):
            pattern += re.escape(L.restore(part.text))
        elif isinstance(part, (L.Param, L.CmdSub, L.Arith)):
            pattern += "(.*?)"
        elif isinstance(part, L.Tilde):
            pattern += ".*?"
    match = re.fullmatch(pattern, predicted, re.DOTALL)
    if match is None or len(match.groups()) != len(expansions):
        return [(e, None) for e in expansions]
    return list(zip(expansions, match.groups(), strict=True))


def _as_written(raw: str) -> str:
    """A raw word without its quotes, expansions kept as text (``"--port $P"`` -> ``--port $P``)."""
    from argtrace.layers.shell import lexer as L

    try:
        parts = L.parse_word(raw)
    except Exception:
        return raw
    out = []
    for part in parts:
        if isinstance(part, L.Lit):
            out.append(L.restore(part.text))
        elif isinstance(part, (L.Param, L.CmdSub, L.Arith, L.Tilde, L.ProcSub)):
            out.append(part.raw)
    return "".join(out)


def _flag_values(text: str) -> dict[str, str]:
    """``--flag value`` / ``--flag=value`` pairs in a command text, values as written (quotes kept)."""
    from argtrace.layers.shell import lexer as L

    try:
        words = [w.raw for w in L.tokenize_command(text, 0, len(text)).words]
    except Exception:
        return {}
    pairs: dict[str, str] = {}
    for i, word in enumerate(words):
        if not word.startswith("--") or word == "--":
            continue
        flag, eq, value = word.partition("=")
        if eq:
            pairs[flag] = value
        elif i + 1 < len(words) and not words[i + 1].startswith("-"):
            pairs[flag] = words[i + 1]
    return pairs


def _line_chunk(text: str, line: int) -> str:
    """Line ``line`` (1-based) of ``text`` with the lines a trailing backslash continues."""
    chunk = []
    for item in text.split("\n")[line - 1 :]:
        chunk.append(item)
        if not item.endswith("\\"):
            break
    return "\n".join(chunk)


def _unquote(word: str | None) -> str | None:
    """A word as the program receives it (quotes removed; unknown when it still needs an expansion)."""
    if word is None:
        return None
    try:
        parts = shlex.split(word)
    except ValueError:
        return word
    return parts[0] if len(parts) == 1 else word


def _param_name(raw: str) -> str | None:
    m = re.match(r"^\$\{?[#!]?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])", raw)
    return m.group(1) if m else None


# ------------------------------------------------------------------------------------------------- ssh


@dataclass(frozen=True)
class SshCall:
    destination: str
    port: str | None
    user: str | None
    options: tuple[str, ...]
    remote: tuple[str | None, ...]  # the words ssh joins with spaces
    remote_start: int  # argv index of the first remote word


def parse_ssh(argv: Sequence[str | None]) -> SshCall | None:
    """ssh's own option parsing: the destination and the words of the remote command.

    Like OpenSSH, options are also accepted right after the destination (``ssh gpu1 -p 2222 cmd``): the
    command starts at the first word after the destination that is not an option, or after ``--``.
    """
    i = 1
    port = user = None
    options: list[str] = []
    dest: str | None = None
    terminated = False
    while i < len(argv):
        w = argv[i]
        if w is None:
            return None
        if not terminated and w == "--":
            terminated = True
            i += 1
            if dest is not None:
                break
            continue
        if terminated or not w.startswith("-") or w == "-":
            if dest is None:
                dest = w
                i += 1
                if terminated:
                    break
                continue
            break
        j = 1
        while j < len(w):
            letter = w[j]
            if letter in _SSH_OPTS_WITH_VALUE:
                value = w[j + 1 :] if j + 1 < len(w) else (argv[i + 1] if i + 1 < len(argv) else None)
                if j + 1 >= len(w):
                    i += 1
                if letter == "p":
                    port = value
                elif letter == "l":
                    user = value
                elif letter == "o" and value:
                    options.append(value)
                break
            j += 1
        i += 1
    if dest is None:
        return None
    return SshCall(dest, port, user, tuple(options), tuple(argv[i:]), i)


def _host_of(dest: str) -> str:
    host = dest.rsplit("@", 1)[-1]
    if host.startswith("ssh://"):
        host = host[len("ssh://") :]
    return host


def _remote_env(call: SshCall) -> dict[str, str]:
    user = call.user or (call.destination.rsplit("@", 1)[0] if "@" in call.destination else "user")
    home = "/root" if user == "root" else f"/home/{user}"
    return {"PATH": SSHD_PATH, "HOME": home, "USER": user, "LOGNAME": user, "SHELL": "/bin/bash"}


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
    ctx = _Context(list(args), dict(env), arg0 or source.label)
    result = TransportResult()
    _follow(source, shell, ctx, result, local_shell=True)
    _check_node_interpreters(shell.servers, result)
    return _scrubbed(result, env)


def _scrubbed(result: TransportResult, env: Mapping[str, str]) -> TransportResult:
    """Mask the values of secret-named variables (``HF_TOKEN``, ``*_API_KEY``) wherever the journey copied
    them: a locally expanded remote command, an upload's content, a message. The report's own redaction
    only knows the variables the server process gets."""
    from dataclasses import replace

    from argtrace.redact import is_secret_name, scrub

    secrets = {v for k, v in env.items() if v and len(v) >= 4 and is_secret_name(k)}
    secrets |= {v for v in result.secrets if len(v) >= 4}

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return scrub(value, secrets)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    result.hops = walk(result.hops)
    result.uploads = walk(result.uploads)
    result.findings = [
        replace(
            f,
            message=scrub(f.message, secrets),
            evidence=tuple(replace(e, text=scrub(e.text, secrets)) for e in f.evidence),
        )
        for f in result.findings
    ]
    return result


def _check_node_interpreters(servers: Sequence[ServerCommand], result: TransportResult) -> None:
    """``argtrace --host NODE check``: does the interpreter the script names, found on the node's
    non-interactive PATH, import the framework at all? (TP015)"""
    from argtrace.frameworks import site_packages
    from argtrace.rules import transport as R
    from argtrace.transport.host import HostError, current_host

    host = current_host()
    if not host.is_remote:
        return
    files = site_packages.files_of(host)
    try:
        info = host.info()
    except HostError:
        return
    result.hops.append(
        {
            "at": None,
            "via": "--host",
            "host": host.label,
            "hostname": info.hostname,
            "user": info.user,
            "cwd": info.cwd,
            "login_shell": info.login_shell,
            "python3": info.executable,
            "path": info.env.get("PATH"),
            "banner": list(getattr(host, "noise", []))[:20],
        }
    )
    for server in servers:
        first = server.argv[0].text if server.argv else None
        program = server.interpreter or first
        if not program or program in ("env", "nohup", "exec", "sudo", "uv", "conda", "numactl", "taskset"):
            continue
        env = {k: v.value for k, v in server.env.items() if v.value is not None}
        path_env = env.get("PATH")
        try:
            # Looked up and read from the node's files only: neither `sh` nor the interpreter is run
            # there, since both would be found on a PATH the script chose.
            if "/" in program:
                found: str | None = program if host.stat(program).exists else None
            elif path_env is not None:
                found = site_packages.which_on(files, program, path_env, info.cwd or "/")
            else:
                found = host.which(program).get(program)
            hop: dict[str, Any] = {
                "at": server.at,
                "via": f"--host {host.label}",
                "program": program,
                "resolved": found,
            }
            result.hops.append(hop)
            if found is None:
                result.findings.append(
                    R.TP015.finding(
                        f"`{program}` is not found on {host.label} by a non-interactive shell (PATH "
                        f"{path_env or host.environ().get('PATH', '')}): the server command fails with "
                        "`command not found`",
                        at=server.at,
                    )
                )
                continue
            if server.interpreter is None:
                continue  # a console script (`vllm`, `sglang`): its own shebang names the interpreter
            words = [w.text or "" for w in server.argv]
            start = words.index(server.interpreter) + 1 if server.interpreter in words else len(words)
            lookup = site_packages.installed_version(
                found,
                server.framework,
                env,
                server.cwd or info.cwd,
                flags=site_packages.interpreter_flags(words[start : server.server_args_start]),
                host=host,
            )
            hop["framework_version"] = lookup.version
            if lookup.version is None and lookup.reason:
                hop["framework_version_reason"] = lookup.reason
            if lookup.version is None and lookup.layout is not None and lookup.layout.reason is None:
                result.findings.append(
                    R.TP015.finding(
                        f"on {host.label}, `{program}` resolves to {found} for a non-interactive shell, "
                        f"and that interpreter has no {server.framework} installed: `python -m` fails with "
                        "`No module named`. A conda/venv environment activated in ~/.bashrc is not "
                        "active here.",
                        at=server.at,
                        evidence=[Evidence("transport", server.at, f"{program} -> {found}")],
                    )
                )
        except HostError:
            continue


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


def _ssh(
    at: str,
    argv: list[str | None],
    located: _Located | None,
    ctx: _Context,
    result: TransportResult,
    source: ScriptSource,
) -> None:
    from argtrace.rules import transport as R

    call = parse_ssh(argv)
    if call is None:
        return
    host = _host_of(call.destination)
    hop: dict[str, Any] = {
        "at": at,
        "via": "ssh",
        "host": call.destination,
        "port": call.port,
        "local_argv": list(argv),
        "remote_command": None,
    }
    result.hops.append(hop)
    if not call.remote:
        # no command: the login shell reads its commands from stdin (`ssh HOST < launch.sh`, `<<EOF`)
        if located is not None:
            hop["remote_command"] = ""
            _upload_from_stdin(at, call, "", located, ctx, result)
        return
    raw_remote = located.raw_words[call.remote_start :] if located is not None else []
    if len(raw_remote) != len(call.remote):
        raw_remote = []
    # ---- expansions done by the local shell (TP001 / TP002)
    for index, raw in enumerate(raw_remote):
        word = call.remote[index]
        for expansion, produced in _local_expansions(raw, word):
            name = _param_name(expansion)
            value = produced if produced is not None or name is None else _local_value(name, ctx)
            if name is not None and not value:
                state = "unset" if value is None else "unset or empty"
                result.findings.append(
                    R.TP001.finding(
                        f"`{expansion}` in the command for {call.destination} is expanded by the local "
                        f"shell, where "
                        f"it is {state}: the node receives {_show(word)} instead of the value",
                        at=at,
                        evidence=[Evidence("transport", at, raw), Evidence("transport", at, _show(word))],
                    )
                )
            else:
                shown = value if value is not None else "<computed locally>"
                result.findings.append(
                    R.TP002.finding(
                        f"`{expansion}` in the command for {call.destination} is expanded on this machine "
                        f"(to {_show(shown)}), not on the node",
                        at=at,
                        evidence=[Evidence("transport", at, raw)],
                    )
                )
    # ---- several words: ssh joins them with spaces and the node's shell splits again (TP003)
    if len(call.remote) > 1:
        for word in call.remote:
            if word is not None and _RESPLIT.search(word):
                result.findings.append(
                    R.TP003.finding(
                        f"ssh joins its command words with spaces and {call.destination}'s shell splits "
                        f"them again: "
                        f"the word {_show(word)} does not arrive as one argument",
                        at=at,
                        evidence=[Evidence("transport", at, _show_argv(call.remote))],
                        fix="Pass the whole remote command as one single-quoted word and quote inside "
                        "it, e.g. "
                        f"ssh {call.destination} {shlex.quote(_show_argv(call.remote))}",
                    )
                )
                break
    if any(w is None for w in call.remote):
        hop["remote_command"] = None
        return
    remote_text = " ".join(w for w in call.remote if w is not None)
    hop["remote_command"] = remote_text
    # ---- here-document on ssh's stdin: an upload (TP007)
    if located is not None:
        _upload_from_stdin(at, call, remote_text, located, ctx, result)
    # ---- the node's shell runs the joined text
    written = " ".join(_as_written(raw) for raw in raw_remote) if raw_remote else None
    _analyze_remote(at, host, call, remote_text, ctx, result, written=written)


def _local_value(name: str, ctx: _Context) -> str | None:
    if name.isdigit():
        n = int(name)
        if n == 0:
            return ctx.arg0
        return ctx.args[n - 1] if n <= len(ctx.args) else None
    if name in ("@", "*"):
        return " ".join(ctx.args) if ctx.args else ""
    if name == "#":
        return str(len(ctx.args))
    return ctx.env.get(name)


def _analyze_remote(
    at: str,
    host: str,
    call: SshCall,
    remote_text: str,
    ctx: _Context,
    result: TransportResult,
    *,
    written: str | None = None,
) -> None:
    from argtrace.layers.shell import ScriptSource, analyze_script
    from argtrace.rules import transport as R

    if ctx.depth >= 4:
        return
    label = f"<ssh {call.destination}>"
    remote_source = ScriptSource(label=label, data=remote_text.encode("utf-8", "surrogateescape"), path=None)
    remote_env = _remote_env(call)
    remote = analyze_script(
        remote_source, [], remote_env, arg0="bash", run_shellcheck=False, cwd=remote_env["HOME"]
    )
    # the node's view of the command, its hazards and its servers
    result.findings.extend(f for f in remote.findings if f.code not in ("SH019",))
    flags = _flag_values(written) if written is not None and written != remote_text else {}
    arrived = _flag_values(remote_text) if flags else {}
    for index, server in enumerate(remote.servers):
        result.servers.append(server)
        if flags:
            result.written[id(server)] = (
                {f: (v, _unquote(arrived.get(f)), at) for f, v in flags.items()},
                f"ssh {call.destination}",
            )
        outputs = remote.outputs[index] if index < len(remote.outputs) else {}
        if server.backgrounded and (outputs.get("stdout") is None or outputs.get("stderr") is None):
            result.findings.append(
                R.TP009.finding(
                    f"the server is started in the background over ssh with its output still connected "
                    f"to the "
                    f"ssh session: `ssh {call.destination}` does not return until the server exits",
                    at=server.at,
                    evidence=[Evidence("transport", at, remote_text)],
                )
            )
    # ---- non-interactive environment (TP005)
    activated = bool(
        re.search(r"(^|[;&|(\s])(source|\.)\s+\S*(activate|conda\.sh)\b", remote_text)
        # an interactive shell (`bash -i`, `bash -ic`, `bash -lic`) does read ~/.bashrc to the end
        or re.search(r"\b(bash|zsh)\s+(-[a-z]*i[a-z]*\s)", remote_text)
        or "conda run" in remote_text
    )
    for cmd_at, argv, _cond in remote.commands:
        if not argv or argv[0] is None:
            continue
        base = argv[0]
        if base in ("conda", "mamba", "micromamba") and argv[1:2] == ["activate"] and not activated:
            result.findings.append(
                R.TP005.finding(
                    f"`{_show_argv(argv)}` runs in the non-interactive shell of `ssh "
                    f"{call.destination}`, where "
                    "conda's shell function is not set up (~/.bashrc returns early): the environment is not "
                    "activated",
                    at=at,
                    evidence=[Evidence("transport", cmd_at, remote_text)],
                )
            )
        elif base in _BARE_RUNNERS and not activated and _starts_server(argv):
            result.findings.append(
                R.TP005.finding(
                    f"`{base}` is looked up on the PATH of a non-interactive ssh session on "
                    f"{call.destination}: "
                    "~/.bashrc returns early there, so a conda/venv environment activated in it is not "
                    "active and "
                    f"another `{base}` (or none) runs",
                    at=at,
                    evidence=[Evidence("transport", cmd_at, _show_argv(argv))],
                )
            )
    ctx.depth += 1
    try:
        _follow(remote_source, remote, ctx, result, local_shell=False, ssh_host=host)
    finally:
        ctx.depth -= 1


def _starts_server(argv: Sequence[str | None]) -> bool:
    from argtrace.frameworks.detect import detect_server

    known = [w or "" for w in argv]
    return detect_server(known) is not None


# ----------------------------------------------------------------------------------------------- uploads


_UPLOAD_COMMAND = re.compile(r"^\s*(?:cat\s*>>?\s*|tee\s+(?:-a\s+)?|dd\s+of=)(?P<path>\S+)\s*$")


def _upload_target(remote_text: str) -> str | None:
    m = _UPLOAD_COMMAND.match(remote_text)
    if m is None:
        return None
    path = m.group("path")
    try:
        words = shlex.split(path)
    except ValueError:
        return None
    return words[0] if len(words) == 1 else None


def _stdin_shell_args(remote_text: str) -> list[str] | None:
    """For ``ssh HOST`` (login shell), ``ssh HOST bash -s -- A B`` and the like, the arguments the shell
    reading the script from stdin gets; ``None`` when the remote command does not read a script on stdin."""
    try:
        words = shlex.split(remote_text)
    except ValueError:
        return None
    if not words:
        return []
    if _basename(words[0]) not in _SHELLS:
        return None
    rest = words[1:]
    while rest and rest[0] in ("-l", "--login", "-e", "-x", "-u"):
        rest = rest[1:]
    if not rest:
        return []
    if rest[0] not in ("-s", "-"):
        return None
    rest = rest[1:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    return rest


def _stdin_content(located: _Located, ctx: _Context) -> tuple[bytes | None, list[str], str | None, str]:
    """What ssh's stdin carries: (content, local expansions, raw text, description)."""
    from argtrace.transport.host import HostError, current_host

    if located.heredoc is not None:
        body = located.heredoc
        expansions = [] if located.heredoc_quoted else _heredoc_expansions(body)
        if located.heredoc_quoted or not expansions:
            return _latin1_bytes(body), expansions, body, "here-document"
        return _expand_heredoc(body, ctx), expansions, body, "here-document"
    if located.stdin_file is not None:
        try:
            words = shlex.split(_latin1_bytes(located.stdin_file).decode("utf-8", "replace"))
        except ValueError:
            return None, [], None, "file"
        if len(words) != 1:
            return None, [], None, "file"
        try:
            data = current_host().read_bytes(words[0], limit=4 * 1024 * 1024)
        except HostError:
            return None, [], None, words[0]
        return data, [], None, words[0]
    return None, [], None, ""


def _upload_from_stdin(
    at: str, call: SshCall, remote_text: str, located: _Located, ctx: _Context, result: TransportResult
) -> None:
    """A here-document or ``< file`` on ssh's stdin: an upload (``cat > f``) or a script for the node's shell
    (``ssh HOST bash -s -- ARGS < launch.sh``)."""
    from argtrace.rules import transport as R

    target = _upload_target(remote_text)
    shell_args = None if target is not None else _stdin_shell_args(remote_text)
    if target is None and shell_args is None:
        return
    content, expansions, body, what = _stdin_content(located, ctx)
    if not what:
        return
    host = _host_of(call.destination)
    shown = content.decode("utf-8", "replace") if content is not None else None
    where = (
        f"{call.destination}:{target}"
        if target is not None
        else f"{call.destination} (stdin of {remote_text or 'the login shell'})"
    )
    upload = {
        "at": at,
        "host": call.destination,
        "path": target,
        "via": "ssh stdin" if what == "here-document" else f"ssh stdin < {what}",
        "delimiter_quoted": located.heredoc_quoted if what == "here-document" else None,
        "expansions": expansions,
        "content": shown,
        "known": content is not None,
    }
    result.uploads.append(upload)
    if target is not None:
        ctx.uploads[(host, target)] = (content, at)
        if expansions and body is not None and located.heredoc_line:
            ctx.written_uploads[(host, target)] = (body, f"{at.rsplit(':', 2)[0]}:{located.heredoc_line}")
    if expansions and body is not None:
        details = []
        for expansion in expansions:
            name = _param_name(expansion)
            value = _local_value(name, ctx) if name is not None else None
            details.append(
                f"{expansion} -> {_show(value) if value is not None else 'empty (unset)'}"
                if name is not None
                else f"{expansion} -> run now, on this machine"
            )
        verb = "uploaded to" if target is not None else "sent as a script to"
        result.findings.append(
            R.TP007.finding(
                f"the here-document {verb} {where} has an unquoted delimiter, so the local shell expands "
                f"{', '.join(expansions)} while sending it: " + "; ".join(details),
                at=f"{at.rsplit(':', 2)[0]}:{located.heredoc_line}" if located.heredoc_line else at,
                evidence=[
                    Evidence("transport", at, body.rstrip("\n")),
                    Evidence("transport", where, shown or "<unknown>"),
                ],
            )
        )
    if shell_args is not None and content is not None:
        _run_script_on_node(at, host, f"{call.destination}:<stdin>", content, shell_args, "bash", ctx, result)


def _latin1_bytes(text: str) -> bytes:
    from argtrace.layers.shell import lexer as L

    return L.restore(text).encode("latin-1", "replace")


def _heredoc_expansions(body: str) -> list[str]:
    """``$x``, ``${x}``, ``$1``, ``$(...)``, ``$((...))`` and backquotes in an unquoted here-document body."""
    found: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if c == "$" and i + 1 < n:
            m = re.match(
                r"\$(\{[^}]*\}|\(\([^)]*\)\)|\([^)]*\)|[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])", body[i:]
            )
            if m:
                found.append(m.group(0))
                i += m.end()
                continue
        if c == "`":
            j = body.find("`", i + 1)
            if j > 0:
                found.append(body[i : j + 1])
                i = j + 1
                continue
        i += 1
    return list(dict.fromkeys(found))


def _expand_heredoc(body: str, ctx: _Context) -> bytes | None:
    """What the local shell writes for an unquoted here-document, predicted by the shell layer.

    The body is handed to the shell layer as one double-quoted word (a here-document expands like double
    quotes, except that ``"`` is an ordinary character there, hence the escaping); ``None`` when the result
    depends on something only known at run time (a command substitution).
    """
    from argtrace.layers.shell import ScriptSource, analyze_script

    if "$(" in body or "`" in body:
        # escaping `"` inside a command substitution would change it (the shell layer leaves it unknown)
        return None
    word = body.replace('"', '\\"')
    script = f'__argtrace_upload__ "{word}"\n'.encode("latin-1", "replace")
    source = ScriptSource(label="<upload>", data=script, path=None)
    shell = analyze_script(source, ctx.args, ctx.env, arg0=ctx.arg0, run_shellcheck=False, cwd=None)
    for _at, argv, _cond in shell.commands:
        if argv and argv[0] == "__argtrace_upload__" and len(argv) == 2 and argv[1] is not None:
            return argv[1].encode("utf-8", "surrogateescape")
    return None


_SCRIPT_SUFFIXES = (".sh", ".bash", ".zsh", ".py", ".yaml", ".yml", ".json", ".toml", ".cfg", ".conf", ".txt")


def _looks_like_script(name: str, data: bytes) -> bool:
    """Only scripts and configs are copied into the report (never a key or another file scp'd along)."""
    if len(data) > 256 * 1024 or b"\x00" in data[:4096] or b"PRIVATE KEY" in data[:4096]:
        return False
    return data.startswith(b"#!") or name.lower().endswith(_SCRIPT_SUFFIXES)


def _copy(at: str, argv: list[str | None], ctx: _Context, result: TransportResult) -> None:
    """``scp``/``rsync`` LOCAL... HOST:DEST: the copied file is what later runs there (CRLF check)."""
    from argtrace.rules import transport as R
    from argtrace.transport.host import HostError, current_host

    base = _basename(argv[0])
    words: list[str] = []
    i = 1
    while i < len(argv):
        w = argv[i]
        if w is None:
            return
        if w == "--":
            words.extend(x for x in argv[i + 1 :] if x is not None)
            break
        if w.startswith("-") and len(w) > 1:
            if base == "scp" and not w.startswith("--") and w[-1] in _SCP_OPTS_WITH_VALUE and len(w) == 2:
                i += 2
                continue
            if base == "rsync" and w in ("-e", "--rsh", "--exclude", "--include", "--port"):
                i += 2
                continue
            i += 1
            continue
        words.append(w)
        i += 1
    if len(words) < 2:
        return
    *sources, dest = words
    m = re.match(r"^(?:scp://)?(?P<host>[^:/]+):(?P<path>.*)$", dest)
    if m is None or any(re.match(r"^[^:/]+:", s) for s in sources):
        return
    dest_host = _host_of(m.group("host"))
    dest_path = m.group("path") or "."
    host = current_host()
    for src in sources:
        try:
            data = host.read_bytes(src, limit=4 * 1024 * 1024)
        except HostError:
            continue
        target = dest_path
        if len(sources) > 1 or dest_path.endswith("/") or dest_path in (".", "~"):
            target = posixpath.join(dest_path, posixpath.basename(src))
        result.uploads.append(
            {
                "at": at,
                "host": m.group("host"),
                "path": target,
                "from": src,
                "via": base,
                "content": data.decode("utf-8", "replace") if _looks_like_script(src, data) else None,
                "known": True,
            }
        )
        if not _looks_like_script(src, data):
            result.uploads[-1]["content_omitted"] = "not a launch script (only scripts and configs are shown)"
        ctx.uploads[(dest_host, target)] = (data, at)
        if b"\r\n" in data:
            lines = data.count(b"\r\n")
            result.findings.append(
                R.TP008.finding(
                    f"{src} has Windows (CRLF) line endings on {lines} line(s); {base} copies them "
                    f"unchanged to "
                    f"{m.group('host')}:{target}, where bash reads `$'\\r'` at the end of every line "
                    "(`--port 30000\\r`, `\\` no longer continuing lines)",
                    at=at,
                    evidence=[Evidence("transport", src, repr(data[: data.find(b"\r\n") + 2])[2:-1])],
                )
            )


def _run_uploaded(
    at: str, argv: Sequence[str | None], ctx: _Context, result: TransportResult, host: str
) -> None:
    """``bash FILE ARGS`` on a node where FILE was uploaded earlier: analyse what was uploaded."""
    words = list(argv[1:])
    while words and words[0] is not None and words[0].startswith("-") and words[0] not in ("-c",):
        words.pop(0)
    if not words or words[0] is None or words[0] == "-c":
        return
    path = words[0]
    entry = ctx.uploads.get((host, path))
    if entry is None:
        return
    content, upload_at = entry
    if content is None:
        return
    result.hops.append(
        {
            "at": at,
            "via": "uploaded-script",
            "host": host,
            "path": path,
            "uploaded_at": upload_at,
            "args": [w or "" for w in words[1:]],
        }
    )
    _run_script_on_node(
        at,
        host,
        f"{host}:{path}",
        content,
        [w or "" for w in words[1:]],
        path,
        ctx,
        result,
        written=ctx.written_uploads.get((host, path)),
    )


def _run_script_on_node(
    at: str,
    host: str,
    label: str,
    content: bytes,
    args: Sequence[str],
    arg0: str,
    ctx: _Context,
    result: TransportResult,
    *,
    written: tuple[str, str] | None = None,
) -> None:
    """Analyse a script that runs on the node (uploaded earlier, or fed to its shell on stdin).

    ``written``: the here-document body as the user wrote it and where it starts, when the upload expanded
    it; each server's flags are then traced back to the words written there."""
    from argtrace.layers.shell import ScriptSource, analyze_script

    if ctx.depth >= 4:
        return
    node_env = _remote_env(SshCall(host, None, None, (), (), 0))
    source = ScriptSource(label=label, data=content, path=None)
    shell = analyze_script(
        source, list(args), node_env, arg0=arg0, run_shellcheck=False, cwd=node_env["HOME"]
    )
    result.findings.extend(f for f in shell.findings if f.code != "SH019")
    result.servers.extend(shell.servers)
    if written is not None:
        body, first = written
        first_label, _, first_line = first.rpartition(":")
        lines = body.split("\n")
        for server in shell.servers:
            where = _split_at(server.at or "")
            if where is None or not first_line.isdigit() or not 0 < where[1] <= len(lines):
                continue
            chunk = []
            for line in lines[where[1] - 1 :]:
                chunk.append(line)
                if not line.endswith("\\"):
                    break
            line_at = f"{first_label}:{int(first_line) + where[1] - 1}"
            flags = _flag_values("\n".join(chunk))
            sent = _flag_values(_line_chunk(content.decode("utf-8", "replace"), where[1]))
            result.written[id(server)] = (
                {f: (v, _unquote(sent.get(f)), line_at) for f, v in flags.items()},
                "here-document upload",
            )
    ctx.depth += 1
    try:
        _follow(source, shell, ctx, result, local_shell=False, ssh_host=host)
    finally:
        ctx.depth -= 1


# --------------------------------------------------------------------------------------- bash -c, sudo


def _shell_c(at: str, argv: list[str | None], result: TransportResult) -> None:
    """``bash -c WORD MORE...``: only WORD is the command; MORE become ``$0 $1 ...`` (TP004)."""
    from argtrace.rules import transport as R

    i = 1
    while i < len(argv) and argv[i] is not None and (argv[i] or "").startswith("-") and argv[i] != "-c":
        opt = argv[i] or ""
        if opt.startswith("-") and "c" in opt[1:] and not opt.startswith("--"):
            break
        i += 1
    if i >= len(argv) or argv[i] is None:
        return
    opt = argv[i] or ""
    if not (opt == "-c" or (opt.startswith("-") and not opt.startswith("--") and "c" in opt[1:])):
        return
    if i + 2 >= len(argv):
        return
    command = argv[i + 1]
    rest = argv[i + 2 :]
    if command is None or re.search(r"\s", command):
        return
    lost = [w for w in rest if w is not None]
    if not any(w.startswith("-") for w in lost) and len(lost) < 2:
        return
    result.findings.append(
        R.TP004.finding(
            f"`{_basename(argv[0])} {opt} {_show(command)}` runs only {_show(command)}: the following "
            f"{len(rest)} word(s) ({_show_argv(rest[:4])}{' ...' if len(rest) > 4 else ''}) become $0, "
            f"$1, ... of that "
            "command string and are never used",
            at=at,
            evidence=[Evidence("transport", at, _show_argv(argv))],
        )
    )


def _sudo(at: str, argv: list[str | None], result: TransportResult) -> None:
    from argtrace.rules import transport as R

    keeps = any(
        w is not None
        and (
            w in ("-E", "-i")
            or w.startswith("--preserve-env")
            or (w.startswith("-") and not w.startswith("--") and "E" in w)
        )
        for w in argv[1:]
    )
    if keeps or not _starts_server(argv):
        return
    result.findings.append(
        R.TP006.finding(
            "sudo starts the server with a reset environment (env_reset): variables the script exported "
            "or set "
            "before it (CUDA_VISIBLE_DEVICES, SGLANG_*, VLLM_*, HF_TOKEN, a venv's PATH) do not reach "
            "it, and PATH "
            "becomes sudo's secure_path",
            at=at,
            evidence=[Evidence("transport", at, _show_argv(argv))],
        )
    )


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


def _load_yaml_nodes(data: bytes, label: str) -> list[Any]:
    import yaml

    from argtrace.model import UsageError

    try:
        return [
            n
            for n in yaml.compose_all(data.decode("utf-8", "replace"), Loader=yaml.SafeLoader)
            if n is not None
        ]
    except yaml.YAMLError as exc:
        raise UsageError(f"{label}: not valid YAML: {exc}") from exc


def _get(node: Any, key: str) -> Any:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _items(node: Any) -> list[tuple[str, Any]]:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return []
    return [(str(k.value), v) for k, v in node.value if isinstance(k, yaml.ScalarNode)]


def _line(label: str, node: Any) -> str:
    return f"{label}:{node.start_mark.line + 1}" if node is not None else label


def _scalar(node: Any) -> str | None:
    import yaml

    if isinstance(node, yaml.ScalarNode):
        if node.tag.endswith(":null"):
            return None
        return str(node.value)
    return None


def _seq(node: Any) -> list[Any] | None:
    import yaml

    return list(node.value) if isinstance(node, yaml.SequenceNode) else None


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

MAX_ENV_FILE_BYTES = 1024 * 1024
# unicode.IsSpace minus the newline: what compose-go's dotenv parser skips around keys and values
_DOTENV_BLANK = "\t\v\f\r \x85\xa0"
_DOTENV_ESCAPE = re.compile(r"\\(?:[abcfnrtv$\"\\]|0\d{0,3})")
_GO_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
}


@dataclass
class EnvFile:
    """One env file as docker or compose reads it: the variables it sets, in file order."""

    path: str  # the path the container tool opens (compose: joined to the compose file's directory)
    named_at: str  # where the script or compose file names it
    values: dict[str, str | None] = field(default_factory=dict)  # None: the client's value, not known here
    lines: dict[str, int] = field(default_factory=dict)  # variable -> line of its (last) assignment
    problem: str | None = None  # why docker/compose refuses the file (missing, unreadable, malformed)
    skipped: str | None = None  # why it was not read, when that is no error (optional, on another machine)
    unset: list[tuple[str, int]] = field(default_factory=list)  # compose: ${VAR} replaced by "", with line

    def hop(self) -> dict[str, Any]:
        """For the report's ``transport`` section: names only, never values (they may be secrets)."""
        return {
            "path": self.path,
            "at": self.named_at,
            "read": self.problem is None and self.skipped is None,
            "variables": list(self.values),
            "problem": self.problem,
            "skipped": self.skipped,
        }


def read_env_file(path: str) -> tuple[bytes | None, str | None, bool]:
    """``(data, problem, missing)``: an env file read on the current host (``--host``: the node's file)."""
    from argtrace.transport.host import HostError, current_host

    host = current_host()
    where = f"on {host.label}" if host.is_remote else "here"
    try:
        st = host.stat(path)
        if not st.exists:
            return None, f"no such file {where}", True
        if st.is_dir:
            return None, f"a directory {where}, not a file", False
        if st.size is not None and st.size > MAX_ENV_FILE_BYTES:
            return None, f"{st.size} bytes {where}, too large for an env file", False
        return host.read_bytes(path, limit=MAX_ENV_FILE_BYTES), None, False
    except HostError as exc:
        return None, f"cannot be read {where}: {exc}", exc.kind == "not_found"


_ABSENT = object()  # a bare `NAME` whose variable is not set: docker and compose leave it out


def parse_docker_env_file(data: bytes, lookup: Callable[[str], object], into: EnvFile) -> None:
    """``docker run --env-file`` as docker/cli reads it (``opts.ParseEnvFile`` -> ``parseKeyValueFile``):
    one ``NAME=VALUE`` per line, the value passed through as is (quotes, ``#``, blanks and ``$`` included:
    no quote removal, no interpolation); a line starting with ``#`` (after leading blanks) is a comment; a
    bare ``NAME`` takes the docker client's value (``lookup(name)``: a string, ``None`` when not known here,
    or ``_ABSENT`` when unset: the variable is left out). A name with a blank, a line starting with ``=`` or
    invalid UTF-8 make docker refuse the file (``into.problem``)."""
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]  # bufio.ScanLines drops the \r of a CRLF line
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            into.problem = f"{into.path} contains invalid utf8 bytes at line {number}"
            return
        line = text.lstrip()
        if not line or line.startswith("#"):
            continue
        name, has_value, text_value = line.partition("=")
        value: str | None = text_value
        if " " in name or "\t" in name:
            into.problem = f"{into.path}:{number}: variable '{name}' contains whitespaces"
            return
        if not name:
            into.problem = f"{into.path}:{number}: no variable name on line '{line}'"
            return
        if not has_value:
            found = lookup(name)
            if found is _ABSENT:
                continue
            value = found if isinstance(found, str) else None
        into.values.pop(name, None)  # a later line wins, and keeps its place in the order
        into.values[name] = value
        into.lines[name] = number


def _expand_escapes(text: str) -> str:
    """compose-go ``dotenv.expandEscapes`` (double-quoted values): Go escapes, ``\\$`` -> ``$$``."""

    def one(m: re.Match[str]) -> str:
        match = m.group(0)
        if match == "\\$":
            return "$$"
        if match.startswith("\\0"):
            match = "\\" + match[2:]  # `\0123` -> `\123`: an octal escape for Go
            digits = match[1:]
            if len(digits) == 3 and all(c in "01234567" for c in digits) and int(digits, 8) < 256:
                return chr(int(digits, 8))
            return match
        return _GO_ESCAPES.get(match[1], match)

    return _DOTENV_ESCAPE.sub(one, text)


def parse_compose_env_file(
    text: str, lookup: Mapping[str, str], into: EnvFile, *, earlier: Mapping[str, str | None] | None = None
) -> None:
    """An env file as docker compose reads it (compose-go v2 ``dotenv`` parser, ``parser.go``), into
    ``into.values`` (which may already hold earlier values: they are visible to ``${VAR}``).

    ``NAME=VALUE`` or ``NAME: VALUE``, optional ``export``; names of letters, digits, ``_ . - [ ]``;
    ``#`` lines are comments. Unquoted values end at the newline or at `` #`` and lose trailing blanks;
    ``'single'`` values are literal (only ``\\'`` is unescaped); ``"double"`` values get the Go escapes
    (``\\n``, ``\\t``, ``\\"`` ...). Unquoted and double-quoted values are interpolated like the compose file
    (``${VAR}``, ``${VAR:-default}``, ``$$``), looking in ``lookup`` first (compose's environment, then the
    service's ``environment:``) and then in the values read so far. A bare ``NAME`` takes its value from
    ``lookup`` and is left out when it is not there. ``earlier``: values of the files read before this one
    (lowest precedence for ``${VAR}``). A malformed line sets ``into.problem``."""

    def line_at(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    def interpolate(value: str, pos: int) -> str:
        so_far = {**(earlier or {}), **into.values}
        known = {k: v for k, v in so_far.items() if v is not None}
        result, unset = compose_interpolate(value, {**known, **lookup})
        into.unset.extend((name, line_at(pos)) for name in unset)
        return result

    n = len(text)
    i = 0
    while True:
        # getStatementStart: blank lines and comment lines
        while True:
            while i < n and text[i].isspace():
                i += 1
            if i >= n:
                return
            if text[i] != "#":
                break
            newline = text.find("\n", i)
            if newline < 0:
                return
            i = newline
        start = i
        if re.match(r"export\s", text[i : i + 7]):  # compose-go: `^export\s+`, then blanks
            i += len("export")
            while i < n and text[i] in _DOTENV_BLANK:
                i += 1
        key_start = i
        terminator = None
        while i < n:
            c = text[i]
            if c in "=:\n":
                terminator = c
                break
            if c in _DOTENV_BLANK or c in "_.-[]" or c.isalnum():
                i += 1
                continue
            first = text[key_start:].split("\n", 1)[0]
            into.problem = f"{into.path}:{line_at(i)}: unexpected character {c!r} in variable name {first!r}"
            return
        # a bare NAME on the last line (no newline) is taken as inherited, as it is followed by a newline
        key = text[key_start:i].rstrip()
        if " " in key:
            into.problem = f"{into.path}:{line_at(start)}: key cannot contain a space"
            return
        if terminator in (None, "\n"):
            i += 1
            if key in lookup:
                into.values.pop(key, None)
                into.values[key] = lookup[key]
                into.lines[key] = line_at(start)
            continue
        i += 1
        while i < n and text[i] in _DOTENV_BLANK:
            i += 1
        if i < n and text[i] in "'\"":
            quote = text[i]
            chars: list[str] = []
            k = i + 1
            escaped = closed = False
            while k < n:
                c = text[k]
                if escaped:
                    escaped = False
                    if c != quote:
                        chars.append("\\")
                    chars.append(c)
                elif c == "\\":
                    escaped = True
                elif c == quote:
                    closed = True
                    break
                else:
                    chars.append(c)
                k += 1
            if not closed:
                shown = text[i:].split("\n", 1)[0]
                into.problem = f"{into.path}:{line_at(i)}: unterminated quoted value {shown}"
                return
            value = "".join(chars)
            if quote == '"':
                value = interpolate(_expand_escapes(value), i)
            value_end = k + 1
        else:
            newline = text.find("\n", i)
            value_end = n if newline < 0 else newline + 1
            value = text[i : (n if newline < 0 else newline)].split(" #", 1)[0].rstrip()
            value = interpolate(value, i)
        if key:
            into.values.pop(key, None)
            into.values[key] = value
            into.lines[key] = line_at(start)
        i = value_end


def read_dotenv(path: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The ``.env`` file of a compose project (read on the current host), parsed as compose does; ``${VAR}``
    and bare names look in ``environ`` (compose's own environment) first. Missing or malformed: empty."""
    data, _problem, _missing = read_env_file(path)
    if data is None:
        return {}
    parsed = EnvFile(path, path)
    parse_compose_env_file(_env_text(data), environ or {}, parsed)
    return {k: v for k, v in parsed.values.items() if v is not None} if parsed.problem is None else {}


def _env_text(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # compose-go trims a UTF-8 byte order mark
    return data.decode("utf-8", "replace")


_COMPOSE_VAR = re.compile(
    r"\$(?:(?P<escaped>\$)|\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}"
    r"|(?P<plain>[A-Za-z_][A-Za-z0-9_]*))"
)


def compose_interpolate(text: str, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """Compose's own interpolation (not a shell): ``$VAR``, ``${VAR}``, ``${VAR:-d}``, ``${VAR-d}``,
    ``${VAR:+x}``, ``${VAR:?err}``, ``$$`` for a literal ``$``. Returns the text and the unset names."""
    unset: list[str] = []

    def sub(m: re.Match[str]) -> str:
        if m.group("escaped"):
            return "$"
        name = m.group("braced") or m.group("plain")
        op, arg = m.group("op"), m.group("arg") or ""
        value = env.get(name)
        if op in (":-", "-"):
            if value is None or (op == ":-" and value == ""):
                return arg
            return value
        if op in (":+", "+"):
            return arg if (value is not None and (op == "+" or value != "")) else ""
        if value is None:
            unset.append(name)
            return ""
        return value

    return _COMPOSE_VAR.sub(sub, text), unset


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


def render_transport_section(section: Mapping[str, Any]) -> Any:
    """Text view of the ``transport`` report section (``render/text.py`` SECTION_VIEWS): each hop with what
    the next machine or program receives, and every upload with the content that later runs."""
    from rich.text import Text

    out = Text("How the command travels", style="bold")
    for hop in section.get("hops") or []:
        out.append(f"\n  {hop.get('at') or '?'}  ", style="dim")
        via = str(hop.get("via") or "?")
        out.append(via, style="bold")
        if hop.get("error"):
            out.append(f"  (not followed: {hop['error']})", style="yellow")
            continue
        if via == "ssh":
            port = f" -p {hop['port']}" if hop.get("port") else ""
            out.append(f" {hop.get('host')}{port}")
            remote = hop.get("remote_command")
            if remote is None:
                out.append("  remote command not known statically", style="yellow")
            elif remote == "":
                out.append("  (no command: the login shell reads stdin)")
            else:
                out.append("\n      the node's shell receives: ", style="dim")
                out.append(repr(remote) if "\n" in remote else remote)
        elif via == "uploaded-script":
            out.append(f" {hop.get('host')}:{hop.get('path')} {' '.join(hop.get('args') or [])}")
            out.append(f"  (uploaded at {hop.get('uploaded_at')})", style="dim")
        elif via == "--host":
            out.append(f" {hop.get('user')}@{hop.get('hostname')} ({hop.get('host')}), cwd {hop.get('cwd')}")
            out.append(f"\n      non-interactive PATH: {hop.get('path')}", style="dim")
        elif via.startswith("--host"):
            found = hop.get("resolved") or "not found"
            version = hop.get("framework_version")
            out.append(f"  {hop.get('program')} -> {found}")
            if "framework_version" in hop:
                out.append(f"  (framework {version or 'not installed'})", style="dim")
        else:
            argv = hop.get("argv")
            if argv is not None:
                out.append("  " + _show_argv(argv))
            for key in ("service", "container", "image"):
                if hop.get(key):
                    out.append(f"  {key} {hop[key]}", style="dim")
            for env_file in hop.get("env_files") or []:
                out.append(f"\n      env file {env_file.get('path')}: ", style="dim")
                if env_file.get("problem"):
                    out.append(str(env_file["problem"]), style="red")
                elif env_file.get("skipped"):
                    out.append(f"not read ({env_file['skipped']})", style="yellow")
                else:
                    out.append(", ".join(env_file.get("variables") or []) or "(no variables)")
    for upload in section.get("uploads") or []:
        host = upload.get("host")
        target = f"{host}:{upload.get('path')}" if upload.get("path") else str(host)
        out.append(f"\n  {upload.get('at') or '?'}  ", style="dim")
        out.append("upload ", style="bold")
        out.append(f"{target}  via {upload.get('via') or 'ssh stdin'}")
        if upload.get("expansions"):
            out.append(f"  expanded locally: {', '.join(upload['expansions'])}", style="yellow")
        content = upload.get("content")
        if content is None:
            reason = upload.get("content_omitted") or "content not known statically"
            out.append(f"\n      ({reason})", style="dim")
            continue
        lines = content.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for number, line in enumerate(lines[:40], start=1):
            out.append(f"\n      {number:>3} ", style="dim")
            out.append(line.replace("\r", "\\r"))
        if len(lines) > 40:
            out.append(f"\n      ... {len(lines) - 40} more line(s)", style="dim")
    return out
