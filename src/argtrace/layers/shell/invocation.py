"""How ``bash``/``sh`` read their own invocation: where the script or ``-c`` command string is.

This module owns the option grammar of a shell started as a command (``bash -lc 'vllm serve ...'``), so the
shell layer finds the command string behind grouped options as the shell itself does.
"""

from __future__ import annotations

from collections.abc import Sequence


def shell_invocation(texts: Sequence[str | None]) -> tuple[int, bool]:
    """Where a ``bash``/``sh`` invocation's first non-option argument is, and whether ``-c`` makes it the
    command string. Bash's manual ("Invoking Bash"): single-letter options may be grouped (``-lc``, ``-ec``,
    ``-xc``, ``-lic``), ``-o``/``+o`` and ``-O``/``+O`` take the next word, ``--rcfile``/``--init-file`` take
    the next word, ``--`` ends the options; with ``-c`` anywhere among them, "commands are read from the
    first non-option argument command_string". POSIX sh (``sh -ec``) groups the same way."""
    i, shell_c = 1, False
    while i < len(texts) and texts[i] is not None:
        word = texts[i] or ""
        if word == "--":
            return i + 1, shell_c
        if word.startswith("--"):
            i += 2 if word in ("--rcfile", "--init-file") else 1
            continue
        if len(word) < 2 or word[0] not in "-+":
            break
        shell_c = shell_c or (word[0] == "-" and "c" in word[1:])
        i += 2 if ("o" in word[1:] or "O" in word[1:]) else 1
    return i, shell_c
