"""Uploads: files that reach the node before a later command runs them.

This module owns a here-document or ``< file`` on ssh's stdin (``ssh HOST 'cat > f' <<EOF``, ``tee``,
``dd of=``; or a script for the node's shell: ``ssh HOST bash -s -- ARGS < launch.sh``), what the local
shell expands in an unquoted here-document while sending it (TP007), ``scp``/``rsync`` copies (bytes
unchanged: CRLF stays CRLF, TP008), and the analysis of an uploaded script when ``bash FILE ARGS`` later
runs it on that node (its servers, and each flag traced back to the word the user wrote).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping, Sequence

from argtrace.layers.transport.command_names import _SHELLS, _basename, _split_at
from argtrace.layers.transport.context import TransportResult, _Context, _local_value
from argtrace.layers.transport.sshcall import SshCall, _host_of, _remote_env
from argtrace.layers.transport.words import (
    _flag_values,
    _latin1_bytes,
    _line_chunk,
    _Located,
    _param_name,
    _show,
    _unquote,
    split_like_shlex,
)
from argtrace.model import Evidence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SCP_OPTS_WITH_VALUE = set("cDFiJlOoPSX")


_UPLOAD_COMMAND = re.compile(r"^\s*(?:cat\s*>>?\s*|tee\s+(?:-a\s+)?|dd\s+of=)(?P<path>\S+)\s*$")


def _upload_target(remote_text: str) -> str | None:
    m = _UPLOAD_COMMAND.match(remote_text)
    if m is None:
        return None
    path = m.group("path")
    try:
        words = split_like_shlex(path)
    except ValueError:
        return None
    return words[0] if len(words) == 1 else None


def _stdin_shell_args(remote_text: str) -> list[str] | None:
    """For ``ssh HOST`` (login shell), ``ssh HOST bash -s -- A B`` and the like, the arguments the shell
    reading the script from stdin gets; ``None`` when the remote command does not read a script on stdin."""
    try:
        words = split_like_shlex(remote_text)
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
    from argtrace.remote.host import HostError, current_host

    if located.heredoc is not None:
        body = located.heredoc
        expansions = [] if located.heredoc_quoted else _heredoc_expansions(body)
        if located.heredoc_quoted:
            return _latin1_bytes(body), expansions, body, "here-document"
        if located.expanded is not None:  # the script's shell, with the script's variables at that point
            text = located.expanded[0]
            return (_latin1_bytes(text) if text is not None else None), expansions, body, "here-document"
        if not expansions:  # still the backslashes the shell removes (`\$P` sends `$P`)
            sent = "".join(t for t, _ in _heredoc_parts(body))
            return _latin1_bytes(sent), expansions, body, "here-document"
        return _expand_heredoc(body, ctx), expansions, body, "here-document"
    if located.stdin_file is not None:
        try:
            words = split_like_shlex(_latin1_bytes(located.stdin_file).decode("utf-8", "replace"))
        except ValueError:
            return None, [], None, "file"
        if len(words) != 1:
            return None, [], None, "file"
        try:
            data = current_host().read_bytes(words[0], limit=4 * 1024 * 1024)
        except HostError:
            return None, [], None, words[0]
        return data, [], None, words[0]
    if located.piped_from is not None:
        # `cat launch.sh | ssh HOST bash -s`: what the producer writes, as the shell layer read it
        piped = None if located.piped is None else located.piped.encode("utf-8", "surrogateescape")
        return piped, [], None, f"the output of `{located.piped_from}`"
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
        "via": "ssh stdin"
        if what == "here-document"
        else (f"ssh stdin: {what}" if located.piped_from is not None else f"ssh stdin < {what}"),
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
        produced = _values_in(body, content) if content is not None else None
        kept = True  # every expansion a named variable the script gives a value: the node gets that value
        for expansion in expansions:
            name = _param_name(expansion)
            if produced is not None and expansion in produced:
                value: str | None = produced[expansion]
            else:
                value = _local_value(name, ctx) if name is not None else None
            kept = kept and name is not None and not name.isdigit() and name not in "@*#?$!-" and bool(value)
            details.append(
                (f"{expansion} -> {_show(value) if value else 'empty (unset)'}")
                if name is not None
                else f"{expansion} -> run now, on this machine"
            )
        verb = "uploaded to" if target is not None else "sent as a script to"
        result.findings.append(
            R.TP007.finding(
                f"the here-document {verb} {where} has an unquoted delimiter, so the local shell expands "
                f"{', '.join(expansions)} while sending it: "
                + "; ".join(details)
                + (" (the node gets these values, not the variables)" if kept else ""),
                severity="info" if kept else None,
                fix=(
                    "Nothing to fix if the node should get this machine's values; quote the delimiter "
                    "(`<<'EOF'`) to send the variables for the node's shell to expand instead."
                    if kept
                    else None
                ),
                at=f"{at.rsplit(':', 2)[0]}:{located.heredoc_line}" if located.heredoc_line else at,
                evidence=[
                    Evidence("transport", at, body.rstrip("\n")),
                    Evidence("transport", where, shown or "<unknown>"),
                ],
            )
        )
    if shell_args is not None and content is not None:
        _run_script_on_node(at, host, f"{call.destination}:<stdin>", content, shell_args, "bash", ctx, result)


def _heredoc_parts(body: str) -> list[tuple[str, bool]]:
    """An unquoted here-document body cut into (text, is an expansion): the literal text as the shell
    writes it (a backslash quotes only ``$``, a backquote, a backslash and a newline there; bash manual,
    "Here Documents"), and each ``$x``, ``${x}``, ``$1``, ``$(...)``, ``$((...))`` or backquoted part."""
    parts: list[tuple[str, bool]] = []
    literal: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\" and i + 1 < n and body[i + 1] in "$`\\\n":
            if body[i + 1] != "\n":
                literal.append(body[i + 1])
            i += 2
            continue
        m = _EXPANSION.match(body, i) if c == "$" else None
        j = body.find("`", i + 1) if c == "`" else -1
        if m is not None or j > 0:
            end = m.end() if m is not None else j + 1
            if literal:
                parts.append(("".join(literal), False))
                literal = []
            parts.append((body[i:end], True))
            i = end
            continue
        literal.append(c)
        i += 1
    if literal:
        parts.append(("".join(literal), False))
    return parts


def _values_in(body: str, content: bytes) -> dict[str, str] | None:
    """What each expansion of ``body`` produced in ``content`` (the body as the script's shell expanded
    it), read off by the literal text around it; None where that is ambiguous."""
    parts = _heredoc_parts(body)
    pattern = "".join("(.*?)" if is_exp else re.escape(text) for text, is_exp in parts)
    m = re.fullmatch(pattern, content.decode("latin-1"), re.DOTALL)
    if m is None:
        return None
    values: dict[str, str] = {}
    for (text, _), value in zip((p for p in parts if p[1]), m.groups(), strict=True):
        if values.setdefault(text, value) != value:
            return None
    return values


_EXPANSION = re.compile(r"\$(\{[^}]*\}|\(\([^)]*\)\)|\([^)]*\)|[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])")


def _heredoc_expansions(body: str) -> list[str]:
    """``$x``, ``${x}``, ``$1``, ``$(...)``, ``$((...))`` and backquotes in an unquoted here-document body."""
    return list(dict.fromkeys(text for text, is_expansion in _heredoc_parts(body) if is_expansion))


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


def _copy(
    at: str,
    argv: list[str | None],
    ctx: _Context,
    result: TransportResult,
    written: Mapping[str, Any] | None = None,
) -> None:
    """``scp``/``rsync`` LOCAL... HOST:DEST: the copied file is what later runs there (CRLF check).
    ``written``: the files the script wrote from here-documents so far (handoff.note_write), by absolute
    path: such a file is copied as the script wrote it, though it is not on this machine's disk."""
    from argtrace.remote.host import HostError, current_host
    from argtrace.rules import transport as R

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
        made = (written or {}).get(posixpath.normpath(posixpath.join(os.getcwd(), src)))
        if made is not None:
            if made.text is None:
                continue  # the script wrote it, with a body not known statically
            data = made.text.encode("utf-8", "surrogateescape")
        else:
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
    session = _remote_env(SshCall(host, None, None, (), (), 0))
    source = ScriptSource(label=label, data=content, path=None)
    shell = analyze_script(
        source,
        list(args),
        session.env,
        arg0=arg0,
        run_shellcheck=False,
        cwd=session.cwd,
        unknown_env=session.unknown,
        cwd_unknown=session.cwd is None,
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
        ctx.follow(source, shell, ctx, result, local_shell=False, ssh_host=host)
    finally:
        ctx.depth -= 1
