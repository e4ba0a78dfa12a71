"""The ssh hop: what the local shell, ssh itself and the node's shell do to a remote command.

This module owns following one ``ssh [opts] HOST WORDS...``: expansions the *local* shell already did
(TP001 unset, TP002 expanded here), ssh joining its words with spaces for the node's shell to split again
(TP003), the node's non-interactive shell (TP005: no ``~/.bashrc`` environment), a server backgrounded
with its output still tied to the session (TP009), and the analysis of the remote command by the shell
layer, whose servers become ordinary servers. ssh's stdin (uploads, ``bash -s``) is :mod:`.uploads`'s.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import replace

from argtrace.layers.shell.core import HOLE
from argtrace.layers.transport.context import TransportResult, _Context, _local_value
from argtrace.layers.transport.sshcall import SshCall, _host_of, _remote_env, parse_ssh
from argtrace.layers.transport.uploads import _upload_from_stdin
from argtrace.layers.transport.words import (
    SPLIT_NOT_KNOWN,
    _as_written,
    _flag_values,
    _local_expansions,
    _Located,
    _param_name,
    _show,
    _show_argv,
    _starts_server,
    _unquote,
)
from argtrace.model import Assumption, Evidence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell import ScriptSource


# What changes the argv when the node's shell splits the joined text again (a glob or `$` quoted locally
# for the node to expand is usually meant).
_RESPLIT = re.compile(r"[\s'\"\\]")


# What a bare interpreter over ssh rests on: the node's environment is not read statically.
NODE_ENVIRONMENT = Assumption(
    "node-environment",
    "the framework may be installed in an environment that ~/.bashrc activates",
    "the environment's interpreter by absolute path in the remote command",
)
_BARE_RUNNERS = {"python", "python3", "sglang", "vllm", "pip", "pip3", "torchrun", "uv"}


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
        holed = located.holed.get(call.remote_start + index) if located is not None else None
        # a word not known here: its expansions' values are read off its text with a HOLE for each unknown
        # one (the shell layer's); without that text none is known, and none is said to be unset
        for expansion, produced in _local_expansions(raw, word if holed is None else holed[0]):
            name = _param_name(expansion)
            if produced == SPLIT_NOT_KNOWN:
                # the word is known, what this expansion gave of it is not: expanded here, to a value not
                # read off the word (the environment's when it is the caller's variable)
                local = _local_value(name, ctx) if name is not None else None
                to = f" (to {_show(local)})" if local else ""
                result.findings.append(
                    R.TP002.finding(
                        f"`{expansion}` in the command for {call.destination} is expanded on this machine"
                        f"{to}, not on the node",
                        at=at,
                        evidence=[Evidence("transport", at, raw)],
                    )
                )
                continue
            if word is None and (produced is None or HOLE in produced):
                value: str | None = None  # computed on this machine, not known statically
            else:
                value = produced if produced is not None or name is None else _local_value(name, ctx)
            if name is not None and not value and (word is not None or value == ""):
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
        if located is None:
            return
        # the node still runs the other words: each unknown one stands as an unquoted variable whose value
        # is not known (the node's shell splits what arrives), so a server start in them is read
        unknown: dict[str, str] = {}
        written_as: dict[str, str] = {}
        parts: list[str] = []
        for index, word in enumerate(call.remote):
            holed = located.holed.get(call.remote_start + index)
            if word is None and holed is not None and holed[0] != HOLE:
                # known but for some expansions (`"... --addr $head_ip:5000"`): the node still reads the rest
                from argtrace.layers.shell.holes import fill_holes

                word, holes, named = fill_holes(holed[0], holed[1], first=len(unknown))
                unknown.update(holes)
                written_as.update(named)
            elif word is None:
                name = f"__argtrace_local_{index}"
                raw = raw_remote[index] if raw_remote else "a word"
                unknown[name] = f"`{raw}` is computed on this machine and not known statically"
                # braced: `$__argtrace_local_1` would also name the start of `$__argtrace_local_10`
                word = "${" + name + "}"
                written_as[word] = raw
            parts.append(word)
        _analyze_remote(at, host, call, " ".join(parts), ctx, result, unknown=unknown, written_as=written_as)
        return
    remote_text = " ".join(w for w in call.remote if w is not None)
    hop["remote_command"] = remote_text
    # ---- here-document on ssh's stdin: an upload (TP007)
    if located is not None:
        _upload_from_stdin(at, call, remote_text, located, ctx, result)
    # ---- the node's shell runs the joined text
    written = " ".join(_as_written(raw) for raw in raw_remote) if raw_remote else None
    _analyze_remote(at, host, call, remote_text, ctx, result, written=written)


def _analyze_remote(
    at: str,
    host: str,
    call: SshCall,
    remote_text: str,
    ctx: _Context,
    result: TransportResult,
    *,
    written: str | None = None,
    unknown: Mapping[str, str] | None = None,
    written_as: Mapping[str, str] | None = None,
) -> None:
    """``unknown``: the placeholders of words computed locally and not known statically (name -> why);
    ``written_as``: each placeholder's reference in the text -> the word or expansion as the script wrote
    it, which is how the node's analysis names them."""
    from argtrace.layers.shell import ScriptSource, analyze_script
    from argtrace.rules import transport as R

    if ctx.depth >= 4:
        return
    label = f"<ssh {call.destination}>"
    remote_source = ScriptSource(label=label, data=remote_text.encode("utf-8", "surrogateescape"), path=None)
    session = _remote_env(call)
    remote = analyze_script(
        remote_source,
        [],
        session.env,
        arg0="bash",
        run_shellcheck=False,
        cwd=session.cwd,
        unknown_env={**session.unknown, **(unknown or {})},
        cwd_unknown=session.cwd is None,
    )
    if written_as:
        from argtrace.layers.shell.holes import as_written

        remote = as_written(remote, written_as)
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
    failed_activation = False  # then the bare interpreter after it is that finding's consequence
    for cmd_at, argv, _cond in remote.commands:
        if not argv or argv[0] is None:
            continue
        base = argv[0]
        if base in ("conda", "mamba", "micromamba") and argv[1:2] == ["activate"] and not activated:
            failed_activation = True
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
        elif base in _BARE_RUNNERS and not activated and not failed_activation and _starts_server(argv):
            # Wrong only when the framework lives in an environment ~/.bashrc activates: a system Python
            # or an image's with the framework installed is right, and nothing here shows the node's.
            finding = R.TP005.finding(
                f"`{base}` is looked up on the PATH of a non-interactive ssh session on "
                f"{call.destination}: "
                "~/.bashrc returns early there, so if the framework is in a conda/venv environment "
                f"activated in it, that environment is not active and another `{base}` (or none) runs",
                at=at,
                evidence=[Evidence("transport", cmd_at, _show_argv(argv))],
                severity="info",
                basis="assumed",
            )
            result.findings.append(replace(finding, assumptions=(NODE_ENVIRONMENT,)))
    ctx.depth += 1
    try:
        ctx.follow(remote_source, remote, ctx, result, local_shell=False, ssh_host=host)
    finally:
        ctx.depth -= 1
