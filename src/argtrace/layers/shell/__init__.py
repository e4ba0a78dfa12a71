"""The shell layer: what bash would hand to each server process, found by reading the script (never run).

Entry point: :func:`analyze_script`. The script is parsed with tree-sitter-bash (structure) and re-read
word by word with bash's own rules (``lexer``), evaluated statically (``evaluate``), scanned for text-level
hazards (``hazards``), checked with ``bash -n`` (``syntax``) and, for scripts up to 256 KB, by shellcheck.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from argtrace.model import Finding, ServerCommand


@dataclass(frozen=True)
class ScriptSource:
    label: str  # the path as the user typed it, or "<-c>"; used in every ``at``
    data: bytes  # the raw bytes
    path: Path | None  # the real file (for ``source`` relative paths), None for -c


@dataclass
class ShellResult:
    servers: list[ServerCommand]
    findings: list[Finding]
    syntax_ok: bool
    # every simple command predicted, in order: (at, argv with None for unknown words, condition)
    commands: list[tuple[str, list[str | None], str | None]] = field(default_factory=list)
    # for each server (same order): the condition it depends on (None: always runs), and its stdout/stderr
    conditions: list[str | None] = field(default_factory=list)
    outputs: list[dict[str, str | None]] = field(default_factory=list)
    exit_reason: str | None = None


def analyze_script(
    source: ScriptSource,
    args: Sequence[str],
    env: Mapping[str, str],
    *,
    arg0: str | None = None,
    run_shellcheck: bool = True,
    cwd: str | None = None,
) -> ShellResult:
    """Predict the server commands of a script and report the shell-level hazards.

    ``args`` are ``$1 $2 ...``; ``env`` the starting environment; ``arg0`` is ``$0`` (default: the label);
    ``cwd`` the directory the script is started from (default: the current directory).
    """
    from argtrace.layers.shell.analysis import analyze

    return analyze(
        source,
        list(args),
        dict(env),
        arg0=arg0 if arg0 is not None else source.label,
        run_shellcheck=run_shellcheck,
        cwd=cwd if cwd is not None else _getcwd(),
    )


def _getcwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


__all__ = ["ScriptSource", "ShellResult", "analyze_script"]
