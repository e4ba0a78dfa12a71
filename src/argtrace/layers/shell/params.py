"""Parameter and array state (bash's variables): scopes, ``set_var``/``set_array`` with their attributes
(export, readonly, integer, arrays), ``$1``.. and the special parameters as ``get_param`` reads them,
arithmetic on variables, the working directory, and the snapshots that let a branch whose condition is
unknown run on a copy and be merged (a variable that differs between the branches becomes unknown).
"""

from __future__ import annotations

import posixpath
import re

from argtrace.layers.shell.arith_literals import literal_value
from argtrace.layers.shell.core import ArithError, Core, _Exit
from argtrace.layers.shell.deferred import Deferred
from argtrace.layers.shell.state import _VAR_DEFAULTS, Snapshot, Var, new_var

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# attributes that set_var's callers pass and that name none of the fields it sets itself
_FLAG_ATTRS = frozenset({"exported", "readonly", "integer", "assoc"})


_CALLERS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _assigns(text: str, name: str) -> bool:
    """Whether the script text assigns ``name`` anywhere (``NAME=``, ``NAME+=``, ``NAME[i]=`` after any
    ``export``/``local``..., ``read ... NAME``, ``for NAME in``): a textual test, enough to tell a variable of
    the script's own from one only its caller can set."""
    n = re.escape(name)
    return bool(re.search(rf"(?<![\w$.-]){n}(\[[^]\n]*\])?\+?=|\bread\b[^\n;|&]*\b{n}\b|\bfor\s+{n}\b", text))


class Params(Core):
    def lookup(self, name: str) -> Var | None:
        for scope in reversed(self.scopes):
            v = scope.get(name)
            if v is not None:
                return v
        return None

    def set_var(
        self,
        name: str,
        value: str | None,
        *,
        at: str | None,
        expansion: str | None,
        reason: str | None = None,
        append: bool = False,
        local: bool = False,
        **attrs: Any,
    ) -> None:
        scopes = self.scopes
        # one scope (outside functions): _scope_of's answer, without its call
        scope = scopes[-1] if local or len(scopes) == 1 else self._scope_of(name)
        old = scope.get(name)
        if old is not None and old.readonly:
            self.emit("readonly", at, name=name)
            self.assignment_refused = True
            return
        if old is not None and old.unfollowed is not None:
            value, reason = None, old.unfollowed
        if ((old is not None and old.integer) or attrs.get("integer")) and value is not None:
            try:
                base_text = (old.scalar if old is not None else None) or "0"
                value = str(self.arith(value if not append else f"{base_text}+({value})"))
                append = False
            except ArithError:
                value = None
                reason = reason or "arithmetic on a value that is not known statically"
        if append and old is not None:
            if old.array is not None and value is not None:
                arr = dict(old.array)
                k = 0 if not old.assoc else "0"
                cur = arr.get(k, "")
                arr[k] = None if cur is None else cur + value
                scope[name] = old.with_(array=tuple(arr.items()), at=at, expansion=expansion)
                return
            base = old.scalar if old.is_set else ""
            value = None if (base is None or value is None) else base + value
            if value is None and reason is None:
                reason = old.reason or "appended to a value that is not known statically"
        known = value is not None
        if old is None and not attrs and "allexport" not in self.options:
            # the common case, without dataclasses.replace: new_var's Var, built here (a call each of a big
            # script's 17,000 assignments, issue 18)
            new = object.__new__(Var)
            d = new.__dict__
            d.update(_VAR_DEFAULTS)
            d.update(value=value, known=known, reason=None if known else reason, at=at, expansion=expansion)
            scope[name] = new
            return
        if (
            old is None
            and _FLAG_ATTRS.issuperset(attrs)
            and "export" not in self.options
            and "allexport" not in self.options
        ):
            # `export X=1` of a new name: the Var that ``Var().with_(...)`` below gives, built directly (as
            # new_var builds it: every key a field)
            new = object.__new__(Var)
            d = new.__dict__
            d.update(_VAR_DEFAULTS)
            d.update(value=value, known=known, reason=None if known else reason, at=at, expansion=expansion)
            d.update(attrs)
            scope[name] = new
            return
        base_var = old if old is not None else Var()
        new = base_var.with_(
            value=value,
            array=None,
            known=known,
            reason=None if known else reason,
            at=at,
            expansion=expansion,
            is_set=True,
            **attrs,
        )
        if "export" in self.options or "allexport" in self.options:
            new = new.with_(exported=True)
        scope[name] = new

    def mark_unfollowed(self, name: str, reason: str, local: bool = False) -> None:
        """From now on ``name``'s value is unknown, and so is every value assigned to it (``Var.unfollowed``):
        an attribute argtrace does not follow changes what it holds (not set yet, it may be set through a
        name reference: unknown too)."""
        scope = self.scopes[-1] if local else self._scope_of(name)
        old = scope.get(name)
        if old is None:
            scope[name] = new_var(known=False, reason=reason, unfollowed=reason)
            return
        scope[name] = old.with_(value=None, array=None, known=False, reason=reason, unfollowed=reason)

    def _scope_of(self, name: str) -> dict[str, Var]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope
        return self.scopes[0]

    def set_array(
        self,
        name: str,
        items: list[tuple[Any, str | None]] | None,
        *,
        at: str,
        expansion: str,
        append: bool = False,
        reason: str | None = None,
        local: bool = False,
        assoc: bool | None = None,
    ) -> None:
        scope = self.scopes[-1] if local else self._scope_of(name)
        old = scope.get(name)
        if old is not None and old.readonly:
            self.emit("readonly", at, name=name)
            self.assignment_refused = True
            return
        is_assoc = assoc if assoc is not None else bool(old and old.assoc)
        if old is not None and old.unfollowed is not None:
            items, reason = None, old.unfollowed
        if items is None:
            scope[name] = (old or Var()).with_(
                value=None,
                array=None,
                known=False,
                reason=reason,
                at=at,
                expansion=expansion,
                is_set=True,
                assoc=is_assoc,
            )
            return
        if append and old is not None:
            if not old.known:
                scope[name] = old.with_(at=at, expansion=expansion)
                return
            arr = dict(old.array) if old.array is not None else ({0: old.value} if old.is_set else {})
            nxt = (max((k for k in arr if isinstance(k, int)), default=-1) + 1) if not is_assoc else 0
        else:
            arr = {}
            nxt = 0
        for k, v in items:
            if k is None:
                arr[nxt] = v
                nxt += 1
            else:
                arr[k] = v
                if isinstance(k, int):
                    nxt = k + 1
        if not is_assoc:
            arr = dict(sorted(arr.items(), key=lambda kv: kv[0] if isinstance(kv[0], int) else 0))
        scope[name] = (old or Var()).with_(
            value=None,
            array=tuple(arr.items()),
            known=True,
            reason=None,
            at=at,
            expansion=expansion,
            is_set=True,
            assoc=is_assoc,
        )

    def arith(self, expr: str) -> int:
        """Evaluate arithmetic text (after ``$`` expansions); raises ArithError when unknown or invalid."""
        literal = literal_value(expr)
        if literal is not None:
            return literal  # what the evaluator below gives: it reads no variable

        def lookup(name: str) -> str | None:
            idx = None
            if "[" in name:
                name, idx = name[:-1].split("[", 1)
            v = self.lookup(name)
            if v is None or not v.is_set:
                return None
            if not v.known:
                raise ArithError(f"${name} is not known statically" + (f" ({v.reason})" if v.reason else ""))
            if idx is not None and v.array is not None:
                try:
                    key: Any = self.arith(idx) if not v.assoc else idx
                except ArithError:
                    raise
                return dict(v.array).get(key)
            return v.scalar

        def assign(name: str, value: int) -> None:
            if "[" in name:
                base, idx = name[:-1].split("[", 1)
                self.set_array(
                    base, [(self.arith(idx), str(value))], at=self.cur_at, expansion="arithmetic", append=True
                )
                return
            self.set_var(name, str(value), at=self.cur_at, expansion="arithmetic")

        from argtrace.layers.shell.arith import Evaluator  # (arith.py: read for the first other expression)

        return Evaluator(lookup, assign).evaluate(expr)

    # ---------------------------------------------------------------------- snapshots

    def snapshot(self) -> Snapshot:
        return Snapshot(
            scopes=[dict(s) for s in self.scopes],
            positional=None if self.positional is None else list(self.positional),
            positional_reason=self.positional_reason,
            funcs=dict(self.funcs),
            cwd=self.cwd,
            cwd_reason=self.cwd_reason,
            options=set(self.options),
            extra=self._extra_state(),
        )

    def restore(self, s: Snapshot) -> None:
        self.scopes = [dict(x) for x in s.scopes]
        self.positional = None if s.positional is None else list(s.positional)
        self.positional_reason = s.positional_reason
        self.funcs = dict(s.funcs)
        self.cwd = s.cwd
        self.cwd_reason = s.cwd_reason
        self.options = set(s.options)
        self.exec_fds = dict(s.extra.get("exec_fds", {}))
        self.aliases = dict(s.extra.get("aliases", {}))

    def _extra_state(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.exec_fds:
            extra["exec_fds"] = dict(self.exec_fds)
        if self.aliases:
            extra["aliases"] = dict(self.aliases)
        return extra

    fork = Deferred("argtrace.layers.shell.params_forks")
    _loop_aimed_at = Deferred("argtrace.layers.shell.params_forks")
    _divert = Deferred("argtrace.layers.shell.params_forks")
    settle_diverted = Deferred("argtrace.layers.shell.params_forks")
    frame_status = Deferred("argtrace.layers.shell.params_forks")
    run_frame = Deferred("argtrace.layers.shell.params_forks")
    _merge = Deferred("argtrace.layers.shell.params_forks")

    # ---------------------------------------------------------------------- reading parameters

    def get_param(self, name: str) -> tuple[str, str | None, str | None]:
        """(state, value, reason) for a scalar parameter: state is set|unset|unknown."""
        if name.isdigit():
            n = int(name)
            if n == 0:
                return "set", self.arg0, None
            if self.positional is None:
                return "unknown", None, self.positional_reason
            if n <= len(self.positional):
                return "set", self.positional[n - 1], None
            return "unset", None, None
        if name == "#":
            if self.positional is None:
                return "unknown", None, self.positional_reason
            return "set", str(len(self.positional)), None
        if name == "?":
            if self.last_status is None:
                return "unknown", None, "the exit status of the previous command is not known statically"
            return "set", str(self.last_status), None
        if name == "$":
            return "unknown", None, "the shell's process id is known only at run time"
        if name == "!":
            self.pid_kept = True
            return "unknown", None, "the process id of the background job is known only at run time"
        if name == "-":
            return (
                "set",
                "hB"
                + "".join(
                    f for f, o in (("e", "errexit"), ("u", "nounset"), ("x", "xtrace")) if o in self.options
                ),
                None,
            )
        if name == "RANDOM":
            return "unknown", None, "$RANDOM changes at every use"
        if (
            name
            in (
                "SECONDS",
                "EPOCHSECONDS",
                "EPOCHREALTIME",
                "BASHPID",
                "LINENO",
                "PPID",
                "HOSTNAME",
                "UID",
                "EUID",
            )
            and self.lookup(name) is None
        ):
            return "unknown", None, f"${name} is known only at run time"
        if name == "FUNCNAME":
            stack = self.funcname_stack()
            return ("set", stack[0], None) if stack else ("unset", None, None)
        v = self.lookup(name)
        if v is None or not v.is_set:
            if name == "BASH_SOURCE":
                return "set", self.bash_source[-1], None
            return "unset", None, None
        if not v.known:
            return "unknown", None, v.reason
        return "set", v.scalar, None

    def funcname_stack(self) -> list[str]:
        """bash's FUNCNAME array: the functions and `source`s being run, innermost first, then "main" in a
        script read from a file; empty (the variable unset) while no function runs. bash ignores assignments
        to it (bash(1))."""
        if not any(is_function for _, is_function in self.call_stack):
            return []
        return [name for name, _ in reversed(self.call_stack)] + (["main"] if self.funcname_main else [])

    def get_list(
        self, name: str, index: str | None
    ) -> tuple[str, list[tuple[Any, str | None]] | None, str | None]:
        """Elements of ``$@``/``$*`` (index None) or an array ``name[@]``."""
        if name in ("@", "*"):
            if self.positional is None:
                return "unknown", None, self.positional_reason
            return "set", list(enumerate(self.positional, 1)), None
        if name == "FUNCNAME":
            return "set", list(enumerate(self.funcname_stack())), None
        v = self.lookup(name)
        if v is None or not v.is_set:
            if name == "BASH_SOURCE":
                return "set", list(enumerate(reversed(self.bash_source))), None
            return "unset", [], None
        if not v.known:
            return "unknown", None, v.reason
        if v.array is None:
            return "set", [(0, v.value)], None
        return "set", list(v.array), None

    def _nounset_callers(self, name: str, raw: str, at: str) -> bool:
        """Whether an unset variable read under `set -u` is the caller's: a name the script never assigns
        (`--data-parallel-address $MASTER_ADDR` on a worker node, `LD_PRELOAD=/lib/x.so:$LD_PRELOAD`). Where
        the script runs the caller may set it, as with `${NAME:?}` or an unset `--port $PORT` (SH026's
        assumption, and the SH046 re-read of a script that stops without one): said once, as a note that
        rests on it, and read with its value unknown rather than as the exit. A name the script assigns
        somewhere is its own: unset here, it is the exit (and SH046's re-read when no server follows)."""
        if "nounset" not in self.options or not _CALLERS_NAME.fullmatch(name):
            return False
        if name in self.callers_names:
            return True  # said where it was first read (`: "${MODEL_PATH:?}"`, then `"$MODEL_PATH"`)
        # the statement that reads it may assign it too (`export LD_PRELOAD=/x.so:$LD_PRELOAD` extends the
        # caller's value): only the script's other lines make it the script's own
        line = at.rsplit(":", 2)[-2] if at.count(":") >= 2 else ""
        lines = self.src.text.split("\n")
        if line.isdigit() and 0 < int(line) <= len(lines):
            lines = [*lines[: int(line) - 1], *lines[int(line) :]]
        if _assigns("\n".join(lines), name):
            return False
        self.callers_names.add(name)
        self.emit("nounset", at, name=name, raw=raw, positional=False, nargs=None, caller=True)
        return True

    def _nounset(self, name: str, raw: str, at: str) -> None:
        if "nounset" in self.options and name not in ("@", "*"):
            self.emit(
                "nounset",
                at,
                name=name,
                raw=raw,
                positional=name.isdigit(),
                nargs=None if self.positional is None else len(self.positional),
            )
            raise _Exit(1, f"set -u: {name}: unbound variable")

    def _ifs(self) -> str | None:
        v = self.lookup("IFS")
        if v is None or not v.is_set:
            return " \t\n"
        if not v.known:
            return None
        return v.scalar or ""

    def resolve_path(self, p: str) -> str | None:
        if p.startswith("/"):
            return p
        if self.cwd is None:
            return None
        return posixpath.normpath(posixpath.join(self.cwd, p))
