"""Env files read by ``source``: the ``NAME=value with blanks`` line that bash runs as a command.

This module owns one text check of a sourced file that looks like an env file (every statement a
``NAME=VALUE`` or ``export NAME=VALUE`` line). bash ends an unquoted assignment's value at the first
unquoted blank, and a word after it makes the line a command with a temporary assignment (bash(1), SIMPLE
COMMAND EXPANSION: "If no command name results, the variable assignments affect the current shell
environment"; otherwise they are "added to the environment of the executed command"): ``source .env`` with
``NAME=SAS Job Execution`` runs ``Job`` ("Job: command not found") and leaves NAME unset in the shell
(sassoftware/sas-mcp-server#32). The same line read by ``docker run --env-file`` keeps the whole value, and a
quoted one keeps its quotes there (TP017): one file cannot serve both readers.
"""

from __future__ import annotations

import re

# NAME=VALUE (not after `export`, whose later words are more names to export), then blanks, then a word that
# is no comment; the value has no quote, expansion or escape (those are read by the evaluator, not here)
_LINE = re.compile(r"^[ \t]*([A-Za-z_][A-Za-z0-9_]*)=([^\s'\"\\$`#;&|<>()]+)[ \t]+([^\s#=;&|<>()]\S*)")
_ASSIGNMENT = re.compile(r"^[ \t]*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*=")


def env_lines_running_a_word(text: str) -> list[tuple[int, str, str, str]]:
    """``(line, NAME, value bash keeps, the word run as a command)`` for each such line, when every
    statement of ``text`` is an assignment line (an env file, not a script)."""
    lines = text.splitlines()
    statements = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not statements or not all(_ASSIGNMENT.match(ln) for ln in statements):
        return []
    out: list[tuple[int, str, str, str]] = []
    for number, line in enumerate(lines, 1):
        m = _LINE.match(line)
        # `A=1 B=2` is two assignments; `export A=x y` exports A and y (bash's export builtin): no command
        if m is not None and not _ASSIGNMENT.match(m.group(3)):
            out.append((number, m.group(1), m.group(2), m.group(3)))
    return out
