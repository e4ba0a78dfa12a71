"""Command substitution (``$(...)``, backquotes; code35: loaded on a script's first one): the command run
with its output captured, and the commands whose output is emulated or known to be pure. Methods of
:class:`~argtrace.layers.shell.expand.Expander` (see ``deferred.py``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from argtrace.layers.shell import hostfs
from argtrace.layers.shell import lexer as L
from argtrace.layers.shell import wordparts as W
from argtrace.layers.shell.core import _EMULATED, MAX_DEPTH, Source, _Chunk, _prepare, from_str, to_str
from argtrace.layers.shell.expand import _MAY_ASSIGN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell.expand import Expander


def command_substitution(self: Expander, p: W.CmdSub, at: str) -> _Chunk:
    """``$(...)``: emulate a few pure ones (dirname, basename, pwd, echo, cd X && pwd); else unknown."""
    self.step(at)
    body = p.body.strip()
    decided, value = self._emulate(body, at)
    status: int | None = 0 if value is not None else None  # the emulated commands succeed
    if not decided:
        # only when the emulation expanded nothing: evaluating the words a second time would double
        # the work at every nesting level ($(cat $(cat ...)) 18 deep took 38 s)
        value, status = self._capture(p.body, at)
    self.cmdsub_status = (status,)
    if value is not None:
        return _Chunk(value.rstrip("\n"), p.quoted, not p.quoted)
    shown = to_str(p.raw)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return _Chunk(None, p.quoted, not p.quoted, f"command substitution `{shown}` runs only at run time")


def _capture(self: Expander, body: str, at: str) -> tuple[str | None, int | None]:
    """Evaluate the body of ``$(...)`` in a subshell, collecting what ``echo``/``printf``/``pwd`` print.

    Any command whose output cannot be known (an external program, a branch not known statically)
    makes the whole substitution unknown. Returns (the output, the exit status), None where unknown."""
    if self.depth >= MAX_DEPTH or len(self.captures) > 8 or len(body) > 100_000:
        return None, None
    text = _prepare(body)
    try:
        tree = self.parse(text)
    except Exception:
        return None, None
    if tree.root_node.has_error:
        return None, None
    src = Source(self.src.label, text, None, fixed_at=at)
    src.tree = tree
    frame: dict[str, Any] = {"out": [], "ok": True, "spec": len(self.spec)}
    frame["redir"] = len(self.redirect_stack)
    self.captures.append(frame)
    saved_src, saved_last = self.src, self.last_status
    self.src = src
    self.depth += 1

    def run_body() -> int | None:
        if "inherit_errexit" not in self.options:
            # bash (not in POSIX mode) clears -e in a command substitution's subshell: `X=$(false; echo
            # hi)` sets X to hi; the assignment's own status is what set -e then sees (bash(1), set -e)
            self.options.discard("errexit")
        return self.run_block(tree.root_node.children)

    try:
        status = self.in_subshell(run_body)
    finally:
        self.src = saved_src
        self.depth -= 1
        self.captures.pop()
        self.last_status = saved_last
    return ("".join(frame["out"]) if frame["ok"] else None), status


def _cap_write(self: Expander, text: str | None, redirs: Sequence[Any]) -> None:
    """Output of a command while a command substitution is being evaluated."""
    if not self.captures:
        return
    frame = self.captures[-1]
    for r in [*redirs, *(r for fr in self.redirect_stack[frame["redir"] :] for r in fr)]:
        fd, op = r[0], r[1]
        if (fd in (None, "1") and op in (">", ">>", ">|", ">&")) or op in ("&>", "&>>"):
            return  # stdout goes elsewhere
    if text is None or len(self.spec) > frame["spec"]:
        frame["ok"] = False
        return
    frame["out"].append(text)


def _emulate(self: Expander, body: str, at: str) -> tuple[bool, str | None]:
    """The output of a one-line ``$(...)`` computed without a subshell: (decided, output).

    ``decided`` is False only when nothing was expanded yet (the body is not one of the emulated
    commands, read from its literal text): then ``_capture`` evaluates it. Once words were expanded the
    answer is final, because expanding them again in ``_capture`` is what made nesting exponential."""
    if all(not ln.strip() or ln.strip().startswith("#") for ln in body.split("\n")):
        return True, ""  # only comments: `# like this` inside backquotes expands to nothing
    if not body or "\n" in body or "|" in body or ";" in body:
        return False, None
    m = re.fullmatch(r"cd\s+(.+?)\s*(?:&&|;)\s*pwd(?:\s+-P)?", body) or re.fullmatch(
        r"cd\s+(.+?)\s*>\s*/dev/null(?:\s+2>&1)?\s*&&\s*pwd(?:\s+-P)?", body
    )
    if m:
        toks = L.tokenize_command(m.group(1), 0, len(m.group(1)))
        if len(toks.words) != 1 or toks.redirs:
            return False, None
        d = self.expand_single(toks.words[0], rebase=False)
        if d is None:
            return True, None  # `cd UNKNOWN && pwd` prints an unknown directory in _capture too
        base = self.cwd
        if not d.startswith("/") and base is None:
            return True, None
        path = posixpath.normpath(posixpath.join(base or "/", d))
        return True, path
    try:
        toks = L.tokenize_command(body, 0, len(body))
    except L.LexError:
        return False, None
    if not toks.words and [r.op for r in toks.redirs] == ["<"]:
        return True, None  # `$(< FILE)`: bash's shorthand for `$(cat FILE)`, a file read where it runs
    if toks.stopped_at or not toks.words or any(r.op not in (">", "2>") for r in toks.redirs):
        return False, None
    if any(r.target is None or r.target.raw != "/dev/null" for r in toks.redirs):
        return False, None
    if toks.words[0].raw not in _EMULATED or toks.words[0].assign or toks.words[0].raw in self.funcs:
        return False, None  # a function, a builtin with side effects, an expanded name: _capture
    if any("$" in w.raw and _MAY_ASSIGN.search(w.raw, w.raw.index("$")) for w in toks.words[1:]):
        # `${x:=v}`, `$((i++))`: the assignment happens in the substitution's subshell, which only
        # _capture has (expanding here would set x in the script itself); a plain `--port=1` or
        # `--long` assigns nothing (only what follows a `$` is looked at)
        return False, None
    words: list[str] = []
    for w in toks.words:
        for e in self.expand_word(w, rebase=False):
            if e.text is None:
                return True, None  # an unknown argument makes the output unknown in _capture too
            words.append(e.text)
    if not words or words[0] != toks.words[0].raw:
        return True, None
    cmd, args = words[0], words[1:]
    # (outputs.py is imported at the first emulated command)
    from argtrace.layers.shell.outputs import _echo_output, printf_printed

    if cmd == "echo":
        return True, _echo_output(args)
    if cmd == "printf":
        return True, printf_printed(args)  # what b_printf prints inside _capture
    if cmd == "pwd" and args and args[0] not in ("-P", "-L"):
        # what b_pwd prints inside _capture (bash prints the directory for `pwd foo`)
        return True, None if args[0].startswith("-") or self.cwd is None else from_str(self.cwd) + "\n"
    return True, self._pure(cmd, args)


def _pure(self: Expander, cmd: str, args: list[str]) -> str | None:
    """Output of a side-effect-free command on known arguments (None when not emulated)."""
    from argtrace.layers.shell.outputs import path_name_output, seq_output

    if cmd in ("readlink", "realpath") and args and args[-1] and not args[-1].startswith("-"):
        opts = args[:-1]
        if cmd == "readlink" and not any(o in ("-f", "-e", "-m", "--canonicalize") for o in opts):
            return None
        p = to_str(args[-1])
        base = self.cwd
        if not p.startswith("/") and base is None:
            return None
        full = posixpath.normpath(posixpath.join(base or "/", p))
        if hostfs.exists(full):
            full = hostfs.realpath(full)
        return from_str(full) + "\n"
    if cmd in ("dirname", "basename"):
        return path_name_output(cmd, args)
    if cmd == "seq":
        return seq_output(args)
    if cmd == "getopt":
        from argtrace.layers.shell.getopt_program import getopt_output  # scripts that parse options

        return getopt_output(args)
    if (cmd == "pwd" and not args) or (cmd == "pwd" and args in (["-P"], ["-L"])):
        return (self.cwd + "\n") if self.cwd is not None else None
    if cmd == "echo":
        nl = True
        while args and args[0] in ("-n", "-e", "-E"):
            if args[0] == "-n":
                nl = False
            if args[0] == "-e":
                return None
            args = args[1:]
        return " ".join(args) + ("\n" if nl else "")
    if cmd == "printf" and len(args) == 2 and args[0] in ("%s", "%s\\n"):
        return args[1] + ("\n" if args[0].endswith("\\n") else "")
    return None
