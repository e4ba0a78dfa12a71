"""A Python program a script runs (``python3 serve.py --tp 2``, ``nohup python -u launch.py &``,
``./serve.py`` with a ``#!/usr/bin/env python3`` line): the servers it starts, read statically, never run.

The program's calls that start a server are read by the Python launch reader
(``layers/transport/python_launch.py``, the reader of ``argtrace check serve.py``) and written as the shell
commands they amount to; the evaluator then reads that text as a child script, as it reads ``bash FILE``
(``commands.run_child_shell``): the program's environment is what this shell exports and its command gives
(Python's ``os.environ`` is the process environment, execve(2)), and its ``sys.argv`` the call's words
(``sys.argv[0]`` the file as written: Python's command line docs, "the first element ... is the script
name"). So ``os.getenv("MODEL", "m")`` reads the script's ``MODEL`` and ``sys.argv[1]`` its first word, as
they would when it runs; any other value the program computes stays unknown, with what it rests on (TP094).

Which interpreter runs the file is not asked: a word ``python``, ``python3``, ``python3.12`` (any directory),
or a file run by its path whose ``#!`` line names one (scriptpath.py follows a shell's). Not followed:
``python -c``/``-m`` (no file), a file missing or unreadable here, one Python cannot parse, one whose calls
start no server (the command is then what it was before: a command argtrace does not read into).
"""

from __future__ import annotations

import re

from argtrace.layers.shell.core import ExpWord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

# the interpreter's name as a command word: python, python3, python3.12 (`/opt/venv/bin/python3` by its name)
_PYTHON = re.compile(r"python(?:[23](?:\.\d+)?)?\Z")
# CPython's options that take a value as the next word (`python --help`): -W arg, -X opt, and -c/-m that end
# the options with what is run instead of a file
_WITH_VALUE = frozenset("WX")
_NOT_A_FILE = frozenset("cm")
# how much of a program is read (as a script run by `bash FILE` is)
_LIMIT = 4 * 1024 * 1024


def program_file(texts: Sequence[str | None], inner: int, head: bytes | None) -> int | None:
    """The index in ``texts`` of the Python file the command at ``inner`` runs, or None; ``head``: the first
    bytes of the file that command word names by its path (scriptpath.path_head), if any."""
    if inner >= len(texts) or texts[inner] is None:
        return None
    word = texts[inner] or ""
    if _PYTHON.match(word.rsplit("/", 1)[-1]):
        i = inner + 1
        while i < len(texts):
            option = texts[i]
            if option is None:
                return None
            if option == "--":
                i += 1
                break
            if not option.startswith("-") or option == "-":
                break
            letters = option[1:]
            if option.startswith("--") or any(c in _NOT_A_FILE for c in letters):
                return None  # `--version`, `-c CODE`, `-m MODULE`: no file runs
            # `-W ignore`, `-X dev`: the value is the next word unless joined (`-Xdev`)
            takes = next((j for j, c in enumerate(letters) if c in _WITH_VALUE), None)
            i += 2 if takes is not None and takes == len(letters) - 1 else 1
        return i if i < len(texts) and texts[i] not in (None, "-") else None
    if head is not None:
        from argtrace.layers.transport.python_source import PY_SHEBANG  # the `#!` line `check FILE` reads

        return inner if PY_SHEBANG.match(head) else None
    return None


def run_program(
    evaluator: Any, argv: list[ExpWord], at_file: int, prefix_env: dict[str, Any], at: str
) -> int | None:
    """Read the program ``argv[at_file]`` as the child script its server starts amount to; None when it is
    not followed (the caller goes on as before)."""
    texts = [w.text for w in argv]
    path = evaluator.resolve_path(texts[at_file] or "")
    from argtrace.layers.shell import hostfs  # (hostfs.py: read for a first file the script names)

    if path is None or not hostfs.isfile(path) or path in evaluator.source_stack:
        return None
    try:
        data = hostfs.read(path, _LIMIT)
    except OSError:
        return None
    from argtrace.layers.transport.python_launch import read_python_launch
    from argtrace.model import UsageError

    label = texts[at_file] or path
    try:
        launch = read_python_launch(
            label,
            data,
            shell_reads=True,
            interpreter=_interpreter(texts, at_file),
            argv=_known(texts[at_file + 1 :]),
        )
    except UsageError:
        return None
    if not launch.script.strip():
        return None  # no call of it starts a server: not read into (the command stays what it was)
    # `bash -- FILE ARGS`: $0 the file as written, $1... the program's own words (its sys.argv)
    child_argv = [ExpWord("bash", at, "literal"), ExpWord("--", at, "literal"), *argv[at_file:]]
    evaluator.emit("python_program", at, file=label, findings=tuple(launch.findings))
    return evaluator.run_child_shell(
        child_argv,
        prefix_env,
        at,
        unknown_env=launch.unknown,
        program=(launch.script.decode("utf-8", "replace"), path),
    )


def _known(words: list[str | None]) -> list[str] | None:
    """The program's words when the script gives every one of them (what its argparse parser reads)."""
    known = [word for word in words if word is not None]
    return known if len(known) == len(words) else None


def _interpreter(texts: list[str | None], at_file: int) -> str | None:
    """The interpreter word that runs the file (its ``sys.executable`` as the shell finds it): the word
    before the options (``python3 -u serve.py``); None for a file run by its path (its ``#!`` line's)."""
    for word in reversed(texts[:at_file]):
        if word is not None and _PYTHON.match(word.rsplit("/", 1)[-1]):
            return word
    return None
