"""A script a command runs by its path (``./start_head.sh``, ``/opt/run/serve.sh``, ``"$DIR/serve.sh" A``,
the same behind ``srun ... apptainer exec IMG``, ``nohup``, ``exec``, ``env X=1``): the shell it runs in.

A command word with a ``/`` is ``execve``'d as it is (bash(1), COMMAND EXECUTION: "If the command name
contains one or more slashes, the shell executes the named program"). The kernel runs a file opening with
``#!`` by the interpreter that line names; a file ``execve`` refuses (no ``#!``, not a binary format) bash
runs itself: "If this execution fails because the file is not in executable format, and the file is not a
directory, it is assumed to be a shell script ... A subshell is spawned to execute it. This subshell
reinitializes itself, so that the effect is as if a new shell had been invoked to handle the script" (same
section) - unless bash's ``check_binary_file`` (general.c) finds a NUL byte in the first line of the file's
first 80 bytes. Either way the script gets a new shell, as ``bash FILE`` does: its positional parameters
are the call's words and its environment the exported variables. So the evaluator reads it exactly as
``bash FILE`` (``commands.run_child_shell``), statically, never running it.

Not followed (as before this module): a word without a ``/`` (looked up on the PATH of the machine that
runs the launch, not this one), a file missing or unreadable here, a binary, a script of another
interpreter (a ``#!/usr/bin/env python3`` program is read as ``python3 FILE`` is: pythonfile.py). The file's
execute bit is not asked: a file copied here from a post may have lost it. Pure but for reading the file's
first bytes (``hostfs``: the node's files under ``--host``).
"""

from __future__ import annotations

from argtrace.layers.shell.core import ExpWord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the interpreters whose language the evaluator reads (`sh FILE` and `bash FILE` are followed the same way)
_SHELLS = frozenset({"sh", "bash", "dash"})
# bash's READ_SAMPLE_BUF (execute_cmd.c): how much of the file check_binary_file looks at
_SAMPLE = 80
# what path_head reads: the sample, and enough of a `#!` line to name its interpreter (pythonfile.py)
_HEAD = 128


def shell_kind(head: bytes) -> bool:
    """Whether a file opening with ``head`` is run as a shell script when ``execve``'d by a shell."""
    if head.startswith(b"#!"):
        line = head[2:].split(b"\n", 1)[0].decode("latin-1")
        # the kernel (binfmt_script): the interpreter, then at most one argument, the rest of the line
        interp, _sep, arg = line.strip(" \t").partition(" ")
        name = interp.rsplit("/", 1)[-1]
        if name == "env":  # `#!/usr/bin/env bash`, `#!/usr/bin/env -S bash -e`
            words = [w for w in arg.split() if w != "-S"]
            name = words[0].rsplit("/", 1)[-1] if words and not words[0].startswith("-") else ""
        return name in _SHELLS
    if head.startswith(b"\x7fELF"):
        return False
    return b"\0" not in head[:_SAMPLE].split(b"\n", 1)[0]


def path_head(evaluator: Any, word: str | None) -> bytes | None:
    """The first bytes of the file a command word names by its path (``./start.sh``), read once for both
    questions asked of it (a shell script here, or a Python program: pythonfile.py); None for a word without
    a ``/`` or a file missing or unreadable here."""
    if not word or "/" not in word:
        return None
    path = evaluator.resolve_path(word)
    from argtrace.layers.shell import hostfs  # (hostfs.py: read for a first file the script names)

    if path is None or not hostfs.isfile(path):
        return None
    try:
        return hostfs.read(path, _HEAD)
    except OSError:
        return None


def runs_shell_script(head: bytes | None) -> bool:
    """Whether the file whose first bytes are ``head`` (``path_head``) is run as a shell script by bash."""
    return head is not None and shell_kind(head[:_SAMPLE])


def as_bash_file(argv: list[ExpWord]) -> list[ExpWord]:
    """``./start.sh A B`` as the ``bash -- ./start.sh A B`` it amounts to (``$0`` the path, ``$1`` A)."""
    at = argv[0].at
    return [ExpWord("bash", at, "literal"), ExpWord("--", at, "literal"), *argv]
