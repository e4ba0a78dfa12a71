"""The builtins and wrappers bash runs itself: ``export``/``declare``/``local``/``readonly``, ``unset``,
``shift``, ``set``, ``cd``/``pushd``/``popd``, ``exit``/``return``/``break``/``continue``, ``printf``,
``echo``, ``let``, ``eval``, ``source``, ``exec``, ``command``, ``shopt``... Each ``b_NAME`` takes the
expanded words and returns the status (None: not known statically). The builtins that read input
(``read``, ``mapfile``, ``getopts``) are in inputs.py, the class this one is built on.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import replace

from argtrace.frameworks.detect import _ASSIGN
from argtrace.layers.shell import hostfs  # the files of the host the script runs on (--host)
from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.arith import ArithError
from argtrace.layers.shell.commands import _BUILTIN_NAMES, detect_after_unknown
from argtrace.layers.shell.conditions import TestSyntaxError
from argtrace.layers.shell.core import (
    HOLE,
    MAX_DEPTH,
    AliasDef,
    ExpWord,
    Source,
    Vanished,
    _Break,
    _Continue,
    _Exit,
    _prepare,
    _Return,
    from_str,
    to_str,
    vanished_in,
)
from argtrace.layers.shell.inputs import Inputs
from argtrace.layers.shell.state import Var
from argtrace.layers.shell.stdin_text import command_stdin

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

    def b_test(self, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
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

    def b_export(self, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
        return self._declare(args, at, argv[0].text or "", default_attrs={"exported": True})

    def b_declare(self, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
        cmd = argv[0].text or ""
        attrs: dict[str, Any] = {}
        if cmd == "readonly":
            attrs["readonly"] = True
        return self._declare(args, at, cmd, default_attrs=attrs)

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

    def b_unset(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
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

    def b_shift(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
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

    def _set_positional(self, words: list[ExpWord], at: str) -> None:
        if any(w.text is None for w in words):
            self.positional = None
            bad = next(w for w in words if w.text is None)
            self.positional_reason = f"`set --` at {at} uses a value not known statically ({bad.reason})"
            return
        self.positional = [w.text or "" for w in words]
        self.positional_reason = None

    def b_cd(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
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

    def b_pushd(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        return self.b_cd([w for w in args if not (w.text or "").startswith("-")], at)

    def b_popd(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        self.cwd = None
        self.cwd_reason = f"`popd` at {at}"
        return None

    def b_exit(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        st: int | None = self.last_status
        if args:
            try:
                st = int(args[0].text or "") & 0xFF if args[0].text is not None else None
            except ValueError:
                st = 2
        raise _Exit(st, f"`exit` at {at}")

    def b_return(
        self,
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

    def b_break(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        n = int(args[0].text or "1") if args and (args[0].text or "").isdigit() else 1
        raise _Break(max(n, 1))

    def b_continue(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        n = int(args[0].text or "1") if args and (args[0].text or "").isdigit() else 1
        raise _Continue(max(n, 1))

    def b_printf(
        self, args: list[ExpWord], at: str, argv: list[ExpWord], prefix_env: Any, redirs: Any, *rest: Any
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

    def b_let(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
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

    def b_wait(self, *a: Any) -> int | None:
        self.waited = True
        return None

    def b_eval(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
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

    def run_string(self, code: str, at: str, label: str) -> int | None:
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

    def b_source(self, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
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
                return self.run_string(
                    stdin[0], at, label=f"{to_str(argv[0].text or 'source')} {fname} at {at}"
                )
            self._note_unread_source(
                f"{to_str(argv[0].text or 'source')} {to_str(fname)}", "the caller's stdin"
            )
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
            self.emit(
                "env_line_runs_word", f"{to_str(fname)}:{line}", name=name, value=value, word=word, by=at
            )
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

    def _written_by_script(self, fname: str) -> tuple[str | None] | None:
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

    def _find_source(self, fname: str) -> str | None:
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

    def _note_unread_source(self, written: str, what: str = "a file argtrace cannot read") -> None:
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

    def _taint_all(self, reason: str) -> None:
        """After sourcing an unknown file, any variable may have changed; we keep values but note it."""
        self.emit("taint", None, reason=reason)

    def b_exec(
        self,
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
        self,
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

    def b_echo(
        self, args: list[ExpWord], at: str, argv: list[ExpWord], prefix_env: Any, redirs: Any, *rest: Any
    ) -> int | None:
        if not self.captures:
            return 0
        from argtrace.layers.shell.outputs import _echo_output  # (at an `echo` inside `$(...)`)

        self._cap_write(_echo_output([w.text for w in args]), redirs)
        return 0

    def b_pwd(
        self, args: list[ExpWord], at: str, argv: list[ExpWord], prefix_env: Any, redirs: Any, *rest: Any
    ) -> int | None:
        if self.captures:
            self._cap_write(None if self.cwd is None else from_str(self.cwd) + "\n", redirs)
        return 0

    def b_noop(self, *a: Any) -> int | None:
        return 0

    def b_unknown(self, *a: Any) -> int | None:
        return None

    def b_alias(
        self,
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

    def b_unalias(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        for w in args:
            if w.text == "-a":
                self.aliases.clear()
            elif w.text is None:
                self.aliases = {n: replace(a, value=None) for n, a in self.aliases.items()}
            else:
                self.aliases.pop(w.text, None)
        return 0

    def b_shopt(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        texts = [w.text for w in args]
        if texts and texts[0] in ("-s", "-u"):
            for t in texts[1:]:
                if t:
                    (self.options.add if texts[0] == "-s" else self.options.discard)(t)
        return 0
