"""A child shell the script starts (``bash -c``, ``bash FILE``, ``sh <<EOF``; code35: loaded on a script's
first one): run in a copy of the state with the environment it is given, and a function called with its
temporary environment. Methods of :class:`~argtrace.layers.shell.commands.Commands` (see ``deferred.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from argtrace.layers.shell import hostfs
from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.commands import _given_to_child
from argtrace.layers.shell.core import HOLE, MAX_DEPTH, ExpWord, Source, _prepare, from_str, to_str
from argtrace.layers.shell.state import Var
from argtrace.layers.shell.stdin_text import command_stdin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell.commands import Commands
    from argtrace.layers.slurm import Export


def run_child_shell(
    self: Commands,
    argv: list[ExpWord],
    prefix_env: dict[str, tuple[str | None, str, str, str | None]],
    at: str,
    unknown_env: Mapping[str, str] | None = None,
    export: Export | None = None,
    redirs: list[tuple[str | None, str, str | None, str, L.RedirTok]] | None = None,
    program: tuple[str, str] | None = None,
) -> int | None:
    """``bash -c 'string'`` / ``bash script.sh`` / ``bash -s`` with a script on stdin (``redirs``, or the
    pipe from a producer the script gives): a child that sees only exported variables.
    ``program``: the text and path of what the file amounts to, read in its place (a Python program's
    server starts, layers/shell/pythonfile.py).

    ``unknown_env``: variables the child starts with whose values are not known here (under ``srun``,
    each task's own SLURM_NODEID...): they replace what this shell exported. ``export``: ``srun
    --export``, which of them reach the child (``layers/slurm.py``)."""
    from argtrace.layers.shell.childenv import unknown_exports
    from argtrace.layers.shell.invocation import shell_invocation

    texts = [w.text for w in argv]
    i, shell_c = shell_invocation(texts)
    # bash(1), Invoking Bash: "If the -s option is present, or if no arguments remain after option
    # processing, then commands are read from the standard input"
    from_stdin = not shell_c and (
        i >= len(texts) or any(w and w[0] == "-" and w[1:2] != "-" and "s" in w[1:] for w in texts[1:i])
    )
    stdin = command_stdin(self, redirs or []) if from_stdin else None
    if from_stdin and (
        stdin is None or stdin[0] is None or stdin[1] in self.source_stack or len(self.source_stack) > 8
    ):
        return None
    holes: dict[str, str] = {}
    holes_written: dict[str, str] = {}
    if not from_stdin and i < len(texts) and texts[i] is None and shell_c and (argv[i].holed or HOLE) != HOLE:
        from argtrace.layers.shell.holes import fill_holes  # a string known but for some expansions

        texts[i], holes, holes_written = fill_holes(argv[i].holed or "", argv[i].holes)
    if not from_stdin and (i >= len(texts) or texts[i] is None):
        return None
    env = {k: to_str(v) for k, (v, *_rest) in self.exported_env().items() if v is not None}
    for k, (v, *_r) in prefix_env.items():
        if v is not None:
            env[k] = to_str(v)
    if self.direct_exec and env.get("SHLVL", "").lstrip("-").isdigit():
        env["SHLVL"] = str(int(env["SHLVL"]) - 1)  # bash execs this command without forking
    dropped: set[str] = set()
    if export is not None:
        kept = export.apply(env, lambda text: text)
        dropped = set(env) - set(kept)
        env = kept
    if stdin is not None:
        code, read_from = stdin[0] or "", stdin[1]
        arg0, rest = texts[0], texts[i:]  # `bash -s A B`: $0 the shell, $1 A
        if read_from is not None:
            src = Source(read_from, _prepare(code), read_from)
        else:
            src = Source(self.src.label, _prepare(code), None, fixed_at=at)
    elif shell_c:
        code = texts[i] or ""
        arg0 = texts[i + 1] if i + 1 < len(texts) else "bash"
        rest = texts[i + 2 :]
        src = Source(self.src.label, _prepare(code), None, fixed_at=argv[i].at)
    elif program is not None:
        code, program_path = program
        arg0, rest = texts[i], texts[i + 1 :]
        src = Source(texts[i] or program_path, _prepare(code), program_path)
    else:
        path = self.resolve_path(texts[i] or "")
        if path is None or not hostfs.isfile(path) or path in self.source_stack or len(self.source_stack) > 8:
            return None
        try:
            code = hostfs.read(path, 4 * 1024 * 1024).decode("latin-1")
        except OSError:
            return None
        arg0 = texts[i]
        rest = texts[i + 1 :]
        src = Source(texts[i] or path, _prepare(code), path)
    # an argument not known here (`bash run.sh "$(nproc)"`): the child is still read, its `$1`... and
    # `"$@"` unknown, as a function called with such arguments is (run_function)
    unknown_args = any(r is None for r in rest)
    # exported with a value not known here: the child has them, set (layers/shell/childenv.py)
    unknown_env = {
        **unknown_exports(self.exported_env(), prefix_env, export),
        **(unknown_env or {}),
        **holes,
    }
    for name in unknown_env:
        env.pop(name, None)
    src.tree = self.parse(src.text)
    child = type(self)(  # a new evaluator of the same kind (ShellEvaluator)
        src,
        [to_str(r or "") for r in rest],
        env,
        arg0=to_str(arg0 or "bash"),
        cwd=self.cwd,
        parse=self.parse,
        unknown_env=unknown_env,
    )
    # what this script exported itself, or gave the command (`A=x bash -c ...`), is the script's
    # setting in the child too, not its caller's: keep where it was set (the process layer judges a
    # caller's variable more softly). A `$` in how it was set would be read again in the child, where
    # the names it reads may not exist: that text is not kept.
    given = {
        k: (at_, expansion)
        for k, (v, at_, expansion, _r) in [*self.exported_env().items(), *prefix_env.items()]
        if v is not None and at_ and expansion not in ("environment", "bash")
    }
    for k, (at_, expansion) in given.items():
        var = child.scopes[0].get(from_str(k))
        if var is not None and var.expansion == "environment":
            how = expansion if "$" not in expansion else f"{k}=... (set by the calling script)"
            child.scopes[0][from_str(k)] = var.with_(at=at_, expansion=how)
    if unknown_args:
        child.positional = None
        child.positional_reason = (
            f"the arguments `{to_str(arg0 or 'bash')}` is run with ({at}) are not all known statically"
        )
    child.source_stack = [*self.source_stack, src.path or ""]
    child.start_cwd = self.start_cwd
    child.spec = list(self.spec)
    child.bg_mark = self.bg_mark
    child.redirect_stack = list(self.redirect_stack)
    if shell_c:
        child._last_direct(src.tree.root_node)  # bash -c execs its last simple command directly
    st = child.run()
    if not shell_c:
        self._caller_env_replaced(child, prefix_env, src.label, at)
    if export is not None and child.servers and (lost := sorted(dropped & child.read_names)):
        # the task's shell reads a variable this shell exported but srun --export keeps from it
        self.emit("srun_export", at, names=lost, export=export.at)
    if holes_written:
        from argtrace.layers.shell.holes import name_holes

        name_holes(child.servers, child.events, holes_written, holes, child.commands)
    for s in child.servers:
        s.index = len(self.servers)
        self.servers.append(s)
    self.events.extend(child.events)
    self.commands.extend(child.commands)
    return st


def _caller_env_replaced(self: Commands, child: Any, prefix_env: Any, label: str, at: str) -> None:
    """SH042: a variable the caller gave the script (``CUDA_VISIBLE_DEVICES=2,3 bash launch.sh``) that
    the script assigns again for its servers without reading it: the caller's value never arrives."""
    given = _given_to_child(self, prefix_env)
    found: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (name, where assigned) -> (value, server)
    for server in child.servers:
        for name, (value, _given_at) in given.items():
            got = server.env.get(name)
            if got is None or got[0] is None or got[0] == value or not (got[1] or "").startswith(f"{label}:"):
                continue
            if name in child.read_names:
                continue  # the script reads the caller's value somewhere (${NAME:-...}, "$NAME")
            found.setdefault((name, got[1] or ""), []).append((got[0], server.at))
    for (name, where), got in found.items():
        values = list(dict.fromkeys(v for v, _s in got))
        self.emit(
            "caller_env_replaced",
            where,
            name=name,
            given=given[name][0],
            given_at=given[name][1],
            values=values,
            servers=len(got),
        )


def call_function(
    self: Commands,
    name: str,
    fn: tuple[Any, Source],
    args: list[ExpWord],
    prefix_env: dict[str, tuple[str | None, str, str, str | None]],
    at: str,
) -> int | None:
    body, src = fn
    if self.depth >= MAX_DEPTH:
        self.emit("recursion", at, name=name)
        return None
    saved_pos, saved_reason = self.positional, self.positional_reason
    saved_src = self.src
    if any(a.text is None for a in args):
        self.positional = None
        self.positional_reason = f"the arguments of `{to_str(name)}` ({at}) are not known statically"
    else:
        self.positional = [a.text or "" for a in args]
        self.positional_reason = None
    self.depth += 1
    self.scopes.append({})
    self.call_stack.append((name, True))
    for k, (v, vat, exp, reason) in prefix_env.items():
        self.scopes[-1][k] = Var(
            value=v, known=v is not None, reason=reason, exported=True, at=vat, expansion=exp
        )
    self.src = src
    try:
        return self.run_frame(lambda: self.run_node(body))
    finally:
        self.src = saved_src
        self.depth -= 1
        self.scopes.pop()
        self.call_stack.pop()
        self.positional, self.positional_reason = saved_pos, saved_reason


def _with_temp_env(
    self: Commands, env: dict[str, tuple[str | None, str, str, str | None]], fn: Callable[[], int | None]
) -> int | None:
    self.scopes.append({})
    for k, (v, vat, exp, reason) in env.items():
        self.scopes[-1][k] = Var(
            value=v, known=v is not None, reason=reason, exported=True, at=vat, expansion=exp
        )
    try:
        return fn()
    finally:
        self.scopes.pop()
