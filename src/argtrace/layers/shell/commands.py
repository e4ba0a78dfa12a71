"""Simple commands: assignments before a command and alone, redirections, the dispatch to builtins,
functions and external programs, the environment a program gets, ``bash -c``/``sh -c`` child shells, and the
recording of each server start (``FoundServer``) with its argv, environment, cwd and redirections.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from argtrace.frameworks.detect import Detection, detect_server, unwrap_command
from argtrace.layers.shell import hostfs  # the files of the host the script runs on (--host)
from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.arith import ArithError
from argtrace.layers.shell.childenv import unknown_exports
from argtrace.layers.shell.conditions import Conditions
from argtrace.layers.shell.core import (
    _CLEAN_SPECIAL,
    _NO_SIDE_EFFECTS,
    _QUIET_BUILTINS,
    _SUCCESS_COMMANDS,
    MAX_DEPTH,
    MAX_LOOP_SERVERS,
    ExpWord,
    FoundServer,
    PredictedCommand,
    Source,
    Vanished,
    _prepare,
    from_str,
    to_str,
    vanished_in,
)
from argtrace.layers.shell.invocation import sbatch_job
from argtrace.layers.shell.state import Var
from argtrace.layers.shell.wrapenv import expand_env_s, systemd_run_substitution, wrapper_env
from argtrace.model_launch import FromUnset

# A parameter a word or an assignment reads: `$1`, `${10}`, `"$@"`, `${#}`, `$NAME`, `${NAME:-x}`, `${#NAME}`
_PARAMETER = re.compile(r"\$\{?#?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#])")

if TYPE_CHECKING:
    from argtrace.layers.slurm import Export

# a variable of the shell's environment: (value, at, expansion, reason)
EnvEntry = tuple[str | None, str | None, str, str | None]


def _passwd() -> bytes | None:
    """/etc/passwd of the host the script runs on (sudo's target user's HOME and SHELL)."""
    try:
        return hostfs.read("/etc/passwd", 1 << 20)
    except OSError:
        return None


_ALIAS_NAME = re.compile(r"[^\s/$`=\\'\"<>|&;()]+")


class Commands(Conditions):
    def run_simple(self, start: int, end: int, node: Any) -> int | None:
        status = self._run_simple(start, end, node)
        rest = self._remainder
        if rest is not None:
            self._remainder = None
            status = self._run_range(*rest)
        return status

    def _run_range(self, start: int, end: int) -> int | None:
        """Run ``start:end`` of the current source, parsed again on its own (see ``run_simple``)."""
        if self.range_depth > 400:
            self.emit("recursion", self.src.at(start), name="re-reading commands tree-sitter merged")
            return None
        from argtrace.layers.shell.syntax import parse_range

        try:
            tree = parse_range(self.src.text, start, end)
        except Exception:
            return None
        self.range_depth += 1
        try:
            return self.run_block(tree.root_node.children)
        finally:
            self.range_depth -= 1

    def _run_simple(self, start: int, end: int, node: Any) -> int | None:
        text = self.src.text
        # tree-sitter may leave characters it cannot place (a BOM, stray bytes) out of the command; bash reads
        # them as part of the first word
        while start > 0 and text[start - 1] not in " \t\n;&|()<>`{}":
            start -= 1
        cond = text.startswith("[[", start)
        try:
            toks = L.tokenize_command(text, start, end, cond=cond)
        except L.LexError as e:
            self.emit("lex_error", self.src.at(start), message=str(e))
            return None
        if toks.stopped_at is not None and text[toks.end : end].strip(" \t\n;&|"):
            # tree-sitter's span goes on after the point where bash ends this command (it can swallow
            # lines after a quirk such as a comment inside backquotes): the rest runs on its own
            self._remainder = (toks.end, end)
        if not toks.words and not toks.redirs:
            return 0
        at = self.src.at(start)
        self.cur_at = at
        self.direct_exec = self.direct == (start, end) and self.src is not None
        if self.direct_exec:
            self.direct = None
        if cond:
            return self.run_cond(toks.words, at)
        assigns: list[L.WordTok] = []
        idx = 0
        while idx < len(toks.words) and toks.words[idx].assign:
            assigns.append(toks.words[idx])
            idx += 1
        rest = toks.words[idx:]
        if rest and self.aliases and "expand_aliases" in self.options:
            expanded = self._expand_aliases(rest, start, assigns)
            if expanded is None:
                return None
            rest = expanded
        elif rest and rest[0].raw in self.aliases and self._alias_starts_a_server(rest, start):
            # bash without expand_aliases runs the word as a program, not the server the alias names (SH031)
            self.emit("alias_not_expanded", at, name=to_str(rest[0].raw))
        first_raw = rest[0].raw if rest else None
        if (
            first_raw in _QUIET_BUILTINS
            and not assigns
            and not self.captures
            and "nounset" not in self.options
            and all(_NO_SIDE_EFFECTS.fullmatch(w.raw) for w in rest)
            and all(r.target is None or _NO_SIDE_EFFECTS.fullmatch(r.target.raw) for r in toks.redirs)
            # a file it writes is noted (log_writes): `mapfile < FILE` must not read the copy here
            and not any(r.op in (">", ">>", "&>", "&>>", ">|") and r.target is not None for r in toks.redirs)
        ):
            # echo/printf/: whose words cannot change anything: nothing to predict (fast path for big scripts)
            return 0
        argv: list[ExpWord] = []
        vanished_all: list[Vanished] = []
        decl = first_raw in _CLEAN_SPECIAL or first_raw in (
            "local",
            "export",
            "declare",
            "typeset",
            "readonly",
        )
        for w in rest:
            if decl and argv and L.assign_parts(w.raw) is not None:
                argv.append(ExpWord(None, self.src.at(w.start), "assignment", offset=w.start))
                argv[-1].reason = "ASSIGN:" + w.raw
                continue
            van: list[tuple[str, str, str | None]] = []
            words = self.expand_word(w, vanished=van)
            for raw, state, name in van:
                # a backslash-newline inside the word is a line continuation the shell removes before it
                # reads the word (`--dist-init-addr $2\<newline>`): the expansion is `$2` (sglang#4057)
                raw = raw.replace("\\\n", "")
                vanished_all.append(Vanished(len(argv), raw, self.src.at(w.start), state, name))
            argv.extend(words)
        redirs = []
        for r in toks.redirs:
            tgt = None
            if r.target is not None and r.op not in ("<<", "<<-"):
                tgt = self.expand_single(r.target)
            redirs.append((r.fd, r.op, tgt, self.src.at(r.start), r))
        if not argv:
            # assignments only: they stay in the shell
            for a in assigns:
                self.do_assignment(a)
            for fd, op, tgt, rat, _r in redirs:
                self._note_redirect(fd, op, tgt, rat, None)
            return 0
        prefix_env: dict[str, tuple[str | None, str, str, str | None]] = {}
        for a in assigns:
            m = L.ASSIGN_RE.match(a.raw)
            assert m
            name = from_str(m.group(1))
            value, reason = self.expand_value(L.WordTok(a.raw[m.end() :], a.start + m.end()))
            if m.group(3) == "+":
                st, old, _ = self.get_param(name)
                value = None if value is None or (st == "unknown") else (old or "") + value
            prefix_env[name] = (value, self.src.at(a.start), to_str(a.raw), reason)
        return self.dispatch(argv, prefix_env, redirs, at, start, node, vanished_all)

    def _alias_starts_a_server(self, words: list[L.WordTok], start: int) -> bool:
        """The command would start a server if bash expanded its first word's alias, and does not as
        written (`alias python=python3` in front of `python -m sglang.launch_server` starts it either way)."""
        a = self.aliases.get(words[0].raw)
        while a is not None and a.source == id(self.src) and start < a.visible_from:
            a = a.previous
        if a is None or a.value is None:
            return False
        written = [w.raw for w in words]
        expanded = [*a.value.split(), *written[1:]]
        return detect_server(written) is None and detect_server(expanded) is not None

    def _expand_aliases(
        self, words: list[L.WordTok], start: int, assigns: list[L.WordTok]
    ) -> list[L.WordTok] | None:
        """bash's alias expansion of a simple command's first word (and of the next one when a value ends
        in a blank), for aliases defined in a complete command read before this one; each alias at most
        once. The value's words are placed where the value is written when that is known (a quoted literal
        in this file), else on the alias's name. None: an alias whose value is not known statically, or
        that is more than one simple command."""
        done: list[L.WordTok] = []
        pending = list(words)
        seen: set[str] = set()
        while pending:
            w = pending[0]
            a = self.aliases.get(w.raw)
            while a is not None and a.source == id(self.src) and start < a.visible_from:
                a = a.previous  # defined in the same complete command: bash had already read this one
            if a is None or w.raw in seen or not _ALIAS_NAME.fullmatch(w.raw):
                break
            toks = None if a.value is None else L.tokenize_command(a.value, 0, len(a.value))
            if (
                a.value is None
                or toks is None
                or toks.redirs
                or (toks.stopped_at is not None and a.value[toks.end :].strip())
            ):
                self.emit("alias_unknown", self.src.at(w.start), name=to_str(w.raw))
                return None
            seen.add(w.raw)
            base = a.value_offset if a.source == id(self.src) else None
            moved = [
                L.WordTok(x.raw, w.start if base is None else base + x.start, x.assign) for x in toks.words
            ]
            while moved and moved[0].assign and not done:
                assigns.append(moved.pop(0))
            if a.value[-1:] in (" ", "\t"):
                # a value ending in a blank: the word after it is checked for an alias too
                done.extend(moved)
                pending = pending[1:]
            else:
                pending = [*moved, *pending[1:]]
        return [*done, *pending]

    def do_assignment(self, a: L.WordTok, local: bool = False, **attrs: Any) -> None:
        parts = L.assign_parts(a.raw)
        assert parts
        name_raw, index, plus, value_start = parts
        name = from_str(name_raw)
        append = plus == "+"
        value_raw = a.raw[value_start:]
        at = self.src.at(a.start)
        self.cur_at = at
        if value_raw.startswith("(") and value_raw.endswith(")") and index is None:
            v = self.lookup(name)
            is_assoc = bool(attrs.get("assoc")) or bool(
                v is not None and v.assoc and (append or local is False)
            )
            items = self.array_literal(value_raw[1:-1], a.start + value_start + 1, is_assoc)
            self.set_array(
                name,
                items,
                at=at,
                expansion=to_str(a.raw),
                append=append,
                local=local,
                reason=None if items is not None else "an element is not known statically",
                assoc=attrs.get("assoc"),
            )
            if attrs.get("exported"):
                sc = self._scope_of(name) if not local else self.scopes[-1]
                sc[name] = sc[name].with_(exported=True)
            del v
            return
        vt = L.WordTok(value_raw, a.start + value_start)
        value, reason = self.expand_value(vt)
        if index is not None:
            idx_raw = index[1:-1]
            v = self.lookup(name)
            if v is not None and v.assoc:
                key: Any = self._expand_operand(idx_raw, at)
            else:
                e = self.expand_arith_text(idx_raw)
                try:
                    key = self.arith(e) if e is not None else None
                except ArithError:
                    key = None
            if key is None:
                self.set_array(
                    name, None, at=at, expansion=to_str(a.raw), reason="the index is not known statically"
                )
                return
            if append and v is not None and v.array is not None:
                cur = dict(v.array).get(key, "")
                value = None if value is None or cur is None else cur + value
            self.set_array(name, [(key, value)], at=at, expansion=to_str(a.raw), append=True, local=local)
            return
        self.set_var(
            name, value, at=at, expansion=to_str(a.raw), reason=reason, append=append, local=local, **attrs
        )

    def array_literal(
        self, inner: str, offset: int, assoc: bool = False
    ) -> list[tuple[Any, str | None]] | None:
        toks = L.tokenize_command(self.src.text, offset, offset + len(inner), multiline=True)
        items: list[tuple[Any, str | None]] = []
        for w in toks.words:
            m = re.match(r"\[([^\]]*)\]=", w.raw)
            if m:
                key: Any = m.group(1)
                if assoc:
                    key = self._expand_operand(key, self.cur_at)
                else:
                    try:
                        key = int(self.arith(self.expand_arith_text(key) or "0"))
                    except (ArithError, ValueError):
                        pass
                items.append((key, self.expand_single(L.WordTok(w.raw[m.end() :], w.start + m.end()))))
                continue
            for e in self.expand_word(w):
                if e.text is None:
                    return None
                items.append((None, e.text))
        return items

    def _exec_redirect(self, fd: str | None, op: str, tgt: str | None, at: str) -> None:
        """``exec >> log 2>&1``: the script's own stdout/stderr from here on (as redirections to replay)."""
        fds = dict(self.exec_fds)
        if op in (">", ">>", ">|"):
            fds[fd or "1"] = (fd or "1", op, tgt, at)
        elif op in ("&>", "&>>"):
            fds["1"] = ("1", ">" if op == "&>" else ">>", tgt, at)
            fds["2"] = ("2", ">" if op == "&>" else ">>", tgt, at)
        elif op == ">&" and tgt is not None and tgt.isdigit():
            src = fds.get(tgt)
            k = fd or "1"
            fds[k] = (k, src[1], src[2], at) if src is not None else (k, ">&", tgt, at)
        else:
            return
        self.exec_fds = fds

    def _note_redirect(self, fd: str | None, op: str, tgt: str | None, at: str, server: int | None) -> None:
        if tgt is not None and op in (">", ">>", "&>", "&>>", ">|") and tgt not in ("/dev/null",):
            self.log_writes.append((tgt, op, at))

    def dispatch(
        self,
        argv: list[ExpWord],
        prefix_env: dict[str, tuple[str | None, str, str, str | None]],
        redirs: list[tuple[str | None, str, str | None, str, L.RedirTok]],
        at: str,
        start: int,
        node: Any,
        vanished: list[Vanished],
    ) -> int | None:
        name = argv[0].text
        if name is None:
            # a command word that cannot be known: maybe `$PYTHON -m sglang.launch_server`
            texts = [w.text if w.text is not None else "" for w in argv]
            det = detect_after_unknown(texts)
            if det is not None:
                self.record_server(argv, prefix_env, redirs, at, start, vanished, det)
                return None
            self.commands.append(
                PredictedCommand(
                    at,
                    [w.text for w in argv],
                    self.spec[-1] if self.spec else None,
                    tuple(vanished),
                    self._command_path(prefix_env),
                    self.cwd != self.start_cwd,
                    self.cwd,
                    self.bg_mark,
                )
            )
            self.emit("unknown_command", at, reason=argv[0].reason, argv0=argv[0].expansion)
            return None
        self.commands.append(
            PredictedCommand(
                at,
                [w.text for w in argv],
                self.spec[-1] if self.spec else None,
                tuple(vanished),
                self._command_path(prefix_env),
                self.cwd != self.start_cwd,
                self.cwd,
                self.bg_mark,
            )
        )
        args = argv[1:]
        if name.startswith("-") and not prefix_env:
            self.emit(
                "flag_as_command",
                at,
                word=to_str(name),
                line=self.src.line_col(start)[0],
                words=[to_str(w.text) if w.text is not None else None for w in argv][:12],
            )
            return 127
        for fd, op, tgt, rat, _r in redirs:
            self._note_redirect(fd, op, tgt, rat, None)
        if name == "time" and len(argv) > 1:
            # the `time` keyword: bash runs the rest itself
            rest = argv[2:] if argv[1].text == "-p" else argv[1:]
            van = vanished_in(rest, argv, vanished)
            return self.dispatch(rest, prefix_env, redirs, at, start, node, van) if rest else 0
        fn = self.funcs.get(name)
        if fn is not None and name not in ("exec",):
            return self.call_function(name, fn, args, prefix_env, at)
        handler = getattr(self, "b_" + _BUILTIN_NAMES.get(name, "_none"), None)
        if handler is not None:
            if prefix_env and name not in ("exec", "command", "builtin", "eval", "source", "."):
                pass
            if name in ("eval", "source", ".") and prefix_env:
                return self._with_temp_env(
                    prefix_env, lambda: handler(args, at, argv, prefix_env, redirs, start, vanished)
                )
            result: int | None = handler(args, at, argv, prefix_env, redirs, start, vanished)
            return result
        # an external command
        return self.external(argv, prefix_env, redirs, at, start, vanished)

    def _with_temp_env(
        self, env: dict[str, tuple[str | None, str, str, str | None]], fn: Callable[[], int | None]
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

    def call_function(
        self,
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
            self.positional, self.positional_reason = saved_pos, saved_reason

    # ---------------------------------------------------------------------- externals

    def _command_path(self, prefix_env: dict[str, tuple[str | None, str, str, str | None]]) -> str | None:
        """The PATH a command is looked up on and started with: its prefix assignment, else the exported
        one (the environment a server start records, read the same way)."""
        if self.exec_clear_env:
            return None
        if "PATH" in prefix_env:
            return prefix_env["PATH"][0]
        return self.exported_value("PATH")

    def exported_value(self, name: str) -> str | None:
        """``exported_env().get(name)[0]`` without building the whole environment: each external command
        asks for PATH, and building it for every one was quadratic in a script's variables (issue 18)."""
        found: str | None = None
        present = False
        for scope in self.scopes:
            v = scope.get(name)
            if v is None:
                continue
            if v.exported and v.is_set:
                found, present = (v.scalar if v.known else None), True
            elif present and (not v.exported or not v.is_set):
                found, present = None, False
        return found

    def exported_env(self) -> dict[str, tuple[str | None, str | None, str, str | None]]:
        env: dict[str, tuple[str | None, str | None, str, str | None]] = {}
        for scope in self.scopes:
            for k, v in scope.items():
                if v.exported and v.is_set:
                    env[k] = (v.scalar if v.known else None, v.at, v.expansion or "", v.reason)
                elif k in env and not v.exported:
                    # a local or global that shadows without export: bash still exports the variable if the
                    # outer one was exported? (no: a local is not exported unless declared so)
                    del env[k]
                elif k in env and not v.is_set:
                    del env[k]
        return env

    def external(
        self,
        argv: list[ExpWord],
        prefix_env: dict[str, tuple[str | None, str, str, str | None]],
        redirs: list[tuple[str | None, str, str | None, str, L.RedirTok]],
        at: str,
        start: int,
        vanished: list[Vanished],
    ) -> int | None:
        if any(w.text is not None and w.text.startswith(("-S", "--split-string")) for w in argv):
            seen = {k: v[0] for k, v in self.exported_env().items()}
            seen.update({k: v[0] for k, v in prefix_env.items()})
            argv = expand_env_s(argv, seen.get)  # env -S 'A=1 cmd ...'
        texts = [w.text if w.text is not None else "" for w in argv]
        det = detect_server(texts)
        if det is not None:
            self.record_server(argv, prefix_env, redirs, at, start, vanished, det)
            return None
        name = texts[0]
        base = name.rsplit("/", 1)[-1]
        if self.captures:
            pure = None
            known = all(w.text is not None for w in argv)
            if base in ("dirname", "basename", "readlink", "realpath", "seq") and known:
                pure = self._pure(base, [w.text or "" for w in argv[1:]])
            self._cap_write(pure, [(fd, op) for fd, op, *_r in redirs])
            if pure is not None:
                return 0
        inner = unwrap_command(texts)
        per_task: Mapping[str, str] | None = None
        export = None
        if 0 < inner < len(texts) and texts[inner].rsplit("/", 1)[-1] in ("bash", "sh"):
            if any(t.rsplit("/", 1)[-1] == "srun" for t in texts[:inner]):
                from argtrace.layers.slurm import PER_TASK, srun_export

                per_task = PER_TASK  # srun bash -c '...': each task expands its own SLURM_NODEID
                # srun --export: which of this shell's variables reach each task's shell
                exported = {k: v[0] for k, v in self.exported_env().items()}
                exported.update({k: v[0] for k, v in prefix_env.items()})
                export = srun_export(texts[:inner], exported)
                self._export_ignored(export, exported, at)
            base, argv = "bash", argv[inner:]  # nohup/env/timeout ... bash -c '...'
        if base == "sbatch" and (wrapped := sbatch_job(self, argv, prefix_env, at)) is not None:
            argv, export = wrapped  # sbatch --wrap=STRING: STRING in an `sh` script (layers/slurm.py)
            if not argv:
                return 1  # sbatch refused the job: words after --wrap (SH050)
            base = "sh"
        if base in ("bash", "sh") and len(argv) > 1:
            return self.run_child_shell(argv, prefix_env, at, per_task, export)
        if base == "wait":
            self.waited = True
        if base in _SUCCESS_COMMANDS:
            return 0
        if base == "false":
            return 1
        return None

    def _srun_task_env(
        self, argv: list[ExpWord], det: Detection, env: dict[str, EnvEntry]
    ) -> dict[str, EnvEntry]:
        """The server's environment after ``srun --export`` (``layers/slurm.py``): what reaches each task."""
        from argtrace.layers.slurm import srun_export

        texts = [w.text for w in argv[: det.command_index]]
        values = {k: v[0] for k, v in env.items()}
        export = srun_export(texts, values)
        if export is None:
            return env
        at = argv[det.wrapper_at[det.wrappers.index("srun")]].at
        self._export_ignored(export, values, at)
        return export.apply(env, lambda text: (text, at, f"srun {export.at}", None))

    def _export_ignored(self, export: Export | None, env: Mapping[str, str | None], at: str) -> None:
        """``srun --export=ALL,NAME=value`` where NAME is already exported: the caller's value wins."""
        if export is None:
            return
        for name, text, value in export.ignored(env):
            self.emit("srun_export_ignored", at, name=name, text=text, value=value, export=export.at)

    def record_server(
        self,
        argv: list[ExpWord],
        prefix_env: dict[str, tuple[str | None, str, str, str | None]],
        redirs: list[tuple[str | None, str, str | None, str, L.RedirTok]],
        at: str,
        start: int,
        vanished: list[Vanished],
        det: Detection,
    ) -> None:
        env: dict[str, tuple[str | None, str | None, str, str | None]] = dict(self.exported_env())
        for pk, (v, vat, exp, reason) in prefix_env.items():
            env[pk] = (v, vat, exp, reason)
        if self.exec_clear_env:  # exec -c: bash hands the command an empty environment (its execve's envp)
            env = {}
        # `env` and `sudo` wrappers, in the order written: env -i/-u, sudo's reset, NAME=value words
        texts = [w.text or "" for w in argv]
        env = wrapper_env(argv, det, env, self.cwd, lambda: _passwd())
        if "systemd-run" in det.wrappers:  # the manager substitutes the ExecStart it is handed
            argv, lost = systemd_run_substitution(argv, det, env)
            for item in lost:
                self.emit(
                    "systemd_run_unset",
                    item.at,
                    word=item.word,
                    name=item.name,
                    vanished=item.vanished,
                    flag=item.flag,
                )
        if "srun" in det.wrappers:
            env = self._srun_task_env(argv, det, env)
        if "stdbuf" in det.wrappers:
            _stdbuf_env(texts, env, argv)
        if self.direct_exec and "SHLVL" in env:
            lvl = env["SHLVL"]
            if lvl[0] is not None and lvl[0].lstrip("-").isdigit():
                env["SHLVL"] = (str(int(lvl[0]) - 1), lvl[1], lvl[2], lvl[3])
        line, _ = self.src.line_col(start)
        inherited = [*self.exec_fds.values(), *(r for frame in self.redirect_stack for r in frame)]
        srv = FoundServer(
            detection=det,
            argv=argv,
            env=env,
            at=at,
            line=line,
            cwd=self.cwd,
            backgrounded=self.bg_mark,
            conditional=self.spec[-1] if self.spec else None,
            redirects=[(fd, op, tgt, rat) for fd, op, tgt, rat, _r in redirs],
            inherited_redirects=inherited,
            in_pipeline=self.pipeline_depth > 0,
            vanished=vanished,
            source_label=self.src.label,
            offset=start,
            nohup="nohup" in det.wrappers,
        )
        if self.no_script_arguments:
            srv.from_missing_arguments = self._from_missing_arguments(argv, env, vanished)
        srv.from_unset_variables = self._from_unset_variables(argv, env)
        if self.loops and self._repeats(srv):
            return
        srv.index = len(self.servers)
        self.servers.append(srv)
        if self.bg_mark:
            self.bg_servers.append(srv.index)

    def _from_missing_arguments(
        self,
        argv: list[ExpWord],
        env: Mapping[str, tuple[str | None, str | None, str, str | None]],
        vanished: list[Vanished],
    ) -> frozenset[str]:
        """The locations of the words, vanished words and environment values made from the script's
        arguments (``$1``, ``"$@"``, ``$#``), directly or through the variables they were assigned from, as
        the variables stand now. Called only when the script was given no arguments."""
        made: set[str] = set()
        for word in argv:
            if word.expansion != "literal" and self._reads_arguments(word.expansion):
                made.add(word.at)
        for v in vanished:
            if self._reads_arguments(v.raw):
                made.add(v.at)
        for _value, at, expansion, _reason in env.values():
            if at is not None and expansion and self._reads_arguments(expansion):
                made.add(at)
        return frozenset(made)

    def _from_unset_variables(
        self, argv: list[ExpWord], env: Mapping[str, tuple[str | None, str | None, str, str | None]]
    ) -> tuple[FromUnset, ...]:
        """The server words and environment values (by location) that a plain ``$NAME``/``${NAME}`` of a
        variable not set here went into, directly or through the variables they were assigned from, with
        those names: the word
        ``{"num_speculative_tokens":${SPEC_TOKENS}}`` is another value when the caller sets SPEC_TOKENS.
        Read from the word's parts (what single quotes keep literal is no expansion); an expansion with an
        operator (``${N:-8}``) decides its own value and is left out."""
        out: list[FromUnset] = []
        for i, word in enumerate(argv):
            if word.expansion == "literal" or any(f.at == word.at for f in out):
                continue
            names = tuple(dict.fromkeys(self._unset_in(word.expansion, assignment=False)))
            if not names:
                continue
            flag = argv[i - 1] if i > 0 else None
            if flag is not None and flag.text and flag.text.startswith("-") and "=" not in flag.text:
                value = to_str(word.text) if word.text is not None else None
                out.append(FromUnset(word.at, names, flag.at, value))
            else:
                out.append(FromUnset(word.at, names))
        for _value, at, expansion, _reason in env.values():  # CUDA_VISIBLE_DEVICES=$GPU_IDS, GPU_IDS unset
            if at is None or not expansion or expansion in ("environment", "bash"):
                continue
            names = tuple(dict.fromkeys(self._unset_in(expansion, assignment=True)))
            if names and not any(f.at == at for f in out):
                out.append(FromUnset(at, names))
        return tuple(out)

    def _unset_in(self, text: str, assignment: bool, seen: frozenset[str] = frozenset()) -> list[str]:
        if "$" not in text:
            return []  # no parameter to read (every L.Param starts at a `$`): the server's 3,400 exports
        try:
            parts = L.parse_word(from_str(text), assignment=assignment)
        except (ValueError, IndexError):  # a word the evaluator took but this reading does not: nothing said
            return []
        names: list[str] = []
        for part in parts:
            if not isinstance(part, L.Param):
                continue
            name = part.name
            if part.op is not None or part.length or part.indirect or part.index is not None:
                continue
            if not (name[:1].isalpha() or name[:1] == "_") or name in seen or len(seen) > 16:
                continue
            state = self.get_param(name)[0]
            if state == "unset":
                names.append(name)
                continue
            var = self.lookup(name)
            if state == "set" and var is not None and var.expansion not in (None, "environment", "bash"):
                names += self._unset_in(var.expansion or "", True, seen | {name})
        return names

    def _reads_arguments(self, text: str, seen: frozenset[str] = frozenset()) -> bool:
        for match in _PARAMETER.finditer(text):
            name = match.group(1)
            if name in ("@", "*", "#") or (name.isdigit() and name != "0"):
                return True
            if name in seen or len(seen) > 16:
                continue
            var = self.lookup(name)
            if var is not None and var.expansion and var.expansion not in ("environment", "bash"):
                if self._reads_arguments(var.expansion, seen | {name}):
                    return True
        return False

    def _repeats(self, srv: FoundServer) -> bool:
        """Inside a loop: True when ``srv`` is a start already recorded by this loop (the same command with
        the same words, environment and redirections), which is then marked repeated instead of added
        again; also when this command already started MAX_LOOP_SERVERS different servers in the loop."""
        inner = self.loops[-1]
        same_place = [
            s
            for s in self.servers[self.loops[0].first_server :]
            if s.offset == srv.offset and s.source_label == srv.source_label and s.at == srv.at
        ]
        key = _server_key(srv)
        for s in same_place:
            if _server_key(s) == key:
                s.loop = s.loop or inner.at
                return True
        if len(same_place) >= MAX_LOOP_SERVERS:
            same_place[-1].loop = same_place[-1].loop or inner.at
            self.emit("loop_servers", srv.at, limit=MAX_LOOP_SERVERS)
            for frame in self.loops:
                frame.stop = frame.unbounded = True  # what is left of these loops would fold the same way
            return True
        return False

    def _caller_env_replaced(self, child: Any, prefix_env: Any, label: str, at: str) -> None:
        """SH042: a variable the caller gave the script (``CUDA_VISIBLE_DEVICES=2,3 bash launch.sh``) that
        the script assigns again for its servers without reading it: the caller's value never arrives."""
        given = _given_to_child(self, prefix_env)
        found: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (name, where assigned) -> (value, server)
        for server in child.servers:
            for name, (value, _given_at) in given.items():
                got = server.env.get(name)
                if (
                    got is None
                    or got[0] is None
                    or got[0] == value
                    or not (got[1] or "").startswith(f"{label}:")
                ):
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

    def run_child_shell(
        self,
        argv: list[ExpWord],
        prefix_env: dict[str, tuple[str | None, str, str, str | None]],
        at: str,
        unknown_env: Mapping[str, str] | None = None,
        export: Export | None = None,
    ) -> int | None:
        """``bash -c 'string'`` / ``bash script.sh``: a child that sees only exported variables.

        ``unknown_env``: variables the child starts with whose values are not known here (under ``srun``,
        each task's own SLURM_NODEID...): they replace what this shell exported. ``export``: ``srun
        --export``, which of them reach the child (``layers/slurm.py``)."""
        from argtrace.layers.shell.invocation import shell_invocation

        texts = [w.text for w in argv]
        i, shell_c = shell_invocation(texts)
        if i >= len(texts) or texts[i] is None:
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
        if shell_c:
            code = texts[i] or ""
            arg0 = texts[i + 1] if i + 1 < len(texts) else "bash"
            rest = texts[i + 2 :]
            src = Source(self.src.label, _prepare(code), None, fixed_at=argv[i].at)
        else:
            path = self.resolve_path(texts[i] or "")
            if (
                path is None
                or not hostfs.isfile(path)
                or path in self.source_stack
                or len(self.source_stack) > 8
            ):
                return None
            try:
                code = hostfs.read(path, 4 * 1024 * 1024).decode("latin-1")
            except OSError:
                return None
            arg0 = texts[i]
            rest = texts[i + 1 :]
            src = Source(texts[i] or path, _prepare(code), path)
        if any(r is None for r in rest):
            return None
        # exported with a value not known here: the child has them, set (layers/shell/childenv.py)
        unknown_env = {**unknown_exports(self.exported_env(), prefix_env, export), **(unknown_env or {})}
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
        for s in child.servers:
            s.index = len(self.servers)
            self.servers.append(s)
        self.events.extend(child.events)
        self.commands.extend(child.commands)
        return st


def _given_to_child(
    evaluator: Any, prefix_env: Mapping[str, tuple[str | None, str | None, str, str | None]]
) -> dict[str, tuple[str, str]]:
    """The variables the caller gives a child script on purpose, with where: ``NAME=v bash script.sh`` and
    what this shell exported itself (not what it inherited from its own environment)."""
    given = {k: (v, at) for k, (v, at, _e, _r) in prefix_env.items() if v is not None and at}
    for k, (v, at, expansion, _r) in evaluator.exported_env().items():
        if v is not None and at and expansion not in ("environment", "bash"):
            given.setdefault(k, (v, at))
    return given


_BUILTIN_NAMES = {
    ":": "true",
    "true": "true",
    "false": "false",
    "test": "test",
    "[": "test",
    "export": "export",
    "declare": "declare",
    "typeset": "declare",
    "local": "declare",
    "readonly": "declare",
    "unset": "unset",
    "shift": "shift",
    "set": "set",
    "cd": "cd",
    "pushd": "pushd",
    "popd": "popd",
    "exit": "exit",
    "return": "return",
    "break": "break",
    "continue": "continue",
    "read": "read",
    "mapfile": "read",
    "readarray": "read",
    "getopts": "getopts",
    "printf": "printf",
    "let": "let",
    "wait": "wait",
    "eval": "eval",
    "source": "source",
    ".": "source",
    "exec": "exec",
    "command": "command",
    "builtin": "command",
    "echo": "echo",
    "pwd": "pwd",
    "trap": "noop",
    "ulimit": "noop",
    "umask": "noop",
    "shopt": "shopt",
    "hash": "noop",
    "type": "unknown",
    "alias": "alias",
    "unalias": "unalias",
    "jobs": "noop",
    "disown": "noop",
    "times": "noop",
    "enable": "noop",
    "complete": "noop",
    "dirs": "noop",
    "suspend": "noop",
    "kill": "unknown",
}

STDBUF_LIB = "/usr/libexec/coreutils/libstdbuf.so"  # Debian/Ubuntu coreutils


def _server_key(s: FoundServer) -> tuple[Any, ...]:
    """What makes two server starts the same start (for folding the iterations of a loop)."""
    return (
        tuple((w.text, w.at) for w in s.argv),
        tuple(sorted((k, v[0]) for k, v in s.env.items())),
        s.cwd,
        s.backgrounded,
        s.conditional,
        tuple(s.redirects),
        tuple(s.inherited_redirects),
    )


def _stdbuf_env(
    texts: list[str], env: dict[str, tuple[str | None, str | None, str, str | None]], argv: list[ExpWord]
) -> None:
    """``stdbuf -oL cmd`` runs cmd with LD_PRELOAD=libstdbuf.so and _STDBUF_O=L (coreutils' mechanism)."""
    i = next((k for k, t in enumerate(texts) if t.rsplit("/", 1)[-1] == "stdbuf"), -1)
    if i < 0:
        return
    from argtrace.frameworks.wrappers import options_of, scan_options

    spec = options_of("stdbuf")
    at = argv[i].at
    if spec is not None:  # getopt_long as stdbuf reads it: -oL, -o L, --output=L, --out L
        for name, mode in scan_options(texts, i + 1, spec).seen:
            if name[0] in "ioe" and mode is not None:
                env[f"_STDBUF_{name[0].upper()}"] = (mode, at, "stdbuf", None)
    old = env.get("LD_PRELOAD")
    value = STDBUF_LIB if not old or old[0] is None else f"{old[0]}:{STDBUF_LIB}"
    env["LD_PRELOAD"] = (value, at, "stdbuf", None)


def detect_after_unknown(texts: list[str]) -> Detection | None:
    """A server behind an unknown command word (``$PYTHON -m sglang...``, ``$LAUNCHER vllm serve``)."""
    if len(texts) > 2 and texts[1] == "-m":
        det = detect_server(["python", *texts[1:]])
        if det is not None:
            return det
    for k in range(1, min(len(texts), 5)):
        det = detect_server(texts[k:])
        if det is not None:
            return dataclasses.replace(
                det,
                server_args_start=det.server_args_start + k,
                command_index=det.command_index + k,
                env_assignments=tuple((i + k, n, v) for i, n, v in det.env_assignments),
                wrapper_at=tuple(i + k for i in det.wrapper_at),
            )
    return None
