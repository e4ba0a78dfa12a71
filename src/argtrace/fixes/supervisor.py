"""Edits for a Supervisor configuration's ``command=`` (TP100, and TP013 there): what supervisor runs with
no shell, written the way supervisor reads it (``layers/transport/supervisor.py``)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from argtrace.fixes.edits import Producer, Proposal, SourceFile, parse_at
from argtrace.model import Finding, FixEdit, Report

# the `command=` line the finding points at: the key, the separator and the value's first column
_COMMAND = re.compile(r"^(command[ \t]*[=:][ \t]*)", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S*)[ \t]+")
_PROGRAM_MESSAGE = re.compile(r"^program (\S+)'s `command=` is run without a shell")
_SECTION = re.compile(r"^\[([^\]]+)\]")


def _environment_line(source: SourceFile, command_line: int) -> int | None:
    """The ``environment=`` line of the section the command is in, or None."""
    lines = source.lines
    start = command_line - 1
    while start > 0 and not _SECTION.match(lines[start - 1]):
        start -= 1
    end = command_line
    while end < len(lines) and not _SECTION.match(lines[end]):
        end += 1
    for number in range(start + 1, end + 1):
        if re.match(r"environment[ \t]*[=:]", lines[number - 1], re.IGNORECASE):
            return number
    return None


def leading_assignment(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """TP100: ``command=NAME=value prog ...`` -> ``command=prog ...`` and ``NAME="value"`` in the
    program's ``environment=`` (a new line after the command when the section has none)."""
    where = parse_at(finding.at)
    line = source.line(where[1]) if where else None
    key = _COMMAND.match(line) if line else None
    if where is None or line is None or key is None:
        return None
    number, start = where[1], key.end()
    edits: list[FixEdit] = []
    pairs: list[str] = []
    at = start
    while (assignment := _ASSIGNMENT.match(line, at)) is not None:
        name, value = assignment.group(1), assignment.group(2).strip("'\"")
        if '"' in value:  # supervisor's environment= has no escape for a double quote inside one
            return None
        pairs.append(f'{name}="{value}"')
        at = assignment.end()
    if not pairs:
        return None
    edits.append(FixEdit(source.label, f"{number}:{start + 1}", f"{number}:{at + 1}", ""))
    env_line = _environment_line(source, number)
    if env_line is None:
        end = len(line.rstrip("\r\n"))
        newline = line[end:] or "\n"
        edits.append(
            FixEdit(
                source.label,
                f"{number}:{end + 1}",
                f"{number}:{end + 1}",
                newline + "environment=" + ",".join(pairs),
            )
        )
    else:
        text = source.lines[env_line - 1]
        end = len(text.rstrip("\r\n"))
        edits.append(
            FixEdit(source.label, f"{env_line}:{end + 1}", f"{env_line}:{end + 1}", "," + ",".join(pairs))
        )
    return Proposal(
        tuple(edits),
        f"Move {', '.join(p.split('=', 1)[0] for p in pairs)} from `command=` to the program's "
        f"`environment=` ({', '.join(pairs)}) at {source.label}:{number}.",
    )


def env_reference(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """TP013 in a program's ``command=``: each ``$NAME``/``${NAME}`` word (or a flag's ``=$NAME``) becomes
    ``%(ENV_NAME)s``, which supervisor expands from its environment and ``environment=`` lines; only when
    the command holds no other shell syntax (a redirection has no edit here: where the output goes is the
    user's choice)."""
    where = parse_at(finding.at)
    line = source.line(where[1]) if where else None
    key = _COMMAND.match(line) if line else None
    if where is None or line is None or key is None or _PROGRAM_MESSAGE.match(finding.message) is None:
        return None
    value = line[key.end() :]
    if re.search(r"(^|\s)(&&|\|\||\||;|>|>>|<|2>&1|&>|&)(\s|$)|\$\(", value):
        return None
    edits = [
        FixEdit(
            source.label,
            f"{where[1]}:{key.end() + m.start() + 1}",
            f"{where[1]}:{key.end() + m.end() + 1}",
            f"%(ENV_{m.group(1) or m.group(2)})s",
        )
        for m in re.finditer(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", value)
    ]
    if not edits:
        return None
    return Proposal(
        tuple(edits),
        f"Write each `$NAME` of `command=` as `%(ENV_NAME)s` at {source.label}:{where[1]}: supervisor "
        "expands it from its own environment and `environment=` lines; no shell runs the command.",
    )


SUPERVISOR_PRODUCERS: Mapping[str, Producer] = {"TP100": leading_assignment, "TP013": env_reference}
SUPERVISOR_NOTES: Mapping[str, str] = {
    "TP100": "moves the `NAME=value` words from `command=` to the program's `environment=`",
    "TP013": "in a Supervisor `command=` without other shell syntax, writes `$NAME` as `%(ENV_NAME)s`",
}
