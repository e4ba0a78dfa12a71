"""The shell layer's input and output records: the script as read, and what its evaluation found.

This module owns ``ScriptSource`` (the bytes and the label every location uses) and ``ShellResult`` (the
predicted server commands, findings, every simple command and each server's condition). They live below the
package's entry point and the analysis that fills them, so neither has to import the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from argtrace.model import Finding, ServerCommand, VanishedWord
from argtrace.model_launch import CommandIO


@dataclass(frozen=True)
class ScriptSource:
    """The script as the shell layer reads it: the label findings name it by, its raw bytes and the real
    file, if any."""

    label: str  # the path as the user typed it, or "<-c>"; used in every ``at``
    data: bytes  # the raw bytes
    path: Path | None  # the real file (for ``source`` relative paths), None for -c
    # a Markdown page's own text when ``data`` is its blocks as a script (markdown.py: each ``<name>`` written
    # as ``${name}``, lines kept): shellcheck's opinion of such a placeholder is about argtrace's rewrite
    page: bytes | None = None


@dataclass
class ShellResult:
    """What the shell layer predicts: the server starts, its findings, and every command the script runs
    with the conditions and outputs of each server."""

    servers: list[ServerCommand]
    findings: list[Finding]
    syntax_ok: bool
    # every simple command predicted, in order: (at, argv with None for unknown words, condition)
    commands: list[tuple[str, list[str | None], str | None]] = field(default_factory=list)
    # for each of those commands (same order): its unquoted expansions that vanished (a container's words)
    command_vanished: list[tuple[VanishedWord, ...]] = field(default_factory=list)
    # for each of those commands (same order): the PATH it gets (None: not known, the caller's own)
    command_paths: list[str | None] = field(default_factory=list)
    # for each of those commands (same order): (moved, directory): whether the script changed directory
    # before it, and the directory it runs in (None: a `cd` to a directory not known statically)
    command_dirs: list[tuple[bool, str | None]] = field(default_factory=list)
    # for each of those commands (same order): whether it was started in the background (`&`)
    command_background: list[bool] = field(default_factory=list)
    # for each of those commands (same order): a here-document/here-string on its stdin and where its stdout
    # goes (None: no such stdin), for a launch file the script writes and hands on (transport/handoff.py)
    command_io: list[CommandIO | None] = field(default_factory=list)
    # for each of those commands (same order): the environment a `docker compose` command runs with (None:
    # another command; a value None: set, not known statically)
    command_env: list[dict[str, str | None] | None] = field(default_factory=list)
    # the commands (by number) with words known but for some quoted expansions: (index, the text with a
    # HOLE for each, the holes' expansions as written and why each is not known); an ssh hop reads the rest
    command_holed: dict[int, tuple[tuple[int, str, tuple[tuple[str | None, str], ...]], ...]] = field(
        default_factory=dict
    )
    # for each server (same order): the condition it depends on (None: always runs), and its stdout/stderr
    conditions: list[str | None] = field(default_factory=list)
    outputs: list[dict[str, str | None]] = field(default_factory=list)
    exit_reason: str | None = None
