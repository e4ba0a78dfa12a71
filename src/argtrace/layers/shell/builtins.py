"""The builtins and wrappers bash runs itself: ``export``/``declare``/``local``/``readonly``, ``unset``,
``shift``, ``set``, ``cd``/``pushd``/``popd``, ``exit``/``return``/``break``/``continue``, ``printf``,
``echo``, ``let``, ``eval``, ``source``, ``exec``, ``command``, ``shopt``... Each ``b_NAME`` takes the
expanded words and returns the status (None: not known statically). The builtins that read input
(``read``, ``mapfile``, ``getopts``) are in inputs.py, the class this one is built on.
"""

from __future__ import annotations

import re

from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.core import (
    ExpWord,
    from_str,
    to_str,
)
from argtrace.layers.shell.deferred import Deferred
from argtrace.layers.shell.inputs import Inputs
from argtrace.layers.shell.state import Var

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the names of a shell's own stdin that `source` reads as a file
_STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})

_QUOTED_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=(.*)", re.DOTALL)


class Builtins(Inputs):
    # ---------------------------------------------------------------------- builtins

    def b_true(self, *a: Any) -> int | None:
        return 0

    def b_false(self, *a: Any) -> int | None:
        return 1

    b_test = Deferred("argtrace.layers.shell.builtins_state")

    def b_export(self, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
        return self._declare(args, at, argv[0].text or "", default_attrs={"exported": True})

    b_declare = Deferred("argtrace.layers.shell.builtins_state")

    def _declare(self, args: list[ExpWord], at: str, cmd: str, default_attrs: dict[str, Any]) -> int | None:
        attrs = dict(default_attrs)
        local = cmd == "local" or (cmd in ("declare", "typeset") and self.depth > 0)
        # bash 5.2: a name that is not an identifier is refused ("not a valid identifier"), the other names
        # are still declared, and the builtin returns 1 (builtins/setattr.c set_or_show_attributes)
        status = 0
        self.assignment_refused = False
        unexport = False
        global_ = False
        func_mode = False
        case_flag = ""  # `declare -l/-u/-c`: the case conversion of what is assigned, not followed
        nameref = False  # `declare -n`: a name reference, not followed
        for w in args:
            if w.reason and w.reason.startswith("ASSIGN:"):
                raw = w.reason[len("ASSIGN:") :]
                tok = L.WordTok(raw, w.offset)
                parts = L.assign_parts(raw)
                assert parts
                name = from_str(parts[0])
                self.do_assignment(
                    tok,
                    local=local and not global_,
                    **{k: v for k, v in attrs.items() if k not in ("exported",) or v},
                )
                scope = self.scopes[-1] if local and not global_ else self._scope_of(name)
                var = scope.get(name)
                if var is not None:
                    upd: dict[str, Any] = {}
                    if attrs.get("exported"):
                        upd["exported"] = True
                    if unexport:
                        upd["exported"] = False
                    if attrs.get("readonly"):
                        upd["readonly"] = True
                    if upd and any(getattr(var, k) != v for k, v in upd.items()):
                        scope[name] = var.with_(**upd)
                self._declare_unfollowed(to_str(name), cmd, case_flag, nameref, at, local and not global_)
                continue
            t = w.text
            if t is None:
                self.emit("unknown_declare", at, reason=w.reason, raw=w.expansion, cmd=cmd)
                # `export $(grep -v '^#' .env | xargs)`, `export "$k=$v"` in a loop reading a file
                self._note_unread_source(f"{cmd} {w.expansion}", "an export of names not known statically")
                continue
            if t.startswith(("-", "+")) and len(t) > 1 and not (cmd == "export" and t == "--"):
                on = t[0] == "-"
                for ch in t[1:]:
                    if ch == "x":
                        attrs["exported"] = on
                        unexport = not on
                    elif ch == "r" and on:
                        attrs["readonly"] = True
                    elif ch == "i":
                        attrs["integer"] = on
                    elif ch == "a":
                        attrs["array"] = True
                    elif ch == "A":
                        attrs["assoc"] = True
                    elif ch == "g":
                        global_ = True
                    elif ch == "n" and cmd == "export":
                        unexport = True
                    elif ch == "n":
                        nameref = on
                    elif ch in "luc" and on:
                        case_flag = ch
                    elif ch in "fF":
                        func_mode = True
                    elif ch == "p":
                        pass
                continue
            if t == "--":
                continue
            if func_mode:
                continue
            name = t
            quoted_assign = _QUOTED_ASSIGN.fullmatch(to_str(t))
            if quoted_assign is not None:
                # `export "A=b c"`, `export "HF_HOME=$DIR"`: a word that expanded to NAME=VALUE assigns,
                # the value as expanded (bash's declare/export read each argument after expansion)
                assigned = from_str(quoted_assign.group(1))
                self.set_var(
                    assigned,
                    from_str(quoted_assign.group(3)),
                    at=at,
                    expansion=f"{cmd} {w.expansion}",
                    append=bool(quoted_assign.group(2)),
                    local=local and not global_,
                    **{k: v for k, v in attrs.items() if k in ("exported", "readonly", "integer") and v},
                )
                if unexport and (var := self.lookup(assigned)) is not None:
                    self._scope_of(assigned)[assigned] = var.with_(exported=False)
                continue
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                self.emit("bad_identifier", at, name=to_str(name), cmd=cmd)
                if not re.match(r"[A-Za-z_]\w*(?:\[[^]]*\])?\+?=", name):  # `export "A=b c"` assigns
                    status = 1
                continue
            scope = self.scopes[-1] if local and not global_ else self._scope_of(name)
            var = scope.get(name)
            if var is None:
                new = Var(value=None, is_set=False, known=True, at=at, expansion=cmd)
                if attrs.pop("array", None) or attrs.get("assoc"):
                    new = new.with_(array=(), is_set=True, assoc=bool(attrs.get("assoc")))
                new = new.with_(
                    **{k: v for k, v in attrs.items() if k in ("exported", "readonly", "integer", "assoc")}
                )
                if unexport:
                    new = new.with_(exported=False)
                scope[name] = new
            else:
                upd = {k: v for k, v in attrs.items() if k in ("exported", "readonly", "integer")}
                if unexport:
                    upd["exported"] = False
                scope[name] = var.with_(**upd)
            self._declare_unfollowed(to_str(name), cmd, case_flag, nameref, at, local and not global_)
        return 1 if self.assignment_refused else status  # a readonly name refused its value

    def _declare_unfollowed(
        self, name: str, cmd: str, case_flag: str, nameref: bool, at: str, local: bool
    ) -> None:
        """``declare -l/-u/-c NAME`` and ``declare -n NAME[=TARGET]``: attributes that make what NAME (and a
        reference's TARGET) holds differ from what is assigned; argtrace does not follow them, so from here
        on their values are unknown, with the declaration named."""
        if case_flag:
            self.mark_unfollowed(
                name, f"`{cmd} -{case_flag} {name}` ({at}) converts the case of what is assigned", local
            )
        if not nameref:
            return
        var = self.lookup(name)
        target = var.scalar if var is not None and var.is_set else None
        m = re.fullmatch(r"[A-Za-z_]\w*", to_str(target)) if target else None
        to = f" to {m.group()}" if m is not None else ""
        reason = f"`{cmd} -n {name}` ({at}) makes {name} a name reference{to}, which argtrace does not follow"
        self.mark_unfollowed(name, reason, local)
        if m is not None and m.group() != name:
            self.mark_unfollowed(m.group(), reason)

    b_unset = Deferred("argtrace.layers.shell.builtins_state")
    b_shift = Deferred("argtrace.layers.shell.builtins_state")

    def b_set(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        texts = [w.text for w in args]
        i = 0
        while i < len(texts):
            t = texts[i]
            if t is None:
                return None
            if t == "--":
                self._set_positional(args[i + 1 :], at)
                return 0
            if t == "-":
                self.options.discard("xtrace")
                self._set_positional(args[i + 1 :], at)
                return 0
            if t in ("-o", "+o"):
                opt = texts[i + 1] if i + 1 < len(texts) else None
                if opt:
                    (self.options.add if t == "-o" else self.options.discard)(opt)
                i += 2
                continue
            if t[:1] in "-+" and len(t) > 1:
                on = t[0] == "-"
                for ch in t[1:]:
                    opt = {
                        "e": "errexit",
                        "u": "nounset",
                        "x": "xtrace",
                        "f": "noglob",
                        "a": "allexport",
                        "o": "",
                    }.get(ch)
                    if ch == "o":
                        opt = texts[i + 1] if i + 1 < len(texts) else None
                        i += 1
                    if opt:
                        (self.options.add if on else self.options.discard)(opt)
                i += 1
                continue
            self._set_positional(args[i:], at)
            return 0
        return 0

    _set_positional = Deferred("argtrace.layers.shell.builtins_state")
    b_cd = Deferred("argtrace.layers.shell.builtins_state")
    b_pushd = Deferred("argtrace.layers.shell.builtins_state")
    b_popd = Deferred("argtrace.layers.shell.builtins_state")
    b_exit = Deferred("argtrace.layers.shell.builtins_state")
    b_return = Deferred("argtrace.layers.shell.builtins_state")
    b_break = Deferred("argtrace.layers.shell.builtins_state")
    b_continue = Deferred("argtrace.layers.shell.builtins_state")
    b_printf = Deferred("argtrace.layers.shell.builtins_state")
    b_let = Deferred("argtrace.layers.shell.builtins_state")
    b_wait = Deferred("argtrace.layers.shell.builtins_state")
    b_eval = Deferred("argtrace.layers.shell.builtins_source")
    run_string = Deferred("argtrace.layers.shell.builtins_source")
    b_source = Deferred("argtrace.layers.shell.builtins_source")
    _written_by_script = Deferred("argtrace.layers.shell.builtins_source")
    _find_source = Deferred("argtrace.layers.shell.builtins_source")
    _note_unread_source = Deferred("argtrace.layers.shell.builtins_source")
    _taint_all = Deferred("argtrace.layers.shell.builtins_source")
    b_exec = Deferred("argtrace.layers.shell.builtins_source")
    b_command = Deferred("argtrace.layers.shell.builtins_source")
    b_echo = Deferred("argtrace.layers.shell.builtins_state")
    b_pwd = Deferred("argtrace.layers.shell.builtins_state")

    def b_noop(self, *a: Any) -> int | None:
        return 0

    def b_unknown(self, *a: Any) -> int | None:
        return None

    b_alias = Deferred("argtrace.layers.shell.builtins_state")
    b_unalias = Deferred("argtrace.layers.shell.builtins_state")
    b_shopt = Deferred("argtrace.layers.shell.builtins_state")
