"""The builtins that run other code (code35: loaded on a script's first one): ``source``/``.``, ``eval``,
``exec`` and ``command``, with how a sourced file is found, read or noted as unread. Methods of
:class:`~argtrace.layers.shell.builtins.Builtins` (see ``deferred.py``).
"""

from __future__ import annotations

import os

from argtrace.frameworks.detect import _ASSIGN
from argtrace.layers.shell import hostfs
from argtrace.layers.shell.builtins import _STDIN_FILES
from argtrace.layers.shell.commands import _BUILTIN_NAMES, detect_after_unknown
from argtrace.layers.shell.core import (
    HOLE,
    MAX_DEPTH,
    ExpWord,
    Source,
    Vanished,
    _Exit,
    _prepare,
    to_str,
    vanished_in,
)
from argtrace.layers.shell.stdin_text import command_stdin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell.builtins import Builtins


def b_eval(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    if (
        any(w.text is None for w in args)
        and all(w.text is not None or w.holed is not None for w in args)
        and any(w.text or (w.holed or HOLE) != HOLE for w in args)  # something of the string is known
    ):
        from argtrace.layers.shell.holes import run_holed_eval  # known but for some expansions

        return run_holed_eval(self, args, at)
    if any(w.text is None for w in args):
        bad = next(w for w in args if w.text is None)
        self.emit("eval_unknown", at, reason=bad.reason)
        self._note_unread_source(
            "eval " + " ".join(w.expansion for w in args), "a string argtrace cannot evaluate"
        )
        self._cap_write(None, [])  # inside $(...): what it would print is unknown, not empty
        if args[0].text == "set":
            # `eval set -- "$(getopt ...)"`: the new positional parameters are that unknown string's
            self.positional = None
            self.positional_reason = (
                f"`eval set` at {at} sets them from {bad.expansion}, not known statically"
            )
        return None
    code = " ".join(w.text or "" for w in args)
    return self.run_string(code, f"{at}", label=f"eval at {at}")


def run_string(self: Builtins, code: str, at: str, label: str) -> int | None:
    if self.depth >= MAX_DEPTH:
        self.emit("recursion", at, name="eval")
        return None
    src = Source(self.src.label, _prepare(code), None, fixed_at=at)
    src.tree = self.parse(src.text)
    saved = self.src
    self.src = src
    self.depth += 1
    try:
        return self.run_block(src.tree.root_node.children)
    finally:
        self.src = saved
        self.depth -= 1


def b_source(self: Builtins, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
    if not args:
        return 2
    fname = args[0].text
    if fname is None:
        self.emit("source_unknown", at, reason=args[0].reason, raw=args[0].expansion)
        self._note_unread_source(f"{to_str(argv[0].text or 'source')} {args[0].expansion}")
        self._taint_all(
            f"`{to_str(argv[0].text or 'source')} {args[0].expansion}` ({at}) reads a file not known "
            "statically"
        )
        return None
    if fname in _STDIN_FILES:
        # `source /dev/stdin <<< "$VARS"`, `curl ... | source /dev/stdin`: the script's own stdin text
        stdin = command_stdin(self, rest[1] if len(rest) > 1 else [], read_files=True)
        if stdin is not None and stdin[0] is not None:
            return self.run_string(stdin[0], at, label=f"{to_str(argv[0].text or 'source')} {fname} at {at}")
        self._note_unread_source(f"{to_str(argv[0].text or 'source')} {to_str(fname)}", "the caller's stdin")
        return None
    written = self._written_by_script(to_str(fname))
    if written is not None:
        # `cat > env.sh <<EOF ... EOF; source env.sh`: the file the script wrote, not this machine's
        name = f"{to_str(argv[0].text or 'source')} {to_str(fname)}"
        if written[0] is None:
            self._note_unread_source(name, "a file the script wrote, whose text is not known statically")
            self._taint_all(
                f"`{name}` ({at}) reads a file the script wrote, whose text is not known statically"
            )
            return None
        return self.run_string(written[0], at, label=f"{name} at {at}")
    path = self._find_source(to_str(fname))
    if path is None and self.resolve_path(to_str(fname)) in self.present_by_test:
        # a test of this branch says the file exists where the script runs (`if [[ -f .env ]]; then source
        # .env`): bash reads it there, argtrace cannot here; no error for bash to report
        self.emit("source_missing", at, near_script=None, file=to_str(fname), cwd=self.cwd, guarded=True)
        self._note_unread_source(f"{to_str(argv[0].text or 'source')} {to_str(fname)}")
        return None
    if path is None:
        near = None
        if self.main.path and not fname.startswith("/"):
            cand = os.path.join(os.path.dirname(self.main.path), to_str(fname))
            near = cand if hostfs.isfile(cand) else None
        self.emit(
            "source_missing",
            at,
            near_script=near,
            file=to_str(fname),
            cwd=self.cwd,
            # `set -e` exits on the failed `source` (not in a condition): the script does not go on
            errexit="errexit" in self.options and self.cond_depth == 0,
            script_dir=os.path.dirname(self.main.path) if self.main.path else None,
        )
        # missing here says nothing of the node that runs the script (its ~/.bashrc, an env file beside
        # it there; sglang#5873's `ssh HOST "source ~/.bashrc && ( ... launch_server ...)"`): the status
        # is unknown, so `source F && server` still starts the server on one fork. Only a file found
        # beside the script, not in the directory bash looks in, fails for certain (SH017 warning).
        if not near:
            self._note_unread_source(f"{to_str(argv[0].text or 'source')} {to_str(fname)}")
        return 1 if near else None
    real = hostfs.realpath(path)
    if real in self.source_stack:
        self.emit("source_loop", at, file=to_str(fname), chain=[*self.source_stack, real])
        return None
    if len(self.source_stack) > 32:
        self.emit("recursion", at, name="source")
        return None
    try:
        data = hostfs.read(path, 16 * 1024 * 1024)
    except OSError as e:
        self.emit("source_missing", at, file=to_str(fname), cwd=self.cwd, error=str(e))
        return 1
    src = Source(to_str(fname), _prepare(data.decode("latin-1")), path)
    from argtrace.layers.shell.envlines import env_lines_running_a_word  # (at a script's first `source`)

    for line, name, value, word in env_lines_running_a_word(src.text):
        self.emit("env_line_runs_word", f"{to_str(fname)}:{line}", name=name, value=value, word=word, by=at)
    src.tree = self.parse(src.text)
    saved_src = self.src
    saved_pos, saved_reason = self.positional, self.positional_reason
    if len(args) > 1:
        if any(w.text is None for w in args[1:]):
            self.positional = None
            self.positional_reason = f"arguments of `source` at {at} are not known statically"
        else:
            self.positional = [w.text or "" for w in args[1:]]
    self.src = src
    self.source_stack.append(real)
    self.bash_source.append(fname)
    self.call_stack.append(("source", False))
    try:
        return self.run_frame(lambda: self.run_block(src.tree.root_node.children))
    finally:
        self.src = saved_src
        self.source_stack.pop()
        self.bash_source.pop()
        self.call_stack.pop()
        if len(args) > 1:
            self.positional, self.positional_reason = saved_pos, saved_reason


def _written_by_script(self: Builtins, fname: str) -> tuple[str | None] | None:
    """(text,) of ``fname`` when the script wrote it from a here-document before this point (text None
    when its expansion is not known statically); None when the script did not write it."""
    written = self.written_files()
    if not written:
        return None
    from argtrace.layers.shell.written import written_key

    key = written_key(fname, self.cwd)
    for path, text in written:
        if path == key:
            return (text,)
    return None


def _find_source(self: Builtins, fname: str) -> str | None:
    if "/" in fname:
        p = self.resolve_path(fname)
        return p if p is not None and hostfs.isfile(p) else None
    st, path_var, _ = self.get_param("PATH")
    if st == "set" and path_var:
        for d in to_str(path_var).split(":"):
            cand = os.path.join(d or ".", fname)
            if d and hostfs.isfile(cand):
                return cand
    p = self.resolve_path(fname)
    return p if p is not None and hostfs.isfile(p) else None


def _note_unread_source(self: Builtins, written: str, what: str = "a file argtrace cannot read") -> None:
    """A `source` argtrace cannot read (the file is not here, or its name is not known statically), or
    another command that may set any variable (``what`` says which: an `eval` of a string or an `export`
    of words not known statically, the idioms that load a ``.env``).
    A virtual environment's ``bin/activate`` is not one: CPython's venv script sets only VIRTUAL_ENV,
    VIRTUAL_ENV_PROMPT, PATH and PS1 (Lib/venv/scripts/common/activate); conda's runs its packages'
    activate.d scripts, which may set anything."""
    if written.endswith("/bin/activate") and "conda" not in written:
        return
    if self.read_before_unread_source is None:
        self.read_before_unread_source = set(self.read_names)
    self.unread_sources.append((written, what))


def _taint_all(self: Builtins, reason: str) -> None:
    """After sourcing an unknown file, any variable may have changed; we keep values but note it."""
    self.emit("taint", None, reason=reason)


def b_exec(
    self: Builtins,
    args: list[ExpWord],
    at: str,
    argv: list[ExpWord],
    prefix_env: Any,
    redirs: Any,
    start: int,
    vanished: list[Vanished],
) -> int | None:
    # exec [-cl] [-a NAME] [CMD]: bash's internal_getopt (clustered flags, ``-aNAME``, ``--``)
    from argtrace.frameworks.detect import _BUILTIN_OPTS
    from argtrace.frameworks.wrappers import scan_options

    scan = scan_options([w.text or "" for w in args], 0, _BUILTIN_OPTS["exec"])
    i = scan.end
    # -c: "the command is executed with an empty environment" (bash(1)); -l and -a change only argv[0]
    self.exec_clear_env = any(n == "c" for n, _v in scan.seen)
    rest = args[i:]
    if not rest:
        # exec with only redirections: they apply to the rest of the script (kept as the state of fds 1
        # and 2, so that a script that repeats them does not pile them up)
        for fd, op, tgt, rat, _r in redirs:
            self._exec_redirect(fd, op, tgt, rat)
        for fd, op, tgt, rat, _r in redirs:
            self._note_redirect(fd, op, tgt, rat, None)
        return 0
    van = vanished_in(rest, argv, vanished)
    name = rest[0].text
    if name is not None and _ASSIGN.match(name):
        # bash: "exec: X=1: not found", and a non-interactive shell exits 127 (SH041 names it)
        raise _Exit(127, f"`exec` at {at} runs `{name}` as the program, which is not found")
    self.direct_exec = True
    st = self.external(rest, prefix_env, redirs, at, start, van) if name is not None else None
    if name is None:
        texts = [w.text if w.text is not None else "" for w in rest]
        det = detect_after_unknown(texts)
        if det is not None:
            self.record_server(rest, prefix_env, redirs, at, start, van, det)
    raise _Exit(st, f"`exec` at {at} replaces the shell")


def b_command(
    self: Builtins,
    args: list[ExpWord],
    at: str,
    argv: list[ExpWord],
    prefix_env: Any,
    redirs: Any,
    start: int,
    vanished: list[Vanished],
) -> int | None:
    # command [-pVv] CMD ARGS: only its own options are skipped (the command's own are its arguments);
    # -v/-V only describe CMD. -p looks CMD up on a default PATH (bash(1)), ignored here.
    from argtrace.frameworks.detect import _BUILTIN_OPTS
    from argtrace.frameworks.wrappers import scan_options

    scan = scan_options([w.text or "" for w in args], 0, _BUILTIN_OPTS["command"])
    if any(n in ("v", "V") for n, _v in scan.seen):
        return None
    rest = args[scan.end :]
    if not rest:
        return 0
    van = vanished_in(rest, argv, vanished)
    name = rest[0].text
    if name is not None and _ASSIGN.match(name):
        return 127  # bash: "X=1: command not found" (SH041 names it)
    handler = getattr(self, "b_" + _BUILTIN_NAMES.get(name or "", "_none"), None)
    if handler is not None and name != "command":
        r: int | None = handler(rest[1:], at, rest, prefix_env, redirs, start, van)
        return r
    return self.external(rest, prefix_env, redirs, at, start, van)
