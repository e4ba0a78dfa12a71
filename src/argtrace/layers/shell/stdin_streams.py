"""The here-document or here-string a compound command reads from, line by line: ``while read -r a b; do
... done <<EOF``, ``{ read A; read B; } <<< "$X"``.

bash gives the compound's commands that one stdin, and each ``read`` takes the next line of it (bash(1),
``read``; Redirecting Input). A loop over such lines starts one server per line in launch scripts that serve
several models. The stream is followed only while nothing else may read it: a command that is not known to
leave stdin alone (an ``ssh`` without ``-n`` takes the rest, a foreground program may) and runs without a
stdin of its own ends what is known of it, as does a ``read`` in a branch whose condition is unknown (the
branches run one after the other here, on one stream). From then on each ``read`` of it is unknown. A
background command's stdin is /dev/null in a script (POSIX, "Asynchronous Lists"): it reads nothing."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# commands that never read their standard input: builtins (but `read`, `mapfile`, which take their lines
# here), and programs that take their input from their arguments
_LEAVE_STDIN = frozenset(
    {
        ":", "true", "false", "echo", "printf", "test", "[", "[[", "shift", "set", "unset", "export",
        "local", "declare", "typeset", "readonly", "cd", "pwd", "let", "return", "break", "continue",
        "exit", "wait", "trap", "shopt", "alias", "umask", "ulimit", "getopts", "kill", "sleep", "mkdir",
        "rm", "cp", "mv", "touch", "ln", "chmod", "chown", "date", "hostname", "nproc", "nvidia-smi",
        "basename", "dirname", "seq", "ls", "source", ".", "eval", "read", "mapfile", "readarray",
    }
)  # fmt: skip
_OWN_STDIN_OPS = frozenset({"<", "<<", "<<-", "<<<", "<>", "<&"})


@dataclass
class StdinStream:
    """What is left of a compound's stdin text; ``text`` None once it is no longer known."""

    text: str | None
    depth: int  # the number of unknown branches the compound runs in: a `read` deeper is not followed
    why: str = "is not known statically"

    def next_line(self, depth: int) -> tuple[str, bool] | None:
        """The next line and whether it ended the input (read's status 1: the last line without its newline,
        or nothing left); None when the stream is not known here."""
        if self.text is None or depth != self.depth:
            if self.text is not None:
                self.text = None
                self.why = "is read in a branch whose condition is not known statically"
            return None
        if not self.text:
            return "", True
        line, newline, rest = self.text.partition("\n")
        self.text = rest
        return line, not newline


def reads_stdin(name: str, redirect_ops: Iterable[str], background: bool, functions: Iterable[str]) -> bool:
    """Whether a simple command named ``name`` may take from the stdin it inherits."""
    if background or name in _LEAVE_STDIN or name in functions:
        return False
    return not any(op in _OWN_STDIN_OPS for op in redirect_ops)
