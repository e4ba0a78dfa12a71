"""The builtins that change the shell's state or its flow (code35: loaded on a script's first one):
``declare``, ``unset``, ``shift``, ``cd``/``pushd``/``popd``, ``exit``, ``return``, ``break``,
``continue``, ``let``, ``wait``, ``alias``/``unalias``, ``shopt``; and those that print: ``echo``,
``printf``, ``pwd``, ``test``/``[``. Methods of :class:`~argtrace.layers.shell.builtins.Builtins` (see
``deferred.py``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from argtrace.layers.shell.alias_def import AliasDef
from argtrace.layers.shell.conditions import TestSyntaxError
from argtrace.layers.shell.core import (
    ArithError,
    ExpWord,
    _Break,
    _Continue,
    _Exit,
    _Return,
    from_str,
    to_str,
)
from argtrace.layers.shell.state import Var

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell.builtins import Builtins


def b_test(self: Builtins, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
    words = [w.text for w in args]
    if argv[0].text == "[":
        if not words or words[-1] != "]":
            self.emit("test_bracket", at)
            return 2
        words = words[:-1]
    try:
        r = self.test_argv(words)
    except TestSyntaxError:
        return 2
    return None if r is None else (0 if r else 1)


def b_declare(self: Builtins, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
    cmd = argv[0].text or ""
    attrs: dict[str, Any] = {}
    if cmd == "readonly":
        attrs["readonly"] = True
    return self._declare(args, at, cmd, default_attrs=attrs)


def b_unset(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    mode = "v"
    for w in args:
        t = w.text
        if t is None:
            continue
        if t in ("-f", "-v", "-n"):
            mode = t[1]
            continue
        if mode == "f":
            self.funcs.pop(t, None)
            continue
        m = re.fullmatch(r"([A-Za-z_]\w*)(?:\[(.*)\])?", t)
        if not m:
            continue
        name = m.group(1)
        scope = self._scope_of(name)
        var = scope.get(name)
        if var is None:
            continue
        if var.readonly:
            self.emit("readonly", at, name=name)
            continue
        if m.group(2) is not None and var.array is not None:
            try:
                key: Any = self.arith(m.group(2)) if not var.assoc else m.group(2)
            except ArithError:
                scope[name] = var.with_(known=False, reason="an element was unset at an unknown index")
                continue
            scope[name] = var.with_(array=tuple((k, v) for k, v in var.array if k != key))
            continue
        if len(self.scopes) > 1 and scope is not self.scopes[0]:
            scope[name] = Var(is_set=False, at=at, expansion="unset")
        else:
            del scope[name]
    return 0


def b_shift(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    n = 1
    if args:
        t = args[0].text
        if t is None:
            self.positional = None
            self.positional_reason = f"`shift` by an amount not known statically ({at})"
            return None
        try:
            n = self.arith(t)
        except ArithError:
            return 1
    if self.positional is None:
        return None
    if n > len(self.positional) or n < 0:
        self.emit("shift_too_far", at, n=n, have=len(self.positional))
        return 1
    self.positional = self.positional[n:]
    return 0


def _set_positional(self: Builtins, words: list[ExpWord], at: str) -> None:
    if any(w.text is None for w in words):
        self.positional = None
        bad = next(w for w in words if w.text is None)
        self.positional_reason = f"`set --` at {at} uses a value not known statically ({bad.reason})"
        return
    self.positional = [w.text or "" for w in words]
    self.positional_reason = None


def b_cd(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    texts = [w.text for w in args]
    # the options before the directory; `--` ends them (`cd -- "$(dirname -- "$0")"`, bash(1) builtins)
    while texts and texts[0] in ("-L", "-P", "-e", "-@"):
        texts = texts[1:]
    if texts and texts[0] == "--":
        texts = texts[1:]
    if not texts:
        st, home, _ = self.get_param("HOME")
        target = home if st == "set" else None
    else:
        target = texts[0]
        if target == "-":
            st, target, _ = self.get_param("OLDPWD")
            if st != "set":
                target = None
    old = self.cwd
    if target is None:
        self.cwd = None
        self.cwd_reason = f"`cd` at {at} goes to a directory not known statically"
    else:
        t = to_str(target)
        if t.startswith("/"):
            self.cwd = posixpath.normpath(t)
        elif self.cwd is not None:
            self.cwd = posixpath.normpath(posixpath.join(self.cwd, t))
        self.cwd_reason = None if self.cwd is not None else self.cwd_reason
    if old is not None:
        self.set_var("OLDPWD", from_str(old), at=at, expansion="cd")
    else:
        self.set_var("OLDPWD", None, at=at, expansion="cd", reason="the previous directory is not known")
    self.set_var(
        "PWD", from_str(self.cwd) if self.cwd else None, at=at, expansion="cd", reason=self.cwd_reason
    )
    for n in ("PWD", "OLDPWD"):
        sc = self._scope_of(n)
        sc[n] = sc[n].with_(exported=True)
    return 0


def b_pushd(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    return self.b_cd([w for w in args if not (w.text or "").startswith("-")], at)


def b_popd(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    self.cwd = None
    self.cwd_reason = f"`popd` at {at}"
    return None


def b_exit(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    st: int | None = self.last_status
    if args:
        try:
            st = int(args[0].text or "") & 0xFF if args[0].text is not None else None
        except ValueError:
            st = 2
    raise _Exit(st, f"`exit` at {at}")


def b_return(
    self: Builtins,
    args: list[ExpWord],
    at: str,
    argv: Any = None,
    prefix_env: Any = None,
    redirs: Any = (),
    *rest: Any,
) -> int | None:
    st: int | None = self.last_status
    if args:
        try:
            st = int(args[0].text or "") & 0xFF if args[0].text is not None else None
        except ValueError:
            st = 2
    outside = len(self.scopes) == 1 and not self.source_stack  # no function's scope, no sourced file
    if outside and self.bash_shebang() and "posix" not in self.options:
        # bash (not in POSIX mode) refuses `return` outside a function or sourced file ("can only
        # `return' from a function or sourced script", builtins/return.def) with status 2 and goes
        # on; sh (dash) and bash --posix end the script there
        quiet = any(  # `return 2>/dev/null || exit`: written to fail quietly where it is not sourced
            tgt == "/dev/null" and ((fd == "2" and op in (">", ">>")) or op in ("&>", "&>>"))
            for fd, op, tgt, *_ in redirs or ()
        )
        self.emit("return_outside_function", at, quiet=quiet)
        return 2
    if outside and self.depth == 0:
        raise _Exit(st, f"`return` at {at}")
    raise _Return(st)


def b_break(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    n = int(args[0].text or "1") if args and (args[0].text or "").isdigit() else 1
    raise _Break(max(n, 1))


def b_continue(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    n = int(args[0].text or "1") if args and (args[0].text or "").isdigit() else 1
    raise _Continue(max(n, 1))


def b_printf(
    self: Builtins,
    args: list[ExpWord],
    at: str,
    argv: list[ExpWord],
    prefix_env: Any,
    redirs: Any,
    *rest: Any,
) -> int | None:
    from argtrace.layers.shell.outputs import _printf, printf_options  # (at a script's first printf)

    call = printf_options([w.text for w in args])
    if call is None:
        if self.captures:
            self._cap_write("", redirs)
        return 2
    name, i = call
    target = name is not None  # `-v VAR` assigns instead of printing
    fmt = args[i].text if i < len(args) else None
    if self.captures and not target:
        texts = [w.text for w in args[i:]]
        if not texts or any(t is None for t in texts):
            self._cap_write(None, redirs)
            return 0
        self._cap_write(_printf(texts[0] or "", [t or "" for t in texts[1:]]), redirs)
        return 0
    if name:
        vals = [w.text for w in args[i + 1 :]]
        value: str | None = None
        if fmt is not None and all(v is not None for v in vals):
            value = _printf(fmt, [v or "" for v in vals])
        self.set_var(name, value, at=at, expansion="printf -v", reason=f"`printf -v` at {at}")
        if value is None and fmt is not None:
            from argtrace.layers.shell.holes import printf_holed

            holed = printf_holed(fmt, args[i + 1 :])
            var = self.lookup(name)
            if holed is not None and var is not None and not var.known:
                self.holed_values[id(var)] = (var, holed[0], holed[1])
    return 0


def b_let(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    st: int | None = 0
    for w in args:
        if w.text is None:
            # an expression not known statically (`let J=2*3`: bash expands the `*` as a pattern before
            # let reads it; `let X=$(nproc)*2`): neither is what it assigns. The names are read from the
            # text before pathname expansion, else from the word as written; the next words still run
            written = w.unglobbed if w.unglobbed is not None else w.expansion
            if written != "literal" or w.unglobbed is not None:
                self.mark_arith_unknown(written, f"`let` at {at}: {w.reason}")
            st = None
            continue
        try:
            st = 0 if self.arith(w.text) else 1  # the last expression's value is let's status
        except ArithError:
            self.mark_arith_unknown(w.text)
            st = None
    return st


def b_wait(self: Builtins, *a: Any) -> int | None:
    self.waited = True
    return None


def b_echo(
    self: Builtins,
    args: list[ExpWord],
    at: str,
    argv: list[ExpWord],
    prefix_env: Any,
    redirs: Any,
    *rest: Any,
) -> int | None:
    if not self.captures:
        return 0
    from argtrace.layers.shell.outputs import _echo_output  # (at an `echo` inside `$(...)`)

    self._cap_write(_echo_output([w.text for w in args]), redirs)
    return 0


def b_pwd(
    self: Builtins,
    args: list[ExpWord],
    at: str,
    argv: list[ExpWord],
    prefix_env: Any,
    redirs: Any,
    *rest: Any,
) -> int | None:
    if self.captures:
        self._cap_write(None if self.cwd is None else from_str(self.cwd) + "\n", redirs)
    return 0


def b_alias(
    self: Builtins,
    args: list[ExpWord],
    at: str,
    argv: list[ExpWord],
    prefix_env: Any,
    redirs: Any,
    start: int,
    *rest: Any,
) -> int | None:
    """``alias NAME=VALUE``: kept for the commands bash reads after this complete command (its top-level
    command in this source: bash parses a whole compound command, or a line, before running it)."""
    end = start
    if self.src.tree is not None:
        end = next(
            (c.end_byte for c in self.src.tree.root_node.children if c.start_byte <= start < c.end_byte),
            start,
        )
    # bash reads a complete command up to the end of its line (`alias a=b; a` does not see it)
    newline = self.src.text.find("\n", end)
    visible_from = len(self.src.text) if newline < 0 else newline
    status: int | None = 0
    for w in args:
        t = w.text
        if t is None:
            status = None
            continue
        name, eq, value = t.partition("=")
        if not eq:
            if name not in self.aliases and not name.startswith("-"):
                status = 1  # `alias NAME` of an undefined alias
            continue
        if not name or re.search(r"[\s/$`=\\'\"<>|&;()]", name):
            status = 1
            continue
        quoted = w.expansion == f"{name}='{value}'" and "'" not in value
        self.aliases[name] = AliasDef(
            value,
            id(self.src),
            visible_from,
            w.offset + len(name) + 2 if quoted else None,
            self.aliases.get(name),
        )
    return status


def b_unalias(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    for w in args:
        if w.text == "-a":
            self.aliases.clear()
        elif w.text is None:
            self.aliases = {n: replace(a, value=None) for n, a in self.aliases.items()}
        else:
            self.aliases.pop(w.text, None)
    return 0


def b_shopt(self: Builtins, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    texts = [w.text for w in args]
    if texts and texts[0] in ("-s", "-u"):
        for t in texts[1:]:
            if t:
                (self.options.add if texts[0] == "-s" else self.options.discard)(t)
    return 0
