"""The shell layer: what bash would hand to each server process, found by reading the script (never run).

Entry point: :func:`analyze_script`. The script is parsed with tree-sitter-bash (structure) and re-read
word by word with bash's own rules (``lexer``), evaluated statically (``evaluate``), scanned for text-level
hazards (``hazards``), checked with ``bash -n`` (``syntax``) and, for scripts up to 256 KB, by shellcheck.

What the result means:

- ``ServerCommand.argv`` is what bash hands to ``execve`` for the server command, wrappers that are programs
  included (``nohup``, ``env``, ``numactl``...; ``exec``/``command``/``time`` are shell syntax and are not);
  ``server_args_start`` indexes the first word the framework's parser gets (see ``frameworks.detect``).
- Each word's ``Origin.at`` is where the *word* is written in the command (``label:line:col``, columns in
  characters); ``Origin.expansion`` is ``"literal"`` or the word's source text (``$2``, ``"$@"``,
  ``--port=${PORT:-30000}``), so words from ``"$@"`` are recognisable. Words produced by ``eval``, ``bash
  -c`` or ``$(...)`` strings carry the location of that string.
- A word bash would produce but argtrace cannot know has ``text=None`` and a reason. An unquoted unknown
  expansion may in reality be zero or several words; it is kept as one unknown word.
- ``ServerCommand.env`` is the whole environment of the process: the starting ``env`` (origin expansion
  ``"environment"``, ``at=None``), exported variables, ``VAR=x cmd`` prefixes, ``env X=1`` words, and what
  bash itself sets (``PWD``, ``OLDPWD`` after ``cd``, ``SHLVL`` exactly as bash computes it). ``_`` is not
  predicted.
- Branches, loops and ``&&``/``||`` whose condition is not known are evaluated on each side and merged: a
  variable that differs becomes unknown (the reason lists the candidate values); servers found inside are
  reported with ``ShellResult.conditions[i]`` set to the condition.
- File tests (``[ -f x ]``) use this machine's files only when the file exists here; otherwise they are
  unknown (the script usually runs on another machine). The same holds for ``source``.
- ``$(...)`` is evaluated statically when its output can be known (``echo``, ``printf``, ``pwd``,
  ``dirname``, ``basename``, ``readlink -f``, ``realpath``, functions and branches made of those); anything
  else is unknown. Nothing is ever executed: ``bash -n`` only parses, shellcheck only reads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from argtrace.layers.shell.result import ScriptSource, ShellResult


def analyze_script(
    source: ScriptSource,
    args: Sequence[str],
    env: Mapping[str, str],
    *,
    arg0: str | None = None,
    run_shellcheck: bool = True,
    cwd: str | None = None,
    unknown_env: Mapping[str, str] | None = None,
    args_unknown: str | None = None,
    cwd_unknown: bool = False,
) -> ShellResult:
    """Predict the server commands of a script and report the shell-level hazards.

    ``args`` are ``$1 $2 ...``; ``env`` the starting environment; ``arg0`` is ``$0`` (default: the label);
    ``cwd`` the directory the script is started from (default: the current directory); ``unknown_env``
    the variables it starts with whose values are not known here (name -> why); ``args_unknown``: the
    arguments are not given at all (``argtrace lint``), ``$1``/``$@``/``$#`` are unknown for this reason;
    ``cwd_unknown``: the script starts in a directory not known here (a node's home), not the current one.
    """
    from argtrace.layers.shell.analysis import analyze

    return analyze(
        source,
        list(args),
        dict(env),
        arg0=arg0 if arg0 is not None else source.label,
        run_shellcheck=run_shellcheck,
        cwd=cwd if cwd is not None or cwd_unknown else _getcwd(),
        unknown_env=unknown_env,
        args_unknown=args_unknown,
    )


def _getcwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


__all__ = ["ScriptSource", "ShellResult", "analyze_script"]
