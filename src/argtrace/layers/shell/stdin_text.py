"""What a command reads on stdin when the script itself gives it (a here-document as the shell expands it, a
here-string, ``< FILE``, the pipe from a producer), and what ``cat``/``envsubst`` print from it (GNU gettext's
envsubst rules): the input of the runners the shell and transport layers follow (``kubectl -f -``, ``bash
-s``, ``ssh HOST``), and SH054's event."""

from __future__ import annotations

import re
from collections.abc import Mapping

from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.core import from_str, to_str

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def heredoc_text(evaluator: Any, redir: L.RedirTok) -> str | None:
    """A here-document's body as the shell writes it: as written under a quoted delimiter, else expanded
    like a double-quoted word in which ``"`` is an ordinary character (bash(1), Here Documents); None when
    an expansion in it is not known statically."""
    body = redir.heredoc
    if body is None or redir.heredoc_quoted or not any(c in body for c in "$`\\"):
        return None if body is None else to_str(body)
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            # `\"` in a here-document is both characters; inside double quotes it would be a bare quote
            out.append('\\\\\\"' if body[i + 1] == '"' else body[i : i + 2])
            i += 2
            continue
        out.append('\\"' if c == '"' else c)
        i += 1
    word = L.WordTok('"' + "".join(out) + '"', redir.start)
    value: str | None = evaluator.expand_single(word)
    return None if value is None else to_str(value)


def here_text(evaluator: Any, op: str, target: str | None, redir: L.RedirTok) -> str | None:
    """What a here-string (``<<<``, ``target`` its expanded word) or a here-document gives on stdin, as the
    shell's own (latin-1) text that ``read``/``mapfile`` assign; None when it is not known statically or
    ``op`` is another redirection."""
    if op == "<<<":
        return None if target is None else target + "\n"
    if op in ("<<", "<<-"):
        text = heredoc_text(evaluator, redir)
        return None if text is None else from_str(text)
    return None


# `$NAME` / `${NAME}`: the references GNU envsubst replaces (gettext manual, "envsubst Invocation")
_ENVSUBST_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def stdin_filter(
    evaluator: Any,
    base: str,
    args: list[str],
    redirs: list[tuple[str | None, str, str | None, str, L.RedirTok]],
    prefix_env: Mapping[str, tuple[str | None, str, str, str | None]],
    read_files: bool = True,
) -> str | None:
    """What ``cat [FILE...]`` or ``envsubst [SHELL-FORMAT]`` prints, when its input is known statically: a
    here-document or here-string, ``< FILE`` or a FILE argument argtrace can read, or the pipe from a
    producer the script gives (``evaluator.pipe_in``); None otherwise. envsubst replacing a variable the
    script set without exporting it is an event (``envsubst_unexported``, SH054)."""
    given = command_stdin(evaluator, redirs, read_files)
    stdin = given[0] if given is not None else None
    if base == "cat":
        files = [a for a in args if a != "--"]
        if any(a.startswith("-") and a != "-" for a in files):
            return None  # an option (-n, -A...) changes what it prints
        if not files:
            return stdin
        texts = [stdin if a == "-" else _read_text(evaluator, a) if read_files else None for a in files]
        return None if any(t is None for t in texts) else "".join(t or "" for t in texts)
    if stdin is None or len(args) > 1 or any(a.startswith("-") for a in args):
        return None
    env: dict[str, str | None] = {k: v[0] for k, v in evaluator.exported_env().items()}
    env.update({k: v[0] for k, v in prefix_env.items()})
    # without SHELL-FORMAT every reference is replaced, an unset variable by nothing; with one, only the
    # names it references (unexported shell variables are not in envsubst's environment)
    only = {m.group(1) or m.group(2) for m in _ENVSUBST_REF.finditer(args[0])} if args else None
    out: list[str] = []
    at = 0
    for m in _ENVSUBST_REF.finditer(stdin):
        name = m.group(1) or m.group(2)
        if only is not None and name not in only:
            continue
        evaluator.read_names.add(name)  # read as `$NAME` would be (a caller's variable, a sourced file's)
        evaluator.plain_read_names.add(name)
        value = env[name] if name in env else ""
        if name not in env and (var := evaluator.lookup(from_str(name))) is not None and var.is_set:
            evaluator.emit(
                "envsubst_unexported",
                evaluator.cur_at,
                name=name,
                set_at=var.at,
                value=to_str(var.value) if var.known and var.value is not None else None,
            )
        if value is None:
            return None
        out.append(stdin[at : m.start()])
        out.append(to_str(value))
        at = m.end()
    out.append(stdin[at:])
    return "".join(out)


def filter_output(
    evaluator: Any, name: str, args: list[str], redirs: list[tuple[str | None, str, str | None, str, Any]]
) -> str | None:
    """What the text utility ``name`` (``core.TEXT_FILTERS``: ``wc``, ``tr``, ``cut``...) prints with ``args``
    when it reads the script's own text on stdin; None when not known statically. textfilters.py is imported
    here, at the first such command (a check of a script without one never needs it)."""
    from argtrace.layers.shell.textfilters import text_filter

    given = command_stdin(evaluator, redirs, read_files=False)
    return text_filter(name, args, given[0] if given else None)


def command_stdin(
    evaluator: Any, redirs: list[tuple[str | None, str, str | None, str, L.RedirTok]], read_files: bool = True
) -> tuple[str | None, str | None] | None:
    """What a command reads on stdin when the script says it: (text or None when not known statically, the
    file it comes from): its last here-document, here-string or ``< FILE`` on fd 0, else the pipe from a
    producer (``evaluator.pipe_in``); None when stdin is the caller's."""
    got: tuple[str | None, str | None] | None = None
    for fd, op, tgt, _at, r in redirs:
        if fd not in (None, "0"):
            continue
        if op in ("<<", "<<-"):
            got = (heredoc_text(evaluator, r), None)
        elif op == "<<<":
            got = (None if tgt is None else to_str(tgt) + "\n", None)
        elif op == "<":
            path = None if tgt is None else _path(evaluator, to_str(tgt))
            got = (_read_text(evaluator, path) if read_files else None, path)
    if got is None and evaluator.pipe_in is not None:
        got = (evaluator.pipe_in[0], None)
    return got


def _path(evaluator: Any, path: str) -> str | None:
    resolved: str | None = evaluator.resolve_path(path)
    return resolved


def _read_text(evaluator: Any, path: str | None) -> str | None:
    """A file's text for ``cat``/``envsubst``, by the rules ``mapfile < FILE`` reads one (``inputs``: on
    this machine or ``--host``'s, not one the script writes first); None otherwise."""
    resolved = None if path is None else _path(evaluator, path)
    if resolved is None or resolved.startswith(_MACHINE_STATE):
        return None  # the machine's own state (and /proc/kmsg would block): what the node has differs
    text, _why = evaluator._file_text(from_str(resolved))
    return None if text is None else to_str(text)


# files that describe the machine argtrace runs on, not the launch: never read for cat/envsubst
_MACHINE_STATE = ("/proc/", "/sys/", "/dev/", "/run/", "/etc/hostname")
