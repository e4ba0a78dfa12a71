"""The builtins that read input into variables: ``read``, ``mapfile``/``readarray`` and ``getopts``.

Each takes what it reads (a here-string, a file found on this machine by the rules ``source`` follows,
the positional parameters) and sets the variables bash would set, or leaves them unknown with the reason
(standard input, a file the script writes first or that is not here, an option not known statically).
They are a unit because they share the reading of standard input (``_stdin_text``) and the parameter
state they write, and nothing else of the other builtins; ``Builtins`` (builtins.py) is built on this
class, which is built on ``Commands``. Their code is ``read_builtins.py``'s, loaded on a script's first
one (code35).
"""

from __future__ import annotations

from argtrace.layers.shell.commands import Commands
from argtrace.layers.shell.deferred import Deferred


class Inputs(Commands):
    # ---------------------------------------------------------------------- read, mapfile, getopts

    b_read = Deferred("argtrace.layers.shell.read_builtins")
    _mapfile = Deferred("argtrace.layers.shell.read_builtins")
    _stdin_text = Deferred("argtrace.layers.shell.read_builtins")
    _file_text = Deferred("argtrace.layers.shell.read_builtins")
    b_getopts = Deferred("argtrace.layers.shell.read_builtins")
    _unset_scalar = Deferred("argtrace.layers.shell.read_builtins")


def _split_mapfile(data: str, opts: dict[str, str]) -> list[str] | None:
    """The array elements ``mapfile`` makes of ``data`` under ``-d``, ``-t``, ``-s``, ``-n``."""
    delim = opts.get("d", "\n")
    delim = delim[:1] if delim else "\0"
    lines: list[str] = []
    start = 0
    while start < len(data):
        end = data.find(delim, start)
        if end < 0:
            lines.append(data[start:])
            break
        lines.append(data[start : end if "t" in opts else end + 1])
        start = end + 1
    try:
        skip = int(opts.get("s", "0"))
        count = int(opts.get("n", "0"))
    except ValueError:
        return None
    lines = lines[max(skip, 0) :]
    return lines[:count] if count > 0 else lines
