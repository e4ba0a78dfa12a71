"""A command string known but for some quoted expansions (``bash -c "python3 ... --addr $head_ip:5000"``,
where ``head_ip`` came from ``$(hostname -I)``): the shell that runs the string still runs its other words.

bash(1), ``-c``: "commands are read from the first non-option argument command_string", after the calling
shell made that string: the value of each expansion is text of the child's script. Each unknown value
stands in that text as an unquoted variable of the child whose value is not known (``unknown_env``), as
the ssh hop does for a whole word computed locally (layers/transport/ssh.py): a word built from it is
unknown with the expansion's own reason, and a server start in the other words is read. What rests on this:
that the value is a plain word, not shell syntax the child would read as code (``;``, quotes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from argtrace.layers.shell.core import _BREAK, HOLE, Event, ExpWord, FoundServer, _Chunk, to_str

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell.result import ShellResult

PREFIX = "__argtrace_hole_"

# A word known but for some quoted expansions, as the shell layer gives it to its readers
# (``ShellResult.command_holed``): the text with a HOLE for each, and each hole's expansion as written and
# why it is not known.
Holed = tuple[str, tuple[tuple[str | None, str], ...]]


def take_holes(field: dict[str, Any], piece: str, queue: list[tuple[str | None, str]]) -> None:
    """The holes of ``piece`` (split from an unquoted variable's holed text) become ``field``'s, in order:
    the field is unknown for the first one's reason, and may split further where the value has blanks."""
    count = piece.count(HOLE)
    if count:
        taken = queue[:count]
        del queue[:count]
        field.setdefault("holes", []).extend(taken)
        field["reason"] = field["reason"] or (taken[0][1] if taken else "not known statically")
        field["hole_split"] = True


# A holed text is a launch command's size: past these it is only unknown (`X=$X$X` over an unknown X would
# double a text of holes at each line; tests/security/test_probe_limits.py caught it)
HOLED_MAX = 64 * 1024
MAX_HOLES = 64


def holes_fit(field: dict[str, Any], chunk: _Chunk) -> bool:
    """Whether ``chunk``'s holed text may join ``field``'s (within HOLED_MAX and MAX_HOLES); when not, the
    field is unknown without a holed text."""
    size = field.get("holed_size", 0) + len(chunk.holed or "")
    if size > HOLED_MAX or len(field.get("holes", ())) + len(chunk.holes) > MAX_HOLES:
        field["no_holes"] = True
        return False
    field["holed_size"] = size
    return True


def holed_text(chunks: list[_Chunk]) -> tuple[str, tuple[tuple[str | None, str], ...]] | None:
    """An assigned value's text with a HOLE for each expansion not known statically, and the holes; None
    when a word break (`$@`) or an empty list is among the chunks, when nothing of it is known, or past
    HOLED_MAX characters or MAX_HOLES holes."""
    pieces: list[str] = []
    holes: list[tuple[str | None, str]] = []
    size = 0
    for c in chunks:
        if c is _BREAK or c.reason == "EMPTY_AT":
            return None
        if c.text is not None:
            piece = c.text
        elif c.holed is not None:
            piece = c.holed
            holes.extend(c.holes)
        else:
            piece = HOLE
            holes.append(
                (to_str(c.source) if c.source is not None else None, c.reason or "not known statically")
            )
        size += len(piece)
        if size > HOLED_MAX or len(holes) > MAX_HOLES:
            return None
        pieces.append(piece)
    text = "".join(pieces)
    return (text, tuple(holes)) if text.strip(HOLE) else None


def printf_holed(fmt: str, args: list[ExpWord]) -> Holed | None:
    """What ``printf -v VAR FORMAT ARGS...`` assigns when some ARGS are not known statically: FORMAT's
    output with a HOLE for each such value, when each one reaches the output whole and in order (``%s``;
    ``%q``, ``%d`` or a precision would change it: then None, the value only unknown)."""
    from argtrace.layers.shell.outputs import _printf

    values: list[str] = []
    holes: list[tuple[str | None, str]] = []
    for w in args:
        if w.text is not None:
            values.append(w.text)
        elif w.holed is not None:
            values.append(w.holed)
            holes.extend(w.holes)
        else:
            values.append(HOLE)
            holes.append(
                (w.expansion if w.expansion != "literal" else None, w.reason or "not known statically")
            )
    if not holes or len(holes) > MAX_HOLES:
        return None
    out = _printf(fmt, values)
    if out is None or out.count(HOLE) != len(holes) or len(out) > HOLED_MAX or not out.strip(HOLE):
        return None
    # a value of another length must leave the rest as it is: a width pads by the value's length, a
    # precision cuts it
    longer = _printf(fmt, [v.replace(HOLE, HOLE * 2) for v in values])
    if longer != out.replace(HOLE, HOLE * 2):
        return None
    return out, tuple(holes)


def _quote_states(holed: str) -> list[str]:
    """The quoting each HOLE of ``holed`` stands in, as the child shell reads its text: "" (none), "'",
    '"' or "$'" (bash(1), QUOTING). A comment or a here-document is read as plain text (rare in such a
    string; a hole there reaches no server word)."""
    states: list[str] = []
    state = ""
    i, n = 0, len(holed)
    while i < n:
        ch = holed[i]
        if ch == HOLE:
            states.append(state)
        elif state == "'":
            if ch == "'":
                state = ""
        elif state in ('"', "$'"):
            if ch == "\\":
                i += 1
            elif (ch == '"' and state == '"') or (ch == "'" and state == "$'"):
                state = ""
        elif ch == "\\":
            i += 1
        elif ch == "'":
            state = "'"
        elif ch == '"':
            state = '"'
        elif ch == "$" and holed[i + 1 : i + 2] == "'":
            state, i = "$'", i + 1
        i += 1
    return states


def fill_holes(
    holed: str, holes: tuple[tuple[str | None, str], ...], *, first: int = 0
) -> tuple[str, dict[str, str], dict[str, str]]:
    """``holed`` (a HOLE for each unknown expansion) with each hole as an expansion of a variable the child
    does not know, quoted as the text around it is (``'...'"${NAME}"'...'`` inside single quotes: the value
    is one literal piece there); those variables with why each is unknown; and each ``${NAME}`` with the
    expansion it stands for as the script wrote it, to name it so in what the child reports."""
    pieces = holed.split(HOLE)
    states = _quote_states(holed)
    unknown: dict[str, str] = {}
    written: dict[str, str] = {}
    out = [pieces[0]]
    for index, piece in enumerate(pieces[1:]):
        name = f"{PREFIX}{first + index}"
        source, reason = holes[index] if index < len(holes) else (None, "not known statically")
        unknown[name] = reason
        reference = "${" + name + "}"
        state = states[index] if index < len(states) else ""
        if state == "'":
            reference = "'\"" + reference + "\"'"
        elif state == "$'":
            reference = "'\"" + reference + "\"$'"
        # named as written: the quoted form first (`'$M'` reads as the script wrote it), then the bare one
        written[reference] = written["${" + name + "}"] = source or "an expansion not known statically"
        out.append(reference)
        out.append(piece)
    return "".join(out), unknown, written


def shown_as_written(holed: Holed) -> str:
    """``holed``'s text with each hole written as the script wrote its expansion (``$head_ip``), for a
    hop's view of the words a carrier hands on."""
    pieces = holed[0].split(HOLE)
    out = [pieces[0]]
    for index, piece in enumerate(pieces[1:]):
        source = holed[1][index][0] if index < len(holed[1]) else None
        out.append(source or "<unknown>")
        out.append(piece)
    return "".join(out)


def as_written(result: ShellResult, written: Mapping[str, str]) -> ShellResult:
    """``result`` (a child shell's analysis of a string with placeholders: ``fill_holes``' variables, the
    ssh hop's whole words) with each placeholder named as the script wrote it, in its findings' texts and
    its servers' words. ``written`` lists a hole's quoted forms before its bare ``${NAME}``, as
    ``fill_holes`` returns them, so that ``'"${NAME}"'`` reads as the one expansion it stands for."""

    def named(text: str | None) -> str | None:
        if text is None or "__argtrace_" not in text:
            return text
        for placeholder, raw in written.items():
            text = text.replace(placeholder, raw)
        return text

    findings = [
        replace(
            f,
            message=named(f.message) or f.message,
            evidence=tuple(replace(e, text=named(e.text) or e.text) for e in f.evidence),
        )
        for f in result.findings
    ]
    servers = [
        replace(
            server,
            argv=tuple(
                replace(w, origin=replace(w.origin, expansion=named(w.origin.expansion))) for w in server.argv
            ),
        )
        for server in result.servers
    ]
    return replace(result, findings=findings, servers=servers)


def _named(value: Any, written: dict[str, str]) -> Any:
    if isinstance(value, str):
        if PREFIX in value:
            for placeholder, source in written.items():
                value = value.replace(placeholder, source)
        return value
    if isinstance(value, list):
        return [_named(v, written) for v in value]
    if isinstance(value, tuple):
        return tuple(_named(v, written) for v in value)
    if isinstance(value, dict):
        return {k: _named(v, written) for k, v in value.items()}
    return value


def name_holes(
    servers: list[FoundServer],
    events: list[Event],
    written: dict[str, str],
    unknown: dict[str, str],
    commands: list[Any] | None = None,
) -> None:
    """Name each hole's variable as the expansion the script wrote, in the servers and events met while the
    string ran (changed in place: the evaluator may hold them); a server word that still holds a hole's name
    as text (read where `_quote_states` did not see it) is not known, for that hole's reason. ``commands``:
    the string's predicted commands, whose own holed words (a `docker exec C bash -c '...'` in it, read by
    the transport layer) name their holes so too."""

    def word(w: Any) -> Any:
        expansion = _named(w.expansion, written)
        if w.text is not None and PREFIX in w.text:
            name = next((n for n in unknown if n in w.text), None)
            why = unknown.get(name or "", "not known statically")
            return replace(w, text=None, expansion=expansion, reason=why)
        return replace(w, expansion=expansion)

    for server in servers:
        server.argv = [word(w) for w in server.argv]
    for event in events:
        event.data = _named(event.data, written)
    listed = commands if commands is not None else []
    for number, command in enumerate(listed):
        if command.holed:
            holed = tuple((i, text, _named(holes, written)) for i, text, holes in command.holed)
            listed[number] = replace(command, holed=holed)


def run_holed_eval(evaluator: Any, args: list[ExpWord], at: str) -> int | None:
    """``eval "python3 ... --host $ip"`` with ``ip`` not known: eval's string is its words joined with
    spaces (bash(1), eval), each unknown expansion a variable of this shell whose value is not known."""
    parts: list[str] = []
    unknown: dict[str, str] = {}
    written: dict[str, str] = {}
    for w in args:
        if w.text is not None:
            parts.append(w.text)
            continue
        text, holes, named = fill_holes(w.holed or "", w.holes, first=len(unknown))
        parts.append(text)
        unknown.update(holes)
        written.update(named)
    for name, why in unknown.items():
        evaluator.set_var(name, None, at=at, expansion="eval", reason=why)
    servers, events = len(evaluator.servers), len(evaluator.events)
    try:
        return evaluator.run_string(" ".join(parts), at, label=f"eval at {at}")
    finally:
        name_holes(evaluator.servers[servers:], evaluator.events[events:], written, unknown)
        for name in unknown:
            evaluator.scopes[0].pop(name, None)
