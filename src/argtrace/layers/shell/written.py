"""The files a script writes from here-documents before a server starts (``cat > config.yaml <<EOF``,
``cat >> F <<EOF``, ``tee [-a] F <<EOF``): a ``--config`` file the script writes is the one the server reads
(InferenceX's benchmark scripts write vLLM's YAML that way, InferenceX#117), though it is not on this
machine's disk. Each is the path as the command named it, joined to the directory the command ran in (as a
server's relative ``--config`` path is joined to its own), and the text its shell made of the body (None
when the expansion is not known statically, or when it was appended to a file the script did not write)."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def written_key(path: str, cwd: str | None) -> str:
    """The key a written file is known by: its path joined to the directory it was named in."""
    return posixpath.normpath(path if path.startswith("/") or not cwd else posixpath.join(cwd, path))


def heredoc_files(commands: Sequence[Any]) -> tuple[tuple[str, str | None], ...]:
    """(path, text) of each file ``commands`` (the predicted commands so far, in order) wrote from a
    here-document; the last write of a path wins, ``>>`` adds to what the script wrote before."""
    written: dict[str, str | None] = {}
    for command in commands:
        io = command.io
        if io is None or io.stdin_line is None or not command.argv:
            continue  # no here-document on its stdin (a here-string writes no config file here)
        argv = command.argv
        base = (argv[0] or "").rsplit("/", 1)[-1]
        targets: list[tuple[str, bool]] = []
        if base == "cat" and len(argv) == 1 and io.stdout is not None:
            targets.append((io.stdout, io.append))
        elif base == "tee" and all(w is not None for w in argv):
            words = [w for w in argv[1:] if w is not None]
            append = any(w in ("-a", "--append") for w in words)
            targets.extend((w, append) for w in words if not w.startswith("-"))
        cwd = command.cwd  # where it ran (the start directory unless the script changed it)
        if command.moved and cwd is None:
            continue  # a `cd` to a directory not known statically: the path is not known
        for target, append in targets:
            key = written_key(target, cwd)
            if append:
                before = written.get(key)
                written[key] = None if before is None or io.stdin is None else before + io.stdin
            else:
                written[key] = io.stdin
    return tuple(written.items())
