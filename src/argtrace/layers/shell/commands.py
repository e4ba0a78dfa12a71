"""Simple commands: assignments before a command and alone, redirections, the dispatch to builtins,
functions and external programs, the environment a program gets, ``bash -c``/``sh -c`` child shells, and the
recording of each server start (``FoundServer``) with its argv, environment, cwd and redirections.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

from argtrace.frameworks.detect import Detection, detect_server, unwrap_with_env
from argtrace.layers.shell import fastpaths as F
from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.core import (
    _CLEAN_SPECIAL,
    _NO_SIDE_EFFECTS,
    _QUIET_BUILTINS,
    _SUCCESS_COMMANDS,
    TEXT_FILTERS,
    ArithError,
    ExpWord,
    PredictedCommand,
    Vanished,
    from_str,
    to_str,
    vanished_in,
)
from argtrace.layers.shell.deferred import Deferred
from argtrace.layers.shell.fastpaths import FastPaths
from argtrace.layers.shell.pythonfile import program_file, run_program
from argtrace.layers.shell.scriptpath import as_bash_file, path_head, runs_shell_script
from argtrace.model_launch import CommandIO

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# the programs that run a compose file themselves (`docker compose`, `podman compose` are found by their word)
_COMPOSE_PROGRAMS = frozenset({"docker-compose", "podman-compose"})
_COMPOSE_ENDINGS = ("compose", "docker", "podman")
_COPY = re.compile(r'(?:[A-Za-z_][A-Za-z0-9_]*=)?"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?')
_ALIAS_NAME = re.compile(r"[^\s/$`=\\'\"<>|&;()]+")


class Commands(FastPaths):
    def run_simple(self, start: int, end: int, node: Any, assigning: bool = True) -> int | None:
        text = self.src.text
        # tree-sitter may leave characters it cannot place (a BOM, stray bytes) out of the command; bash reads
        # them as part of the first word
        while start > 0 and text[start - 1] not in " \t\n;&|()<>`{}":
            start -= 1
        if assigning and not self.aliases:
            plain = F.PLAIN_DECL.fullmatch(text, start, end)
            if plain is not None and (plain.group(1) is None or "export" not in self.funcs):
                return self._run_plain_decl(start, end, node, plain.group(1) is not None)
        if assigning:
            one = F.ONE_ASSIGN.fullmatch(text, start, end)
            if one is not None and "case" not in one.group(1):
                return self._run_one_assignment(start, end, one.group(1))
        if text[start] == "[" and not self.aliases and F.PLAIN_TEST.fullmatch(text, start, end) is not None:
            return self._run_plain_test(start, end, node)
        # the shortcuts above (fastpaths) never leave a remainder: they read the whole span
        status = self._run_simple(start, end, node, assigning)
        rest = self._remainder
        if rest is not None:
            self._remainder = None
            self.last_status = status  # the remainder's `$?` is the first command's status (`[ a = ]; S=$?`)
            status = self._run_range(*rest)
        return status

    def _copied_from_unset(self, name: str) -> str | None:
        """The variable an empty ``name`` was copied from when that one is not set here (``rank_id=$RANK``,
        ``R="${RANK}"``): the caller may set it where the script runs."""
        var = self.lookup(name)
        m = _COPY.fullmatch(var.expansion or "") if var is not None else None
        if m is None:
            return None
        source = self.lookup(m.group(1))
        return m.group(1) if source is None or not source.is_set else None

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

    def _run_simple(self, start: int, end: int, node: Any, assigning: bool = True) -> int | None:
        text = self.src.text
        cond = text.startswith("[[", start)
        try:
            toks = L.tokenize_command(text, start, end, cond=cond)
        except L.LexError as e:
            self.emit("lex_error", self.src.at(start), message=str(e))
            return None
        if toks.stopped_at is not None and text[toks.end : end].strip(" \t\n;&|"):
            # tree-sitter's span goes on after the point where bash ends this command (it can swallow
            # lines after a quirk such as a comment inside backquotes): the rest runs on its own, after the
            # `;` that ended this command (parsed with it, the `;` would be an ERROR node of its own)
            skip = 1 if toks.stopped_at == ";" and not text.startswith(";;", toks.end) else 0
            self._remainder = (toks.end + skip, end)
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
                via = self._copied_from_unset(name) if state == "empty" and name else None
                vanished_all.append(Vanished(len(argv), raw, self.src.at(w.start), state, name, via))
            argv.extend(words)
        redirs = []
        for r in toks.redirs:
            tgt = None
            if r.target is not None and r.op not in ("<<", "<<-"):
                tgt = self.expand_single(r.target)
            redirs.append((r.fd, r.op, tgt, self.src.at(r.start), r))
        if not argv:
            # assignments only: they stay in the shell, and the status is the last command substitution's
            # (bash manual, "Simple Command Expansion"): `X=$(false) || X=5` sets 5
            self.cmdsub_status = None
            self.assignment_refused = False
            for a in assigns:
                self.do_assignment(a)
            for fd, op, tgt, rat, _r in redirs:
                self._note_redirect(fd, op, tgt, rat, None)
            if self.assignment_refused:
                return 1  # `R=2` on a readonly R: bash says so and the command fails
            return self.cmdsub_status[0] if self.cmdsub_status is not None else 0
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
        self.last_holed = None
        value, reason = self.expand_value(vt)
        holed = self.last_holed if value is None and index is None and not append else None
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
        if holed is not None:  # (a value wholly unknown has no holed text: it keeps its own reason)
            var = self.lookup(name)
            if var is not None and not var.known:
                self.holed_values[id(var)] = (var, holed[0], holed[1])

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

    def _compose_env(
        self, argv: list[ExpWord], prefix_env: dict[str, tuple[str | None, str, str, str | None]]
    ) -> dict[str, str | None] | None:
        """The environment ``docker compose``/``docker-compose`` runs with: compose reads its file's
        ``${NAME}`` from it (None for any other command, whose environment nothing reads later)."""
        name = (argv[0].text or "").rsplit("/", 1)[-1]
        if name not in _COMPOSE_PROGRAMS and not (
            name in ("docker", "podman") and any(w.text == "compose" for w in argv[1:4])
        ):
            return None
        env = {to_str(k): (None if v[0] is None else to_str(v[0])) for k, v in self.exported_env().items()}
        env.update({to_str(k): (None if v[0] is None else to_str(v[0])) for k, v in prefix_env.items()})
        return env

    def _command_io(
        self,
        redirs: list[tuple[str | None, str, str | None, str, L.RedirTok]],
        argv: list[ExpWord],
        prefix_env: Mapping[str, tuple[str | None, str, str, str | None]],
    ) -> CommandIO | None:
        """The text a command reads on stdin from the script (the last ``<<``/``<<-``/``<<<`` on fd 0 wins, as
        in bash) and the file its stdout goes to; None when it has no such stdin. For ``cat``/``envsubst``
        with stdout in a file, what it writes there (``output``) when its input is known."""
        stdin: tuple[str | None, int | None] | None = None
        stdout: str | None = None
        append = False
        piped = self.pipe_in
        if piped is not None:
            if any(op in ("<", "<<", "<<-", "<<<", "<>") and fd in (None, "0") for fd, op, *_r in redirs):
                piped = None  # its own redirection replaces the pipe (bash(1), Pipelines)
        name = (argv[0].text or "").rsplit("/", 1)[-1] if argv else ""
        output: str | None = None
        if name in ("cat", "envsubst") and all(w.text is not None for w in argv):
            to_file = [t for fd, op, t, *_r in redirs if op in (">", ">>", ">|") and fd in (None, "1")]
            if to_file:
                args = [to_str(w.text or "") for w in argv[1:]]
                from argtrace.layers.shell.stdin_text import (
                    stdin_filter,  # (stdin_text.py: read on first use)
                )

                output = stdin_filter(self, name, args, redirs, prefix_env)
        if piped is None and output is None and not any(op.startswith("<<") for _fd, op, *_rest in redirs):
            return None  # most redirections write a log: no text from the script on stdin
        if piped is not None:
            stdin = (piped[0], piped[1])
        for fd, op, tgt, _rat, r in redirs:
            if op in ("<<", "<<-") and fd in (None, "0"):
                line = self.src.text.count("\n", 0, r.start) + 2  # the body starts on the next line
                from argtrace.layers.shell.stdin_text import heredoc_text

                stdin = (heredoc_text(self, r), line)
            elif op == "<<<" and fd in (None, "0"):
                # bash ends a here-string with a newline
                stdin = (None if tgt is None else to_str(tgt) + "\n", None)
            elif op in (">", ">>", ">|", "&>", "&>>") and fd in (None, "1"):
                stdout, append = (None if tgt is None else to_str(tgt)), op in (">>", "&>>")
        if stdin is None and output is None:
            return None
        text: str | None = stdin[0] if stdin is not None else None
        first_line: int | None = stdin[1] if stdin is not None else None
        return CommandIO(text, first_line, stdout, append, piped[2] if piped is not None else None, output)

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
        if self.stdin_streams:
            self.stdin_taken(name, redirs, at)
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
        words = [w.text for w in argv]
        self.commands.append(
            PredictedCommand(
                at,
                words,
                self.spec[-1] if self.spec else None,
                tuple(vanished),
                self._command_path(prefix_env),
                self.cwd != self.start_cwd,
                self.cwd,
                self.bg_mark,
                self._command_io(redirs, argv, prefix_env) if redirs or self.pipe_in is not None else None,
                # every command's name is asked: the endswith test spares most of them the rest (issue 18)
                self._compose_env(argv, prefix_env) if name.endswith(_COMPOSE_ENDINGS) else None,
                # what an ssh hop still reads of a word known but for some expansions (transport/ssh.py)
                tuple((i, to_str(w.holed), w.holes) for i, w in enumerate(argv) if w.holed is not None)
                if None in words
                else (),
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

    _with_temp_env = Deferred("argtrace.layers.shell.commands_child_shell")
    call_function = Deferred("argtrace.layers.shell.commands_child_shell")

    # ---------------------------------------------------------------------- externals

    def _command_path(self, prefix_env: dict[str, tuple[str | None, str, str, str | None]]) -> str | None:
        """The PATH a command is looked up on and started with: its prefix assignment, else the exported
        one (the environment a server start records, read the same way)."""
        if self.exec_clear_env:
            return None
        if "PATH" in prefix_env:
            return prefix_env["PATH"][0]
        return self.exported_value("PATH")

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
            from argtrace.layers.shell.wrapenv import expand_env_s

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
            elif base in ("cat", "envsubst") and known:
                # a file is read for a runner's input (a pipe into kubectl, bash, ssh), not for a value in
                # `$(cat port.txt)`: that one is the machine's at run time (PR103's example)
                files = all(frame.get("pipe") for frame in self.captures)
                args = [to_str(w.text or "") for w in argv[1:]]
                from argtrace.layers.shell.stdin_text import stdin_filter

                got = stdin_filter(self, base, args, redirs, prefix_env, read_files=files)
                pure = None if got is None else from_str(got)
            elif base in TEXT_FILTERS and known:
                # `$(echo $CUDA_VISIBLE_DEVICES | tr ',' '\n' | wc -l)`: the script's own text on stdin only
                from argtrace.layers.shell.stdin_text import filter_output

                got = filter_output(self, base, [to_str(w.text or "") for w in argv[1:]], redirs)
                pure = None if got is None else from_str(got)
            self._cap_write(pure, [(fd, op) for fd, op, *_r in redirs])
            if pure is not None:
                return 0
        elif base == "envsubst" and all(w.text is not None for w in argv):
            # not captured (`envsubst < t.yaml > pod.yaml`): read for what it loses (SH054)
            from argtrace.layers.shell.stdin_text import stdin_filter

            stdin_filter(self, base, [to_str(w.text or "") for w in argv[1:]], redirs, prefix_env)
        from argtrace.layers.shell.invocation import option_texts  # (read for the first other command)

        inner, assigned = unwrap_with_env(option_texts(argv, texts))
        per_task: Mapping[str, str] | None = None
        export = None
        # a Python program (`python3 serve.py`, `./serve.py`): its server starts (layers/shell/pythonfile.py)
        head = path_head(self, texts[inner]) if inner < len(texts) else None  # a file run by its path
        if (program := program_file(texts, inner, head)) is not None:
            given = {**prefix_env, **{n: (v, argv[i].at, f"{n}={v}", None) for i, n, v in assigned}}
            if (ran := run_program(self, argv, program, given, at)) is not None:
                return ran
        # a shell script run by its path (`./start.sh`, `nohup ./serve.sh &`): bash runs it as `bash FILE`
        by_path = runs_shell_script(head)
        if 0 < inner < len(texts) and (by_path or texts[inner].rsplit("/", 1)[-1] in ("bash", "sh")):
            if any(t.rsplit("/", 1)[-1] == "srun" for t in texts[:inner]):
                from argtrace.layers.slurm import PER_TASK, srun_export, task_assignments

                per_task = PER_TASK  # srun bash -c '...': each task expands its own SLURM_NODEID
                # srun --export: which of this shell's variables reach each task's shell
                exported = {k: v[0] for k, v in self.exported_env().items()}
                exported.update({k: v[0] for k, v in prefix_env.items()})
                export = task_assignments(srun_export(texts[:inner], exported), texts[:inner], assigned)
                self._export_ignored(export, exported, at)
            # `env X=1 bash ...`: X is in the child's environment, as a prefix assignment is
            prefix_env = {**prefix_env, **{n: (v, argv[i].at, f"{n}={v}", None) for i, n, v in assigned}}
            base, argv = "bash", argv[inner:]  # nohup/env/timeout ... bash -c '...'
        if by_path:
            base, argv = "bash", as_bash_file(argv)
        if base == "sbatch" and (wrapped := self.sbatch_job(argv, prefix_env, at)) is not None:
            argv, export = wrapped  # sbatch --wrap=STRING: STRING in an `sh` script (layers/slurm.py)
            if not argv:
                return 1  # sbatch refused the job: words after --wrap (SH050)
            base = "sh"
        if base in ("bash", "sh") and (len(argv) > 1 or self.pipe_in is not None or redirs):
            return self.run_child_shell(argv, prefix_env, at, per_task, export, redirs)
        if base == "wait":
            self.waited = True
        if base in _SUCCESS_COMMANDS:
            return 0
        if base == "false":
            return 1
        return None

    _caller_env_replaced = Deferred("argtrace.layers.shell.commands_child_shell")
    sbatch_job = Deferred("argtrace.layers.shell.invocation")  # sbatch --wrap=STRING (invocation.py)
    run_child_shell = Deferred("argtrace.layers.shell.commands_child_shell")


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
