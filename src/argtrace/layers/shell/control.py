"""Control flow: the walk over the tree-sitter tree (``run``, ``run_block``, ``run_node``), lists and
pipelines, subshells and background jobs, ``if``, ``case`` (with ``;&`` and ``;;&``), ``for``, ``for ((;;))``,
``while``/``until`` with their iteration limits, fixed points and the folding of server starts repeated
by a loop, and the forks for conditions that are not known statically.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable, Iterable

from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.arith import ArithError
from argtrace.layers.shell.core import (
    MAX_LOOP,
    TEXT_FILTERS,
    ExpWord,
    _Break,
    _Budget,
    _Continue,
    _Exit,
    _Loop,
    _Return,
    from_str,
    to_str,
)
from argtrace.layers.shell.expand import Expander
from argtrace.layers.shell.glob_match import TOO_MUCH_WORK, glob_fullmatch
from argtrace.layers.shell.patterns import _split_patterns
from argtrace.layers.shell.stdin_streams import StdinStream, reads_stdin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the pipeline producers whose output the script itself can give (``Commands.external``, ``builtins``)
_PIPE_PRODUCERS = frozenset({"cat", "echo", "printf", "envsubst", "seq", "basename", "dirname"}) | (
    TEXT_FILTERS
)

# The node types bash runs as one simple command (words, assignments, `[[ ]]`), bare or under redirections.
_SIMPLE = (
    "command",
    "declaration_command",
    "unset_command",
    "variable_assignment",
    "variable_assignments",
    "test_command",
)
# those of them that may be plain assignments, alone or after `export` (fastpaths.PLAIN_DECL)
_ASSIGNING = frozenset({"variable_assignment", "variable_assignments", "declaration_command"})


# what a region of text may assign: `NAME=`, `NAME[k]+=`, `for NAME`, `printf -v NAME`, and the names of a
# `read`/`mapfile` (its words that are names; an option's argument may be taken too, which only loses a value)
_ASSIGNS = re.compile(
    r"(?<![\w$-])([A-Za-z_]\w*)(?:\[[^\]\n]*\])?\+?="
    r"|\bfor\s+([A-Za-z_]\w*)"
    r"|\bprintf\s+-v\s+([A-Za-z_]\w*)"
    r"|\b(?:read|mapfile|readarray)\b([^\n;&|<>]*)"
)
_NAME_WORD = re.compile(r"(?<![\w$-])[A-Za-z_]\w*(?![\w-])")


def _names_assigned_in(text: str) -> set[str]:
    names: set[str] = set()
    for m in _ASSIGNS.finditer(text):
        assigned, loop, printf_v, read_words = m.groups()
        if read_words is not None:
            names.update(_NAME_WORD.findall(read_words))
        else:
            names.add(assigned or loop or printf_v)
    return names


_TYPE = operator.attrgetter("type")  # a node's type, read in C


def lone_clause(node: Any) -> tuple[list[Any], list[Any], int] | None:
    """The one clause of ``if COND; then BODY; fi`` (no ``elif``, no ``else``): what ``run_if``'s general
    reading makes of it (the condition's nodes, the body's, where the condition starts), without its segments
    (issue 18: a big script's 3,000 of them; ``tests/shell/test_large_scripts27.py`` compares the two). The
    keywords are unnamed nodes, as that reading tests; None for any other ``if``."""
    children = node.children
    types = list(map(_TYPE, children))
    if (
        types[:1] != ["if"]
        or types[-1] != "fi"
        or types.count("then") != 1
        or types.count("if") != 1
        or types.count("fi") != 1
        or "elif_clause" in types
        or "else_clause" in types
        or "elif" in types
        or "else" in types
    ):
        return None
    then = types.index("then")
    if then < 2:
        return None  # no condition: the general reading makes no clause
    cond = children[1:then]
    for c in cond:
        if c.is_named:
            return cond, children[then + 1 : -1], c.start_byte
    return cond, children[then + 1 : -1], node.start_byte


class Control(Expander):
    def run(self) -> int | None:
        tree = self.src.tree
        try:
            status = self.run_block(tree.root_node.children)
        except _Exit as e:
            status = e.status
            self.ended_by = (e.reason, status)
        except (_Return, _Break, _Continue):
            status = self.last_status
        except _Budget:
            if self.expanded_bytes > self.max_expanded_bytes:
                self.emit("budget", self.budget_at, steps=self.steps, bytes=self.max_expanded_bytes)
            else:
                self.emit("budget", self.budget_at, steps=self.max_steps)
            status = None
        except RecursionError:
            self.emit("recursion", self.cur_at or None, name="Python's recursion limit")
            status = None
        return status

    def run_block(self, children: Iterable[Any]) -> int | None:
        status: int | None = 0
        items = list(children)
        # each node's type read once (a call into tree-sitter each time; 19,000 nodes in a 1 MB script)
        types = list(map(_TYPE, items))  # without a comprehension's frame
        n = len(items)
        joined = False  # the statement after a `;` tree-sitter supplied: bash reads it as words of the last
        for i, node in enumerate(items):
            if types[i] in ("comment", "heredoc_body", "heredoc_end") or not node.is_named:
                if types[i] == ";" and node.is_missing:
                    joined = True
                continue
            if joined:
                # `[a] X=1`: tree-sitter ended the command at `[a]` and read `X=1` as an assignment;
                # for bash it is one command, `[a]` given the word `X=1`
                joined = False
                self.unreadable(node)
                continue
            bg = False
            j = i + 1
            while j < n and types[j] == "heredoc_body":
                j += 1
            if j < n and types[j] == "&":
                bg = True
            status = self.run_node(node, bg)
            self.last_status = status
            if status and not bg:
                self._errexit(node, status)
        return status

    def _errexit(self, node: Any, status: int) -> None:
        """``set -e``: exit when ``node`` failed where bash's -e applies (bash(1), ``set -e``): a simple
        command, a pipeline (its status: the last command's, or pipefail's), a subshell, ``(( ))``; not in a
        condition, not on the left of ``&&``/``||`` (``cond_depth``), not a command negated with ``!``.
        Compound commands fail through the commands inside them, checked where they run."""
        if "errexit" not in self.options or self.cond_depth != 0 or not _exits_on_failure(node):
            return
        at = self.src.at(node.start_byte)
        inner = self.errexit_at
        if not self.bg_mark and not (
            node.type == "subshell"
            and inner is not None
            and inner[0] is self.src
            and node.start_byte <= inner[1] < node.end_byte
        ):
            # a subshell that -e ended fails with it: one exit, reported where the command failed; in a
            # background job -e ends the job, not the script
            self.emit("errexit", at, status=status, command=self._short(node))
        self.errexit_at = (self.src, node.start_byte)
        raise _Exit(status, f"`set -e`: `{self._short(node)}` fails at {at}")

    def run_condition(self, nodes: Iterable[Any]) -> int | None:
        self.cond_depth += 1
        try:
            return self.run_block(nodes)
        finally:
            self.cond_depth -= 1

    def run_node(self, node: Any, bg: bool = False) -> int | None:
        self.steps += 1  # self.step's count, inline (a call each node costs more than the count)
        if self.steps > self.max_steps:
            self.budget_at = self.src.at(node.start_byte)
            raise _Budget()
        t = node.type
        if t == "ERROR":
            # a region tree-sitter could not parse: run the pieces it recognised; what the region assigns
            # may have been read wrongly or not at all, so those names are unknown from here on
            status = self.run_block(node.children)
            self.unreadable(node)
            return status
        if bg:
            return self.run_background(node)
        if t in _SIMPLE:
            return self.run_simple(node.start_byte, node.end_byte, node, t in _ASSIGNING)
        if t == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is None or body.type in _SIMPLE:
                # a redirection is never plain: no plain-assignment path
                return self.run_simple(node.start_byte, node.end_byte, node, False)
            redirs = self.compound_redirects(node, body)
            if body.type == "pipeline":
                # tree-sitter-bash hangs `a | b > f` on the whole pipeline; bash gives `> f` to the last
                # command only (`vllm serve ... | tee run.log > /proc/1/fd/1`: tee's output, not the server's)
                return self.run_pipeline(body, last_redirects=redirs)
            stream = self._compound_stdin(node, body)
            self.redirect_stack.append(redirs)
            if stream is not None:
                self.stdin_streams.append(stream)
            try:
                return self.run_node(body)
            finally:
                self.redirect_stack.pop()
                if stream is not None:
                    self.stdin_streams.pop()
        if t == "program":
            return self.run_block(node.children)
        if t == "compound_statement":
            if node.child_count and node.children[0].type == "((":
                return self.run_arith_command(node)
            return self.run_block(node.children)
        if t == "subshell":

            def sub() -> int | None:
                self._last_direct(node)
                return self.run_block(node.children)

            return self.in_subshell(sub)
        if t == "list":
            return self.run_list(node)
        if t == "pipeline":
            return self.run_pipeline(node)
        if t == "negated_command":
            st = self.run_condition(node.children)
            return None if st is None else int(st == 0)
        if t == "if_statement":
            return self.run_if(node)
        if t == "case_statement":
            return self.run_case(node)
        if t == "for_statement":
            return self.run_for(node)
        if t == "c_style_for_statement":
            return self.run_c_for(node)
        if t == "while_statement":
            return self.run_while(node)
        if t == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None:
                self.funcs[from_str(self.node_text(name))] = (body, self.src)
            return 0
        if t in ("comment",):
            return self.last_status
        if t in ("arithmetic_expansion",):
            return self.run_arith_command(node)
        # anything else (heredoc bodies, unknown node kinds): look inside for commands
        return self.run_block(node.children)

    def in_subshell(self, fn: Callable[[], int | None]) -> int | None:
        snap = self.snapshot()
        saved_pid, saved_wait = self.pid_kept, self.waited
        # a `break` in `( ... )` ends the subshell, not a loop around it: forks park nothing outside
        saved_floor, self.loop_floor = self.loop_floor, len(self.loops)
        try:
            return fn()
        except _Exit as e:
            return e.status
        except (_Return, _Break, _Continue):
            return self.last_status
        finally:
            self.loop_floor = saved_floor
            self.restore(snap)
            self.pid_kept, self.waited = self.pid_kept or saved_pid, self.waited or saved_wait

    def run_background(self, node: Any) -> int | None:
        self.bg_mark = True
        if self._is_simple(node):
            self.direct = (node.start_byte, node.end_byte)
        try:
            self.in_subshell(lambda: self.run_node(node))
        finally:
            self.bg_mark = False
        return 0

    @staticmethod
    def _is_simple(node: Any) -> bool:
        t = node.type
        if t == "redirected_statement":
            body = node.child_by_field_name("body")
            return body is None or body.type in _SIMPLE
        return t in ("command",)

    def _last_direct(self, node: Any) -> None:
        """Mark the command a subshell would exec directly: its last simple command (or the end of a list)."""
        named = [c for c in node.children if c.is_named and c.type != "comment"]
        if not named:
            return
        last = named[-1]
        while last.type == "list":
            parts = [c for c in last.children if c.is_named and c.type != "comment"]
            if not parts:
                return
            last = parts[-1]
        if self._is_simple(last):
            self.direct = (last.start_byte, last.end_byte)

    def compound_redirects(self, node: Any, body: Any) -> list[tuple[str | None, str, str | None, str]]:
        toks = L.tokenize_command(self.src.text, body.end_byte, node.end_byte)
        out: list[tuple[str | None, str, str | None, str]] = []
        for r in toks.redirs:
            tgt = self.expand_single(r.target) if r.target is not None else None
            out.append((r.fd, r.op, tgt, self.src.at(r.start)))
        return out

    def run_list(self, node: Any) -> int | None:
        named = [c for c in node.children if c.is_named and c.type != "comment"]
        ops = [c.type for c in node.children if not c.is_named]
        if len(named) != 2 or not ops:
            return self.run_block(node.children)
        left, right = named
        op = ops[0]
        self.cond_depth += 1
        mark = len(self.untested_files)
        try:
            st = self.run_node(left)
        finally:
            self.cond_depth -= 1
        present = self._tested_present(mark, self._short(left)) if op == "&&" and st is None else []
        if op == "&&":
            if st == 0:
                return self._run_last(right)
            if st is None:
                return self.fork(
                    [lambda: self._where_present(present, lambda: self.run_node(right)), lambda: None],
                    f"whether `{self._short(left)}` succeeds ({self.src.line_at(left.start_byte)})",
                )
            return st
        if op == "||":
            if st == 0:
                return 0
            if st is None:
                return self.fork(
                    [lambda: self.run_node(right), lambda: 0],
                    f"whether `{self._short(left)}` fails ({self.src.line_at(left.start_byte)})",
                )
            return self._run_last(right)
        return self.run_block(node.children)

    def _run_last(self, node: Any) -> int | None:
        """The command after a list's final ``&&``/``||``: the one place in a list ``set -e`` applies to."""
        status = self.run_node(node)
        if status:
            self.last_status = status
            self._errexit(node, status)
        return status

    def capture_node(self, node: Any) -> str | None:
        """What ``node`` (of the current source) writes to stdout, evaluated as in ``$(...)`` (in a
        subshell); None when not known statically."""
        frame: dict[str, Any] = {"out": [], "ok": True, "spec": len(self.spec)}
        frame["redir"] = len(self.redirect_stack)
        frame["pipe"] = True  # a pipeline's producer: cat/envsubst may read files (``stdin_filter``)
        self.captures.append(frame)
        saved_last = self.last_status
        try:
            self.in_subshell(lambda: self.run_node(node))
        finally:
            self.captures.pop()
            self.last_status = saved_last
        return "".join(frame["out"]) if frame["ok"] else None

    def _compound_stdin(self, node: Any, body: Any) -> StdinStream | None:
        """The here-document or here-string a compound command's `read`s take lines of (``stdin_streams``)."""
        if "<<" not in self.src.text[body.end_byte : node.end_byte]:
            return None
        stdin = [
            r
            for r in L.tokenize_command(self.src.text, body.end_byte, node.end_byte).redirs
            if r.fd in (None, "0")
        ]
        if not stdin or stdin[-1].op not in ("<<", "<<-", "<<<"):
            return None
        last = stdin[-1]
        word = self.expand_single(last.target) if last.op == "<<<" and last.target is not None else None
        from argtrace.layers.shell.stdin_text import here_text

        text = here_text(self, last.op, word, last)
        return StdinStream(text, len(self.spec))

    def stdin_taken(self, name: str | None, redirs: list[Any], at: str) -> None:
        """A simple command runs inside compounds that read a here-document: if it may read the stdin it
        inherits (an unknown name may), what is left of each is no longer known."""
        ops = [r[1] for r in redirs if r[0] in (None, "0")]
        if name is not None and not reads_stdin(to_str(name), ops, bool(self.bg_mark), self.funcs):
            return
        shown = "a command whose name is not known statically" if name is None else f"`{to_str(name)}`"
        for stream in self.stdin_streams:
            if stream.text is not None:
                stream.text = None
                stream.why = f"{shown} at {at} may have read"

    def unreadable(self, node: Any) -> None:
        """An ERROR region of the tree (tree-sitter-bash could not read it, SH055 when bash can): the names
        its text assigns are unknown from here on, each with the region as its reason; a value read from the
        pieces tree-sitter did recognise may be wrong (a pattern cut short matches other values)."""
        first, _ = self.src.line_col(node.start_byte)
        last, _ = self.src.line_col(max(node.end_byte - 1, node.start_byte))
        lines = f"line {first}" if first == last else f"lines {first}-{last}"
        at = self.src.at(node.start_byte)
        self.emit("unreadable", at, lines=lines)
        reason = f"assigned in {self.src.label} {lines}, which argtrace could not read as bash does"
        for name in sorted(_names_assigned_in(to_str(self.node_text(node)))):
            self.set_var(name, None, at=at, expansion=None, reason=reason)

    def _short(self, node: Any) -> str:
        text = to_str(self.node_text(node)).replace("\n", " ")
        return text if len(text) <= 60 else text[:57] + "..."

    def run_pipeline(
        self, node: Any, last_redirects: list[tuple[str | None, str, str | None, str]] | None = None
    ) -> int | None:
        parts = [c for c in node.children if c.is_named and c.type != "comment"]
        status: int | None = None
        statuses: list[int | None] = []
        self.pipeline_depth += 1
        saved_in = self.pipe_in
        try:
            for i, p in enumerate(parts):
                last = last_redirects is not None and i == len(parts) - 1
                if last:
                    self.redirect_stack.append(last_redirects or [])
                try:
                    if i < len(parts) - 1 and (out := self.pipe_output(p)) is not None:
                        # a producer whose output the script itself gives (cat <<EOF, echo, envsubst)
                        status, self.pipe_in = 0, out
                        statuses.append(status)
                        continue
                    status = self.in_subshell(functools.partial(self.run_node, p))
                    statuses.append(status)
                    self.pipe_in = (None, None, self._producer(p)) if i < len(parts) - 1 else saved_in
                finally:
                    if last:
                        self.redirect_stack.pop()
        finally:
            self.pipeline_depth -= 1
            self.pipe_in = saved_in
        if "pipefail" in self.options:
            return _pipefail_status(statuses)
        return status

    def pipe_output(self, node: Any) -> tuple[str | None, int | None, str] | None:
        """What the pipeline part ``node`` writes to the next one when the script itself says it (a simple
        ``cat``/``echo``/``printf``/``envsubst``, run as in ``$(...)``): (text or None, the script line of
        the here-document it copies, the part as written); None for any other part (run as usual)."""
        if not self._is_simple(node):
            return None
        body = node.child_by_field_name("body") if node.type == "redirected_statement" else node
        name = body.child_by_field_name("name") if body is not None else None
        if name is None or to_str(self.node_text(name)).rsplit("/", 1)[-1] not in _PIPE_PRODUCERS:
            return None
        line: int | None = None
        for r in L.tokenize_command(self.src.text, node.start_byte, node.end_byte).redirs:
            if r.op in ("<<", "<<-") and r.fd in (None, "0") and r.heredoc is not None:
                line = self.src.text.count("\n", 0, r.start) + 2
        text = self.capture_node(node)
        return None if text is None else to_str(text), line, self._producer(node)

    def _producer(self, node: Any) -> str:
        """A pipeline part as the report names it: its first words, up to one with `=`, a quote or an
        expansion (``kubectl create secret generic k ...``: an option's value may be a secret)."""
        words = to_str(self.node_text(node)).replace("\\\n", " ").split()
        shown: list[str] = []
        for w in words:
            if len(shown) == 4 or (any(c in w for c in "=$`'\"") and shown and not w.startswith("<<")):
                return " ".join(shown) + " ..."
            shown.append(w)
        return " ".join(shown)

    def run_arith_command(self, node: Any) -> int | None:
        text = self.node_text(node)
        inner = text.strip()
        if inner.startswith("(("):
            inner = inner[2:]
        elif inner.startswith("$(("):
            inner = inner[3:]
        if inner.endswith("))"):
            inner = inner[:-2]
        self.cur_at = self.src.at(node.start_byte)
        expanded = self.expand_arith_text(inner)
        if expanded is None:
            self.mark_arith_unknown(inner)
            return None
        try:
            v = self.arith(expanded)
        except ArithError:
            self.mark_arith_unknown(inner)
            return None
        return 0 if v != 0 else 1

    # ---------------------------------------------------------------------- if / case / loops

    def _segments(self, node: Any, keywords: set[str]) -> list[tuple[str, list[Any]]]:
        segs: list[tuple[str, list[Any]]] = []
        cur: list[Any] = []
        kw = ""
        for c in node.children:
            if not c.is_named and c.type in keywords:
                segs.append((kw, cur))
                kw, cur = c.type, []
            else:
                cur.append(c)
        segs.append((kw, cur))
        return segs

    def run_if(self, node: Any) -> int | None:
        lone = lone_clause(node)
        if lone is not None:
            return self._run_clauses([lone], 0)
        clauses: list[tuple[list[Any] | None, list[Any], int]] = []
        cond: list[Any] | None = None
        for kw, items in self._segments(node, {"if", "then", "fi", "elif", "else"}):
            if kw == "if":
                cond = items
            elif kw == "then":
                body: list[Any] = []
                for it in items:
                    if it.type == "elif_clause":
                        self._flush_clause(clauses, cond, body, node)
                        ec = self._segments(it, {"elif", "then"})
                        cond = dict(ec).get("elif", [])
                        body = dict(ec).get("then", [])
                    elif it.type == "else_clause":
                        self._flush_clause(clauses, cond, body, node)
                        cond = None
                        body = [c for c in it.children if not (not c.is_named and c.type == "else")]
                        clauses.append((None, body, it.start_byte))
                        body = []
                        cond = []
                    else:
                        body.append(it)
                if cond:
                    self._flush_clause(clauses, cond, body, node)
        return self._run_clauses(clauses, 0)

    def _flush_clause(
        self,
        clauses: list[tuple[list[Any] | None, list[Any], int]],
        cond: list[Any] | None,
        body: list[Any],
        node: Any,
    ) -> None:
        if cond is not None:
            start = next((c.start_byte for c in cond if c.is_named), node.start_byte)
            clauses.append((cond, body, start))

    def _run_clauses(self, clauses: list[tuple[list[Any] | None, list[Any], int]], idx: int) -> int | None:
        if idx >= len(clauses):
            return 0
        cond, body, start = clauses[idx]
        if cond is None:
            return self.run_block(body)
        mark = len(self.untested_files)
        st = self.run_condition(cond)
        if st == 0:
            return self.run_block(body)
        if st is not None:
            return self._run_clauses(clauses, idx + 1)
        text = " ".join(self._short(c) for c in cond if c.is_named)
        reason = f"the condition `{text}` ({self.src.line_at(start)}), which is not known statically"
        present = self._tested_present(mark, text)
        return self.fork(
            [
                lambda: self._where_present(present, lambda: self.run_block(body)),
                lambda: self._run_clauses(clauses, idx + 1),
            ],
            reason,
        )

    def _tested_present(self, mark: int, text: str) -> list[str]:
        """The paths the condition just read (``text``, its file tests from ``mark`` on) says exist when it
        holds: those of a condition without a negation or an alternative (`!`, `||`, `-o`), whose every part
        holds on its true branch; none for any other."""
        asked = self.untested_files[mark:]
        del self.untested_files[mark:]
        if re.search(r"(?:^|\s)(?:!|-o)(?:\s|$)|\|\|", text):
            return []
        return asked

    def _where_present(self, paths: list[str], body: Callable[[], int | None]) -> int | None:
        """``body`` read where ``paths`` exist (the branch a file test of them guards)."""
        added = [p for p in paths if p not in self.present_by_test]
        self.present_by_test.update(added)
        try:
            return body()
        finally:
            self.present_by_test.difference_update(added)

    def run_case(self, node: Any) -> int | None:
        value_node = node.child_by_field_name("value")
        if value_node is None:
            return 0
        self.cur_at = self.src.at(value_node.start_byte)
        word = self.expand_single(L.WordTok(self.node_text(value_node), value_node.start_byte))
        parsed: list[tuple[list[str | None], list[Any], str]] = []
        from argtrace.layers.shell.pattern_views import after_blanks_and_comments  # (imported at a `case`)

        # where the next item's patterns may begin: after `in` (or the previous item), its blanks and comments
        # (tree-sitter leaves a leading `\ ` of `\ \))` out of the item)
        prev_end = value_node.end_byte
        for it in node.children:
            if it.type != "case_item":
                if it.type == "in":
                    prev_end = it.end_byte
                continue
            pats: list[str | None] = []
            body: list[Any] = []
            term = ";;"
            seen_paren = False
            pat_start = min(after_blanks_and_comments(self.src.text, prev_end, it.start_byte), it.start_byte)
            prev_end = it.end_byte
            for i, c in enumerate(it.children):
                fname = it.field_name_for_child(i)
                if not seen_paren:
                    if not c.is_named and c.type == ")":
                        seen_paren = True
                        # the patterns: the source text up to `)`, split on top-level `|`
                        for raw, off in _split_patterns(self.src.text, pat_start, c.start_byte):
                            # a pattern over lines is tree-sitter's misreading (`${X}#?)` read as a
                            # comment): its match is not known
                            pats.append(None if "\n" in raw else self.pattern_regex(raw, off))
                    continue
                if fname == "termination" or (not c.is_named and c.type in (";;", ";&", ";;&")):
                    term = c.type
                    continue
                body.append(c)
            parsed.append((pats, body, term))
        return self._run_case_from(word, parsed, 0, value_node)

    def _run_case_from(
        self,
        word: str | None,
        items: list[tuple[list[str | None], list[Any], str]],
        idx: int,
        value_node: Any,
    ) -> int | None:
        for k in range(idx, len(items)):
            pats, _body, _term = items[k]
            match: bool | None = False
            ran_out = False
            for p in pats:
                if p is None or word is None:
                    match = None
                    continue
                found = glob_fullmatch(p, word)  # no backtracking; None past a bound of work
                if found is None:
                    match, ran_out = None, True
                    continue
                if found:
                    match = True
                    break
            if match is True:
                return self._run_case_body(word, items, k, value_node)
            if match is None:
                reason = f"`case {self._short(value_node)}` ({self.src.line_at(value_node.start_byte)}), " + (
                    f"where {TOO_MUCH_WORK}" if ran_out else "whose value is not known statically"
                )
                return self.fork(
                    [
                        functools.partial(self._run_case_body, word, items, k, value_node),
                        functools.partial(self._run_case_from, word, items, k + 1, value_node),
                    ],
                    reason,
                )
        return 0

    def _run_case_body(
        self, word: str | None, items: list[tuple[list[str | None], list[Any], str]], k: int, value_node: Any
    ) -> int | None:
        st = self.run_block(items[k][1])
        term = items[k][2]
        while term == ";&" and k + 1 < len(items):
            k += 1
            st = self.run_block(items[k][1])
            term = items[k][2]
        if term == ";;&":
            return self._run_case_from(word, items, k + 1, value_node)
        return st

    def _enter_loop(self, node: Any) -> _Loop:
        frame = _Loop(self.src.line_at(node.start_byte), len(self.servers))
        self.loops.append(frame)
        return frame

    def _leave_loop(self, frame: _Loop) -> None:
        """Close a loop: when its iterations are unknown or endless, each server start inside it repeats."""
        self.loops.remove(frame)
        if frame.unbounded:
            for srv in self.servers[frame.first_server :]:
                if srv.loop is None:
                    srv.loop = frame.at

    def _in_loop(self, node: Any, run: Callable[[Any, _Loop], int | None]) -> int | None:
        frame = self._enter_loop(node)
        try:
            try:
                status = run(node, frame)
            except _Exit:
                if not any(kind == "break" for kind, _s, _r in frame.diverted):
                    raise
                # the paths still in the loop exit; those that left it by `break` go on after it
                parked = [snap for kind, snap, _r in frame.diverted if kind == "break"]
                reason = next(r for kind, _s, r in frame.diverted if kind == "break")
                frame.diverted.clear()
                self._merge(parked, reason)
                del self.spec[min(frame.marks or [len(self.spec)]) :]
                self.spec.append(reason)
                return None
            if frame.diverted:
                self.settle_diverted(frame, ("break", "continue"))
                status = None
            return status
        finally:
            self._leave_loop(frame)

    def _iteration(self, body: Any) -> int | None:
        """One run of a loop's body. ``break N`` and ``continue N`` aimed further out go on with N - 1; for
        this loop they come through as they are. The paths a fork sent to the next iteration by
        ``continue`` join the others at the end of the body."""
        frame = self.loops[-1] if self.loops else None
        try:
            status = self.run_node(body)
        except _Break as b:
            if b.n > 1:
                raise _Break(b.n - 1) from None
            raise
        except _Continue as c:
            if c.n > 1:
                raise _Continue(c.n - 1) from None
            if frame is not None:
                self.settle_diverted(frame, ("continue",))
            raise
        except _Exit:
            if frame is None or not any(kind == "continue" for kind, _s, _r in frame.diverted):
                raise
            # this path exits; the ones sent on by `continue` make the next iteration
            parked = [(snap, r) for kind, snap, r in frame.diverted if kind == "continue"]
            frame.diverted = [d for d in frame.diverted if d[0] != "continue"]
            self._merge([snap for snap, _r in parked], parked[0][1])
            return None
        if frame is not None and any(kind == "continue" for kind, _s, _r in frame.diverted):
            self.settle_diverted(frame, ("continue",))
            return None
        return status

    def _state_key(self) -> tuple[Any, ...]:
        """What the next loop iteration depends on: the same key twice in a row means the loop is in a
        fixed point (``while true; do server; sleep 5; done``) and every further iteration repeats."""
        return (self.snapshot(), self.last_status, self.pid_kept, self.waited)

    def run_for(self, node: Any) -> int | None:
        return self._in_loop(node, self._run_for)

    def _run_for(self, node: Any, frame: _Loop) -> int | None:
        var_node = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        if var_node is None or body is None:
            return 0
        name = from_str(self.node_text(var_node))
        in_tok = next((c for c in node.children if not c.is_named and c.type == "in"), None)
        at = self.src.at(node.start_byte)
        self.cur_at = at
        words: list[ExpWord] | None
        if in_tok is None:
            words = self._positional_words(at)
        else:
            toks = L.tokenize_command(self.src.text, in_tok.end_byte, body.start_byte)
            words = []
            for w in toks.words:
                words.extend(self.expand_word(w))
        if words is None or any(w.text is None for w in words):
            reason = f"the list of `for {name}` ({self.src.line_at(node.start_byte)}) is not known statically"

            def once() -> int | None:
                self.set_var(name, None, at=at, expansion=f"for {name}", reason=reason)
                return self._loop_body(body)

            frame.unbounded = True
            return self.fork([once, lambda: 0], reason)
        status: int | None = 0
        for ew in words[:MAX_LOOP]:
            if frame.stop:
                return None
            self.set_var(name, ew.text, at=ew.at, expansion=f"for {name} in ...")
            try:
                status = self._iteration(body)
            except _Break:
                break
            except _Continue:
                continue
        return status

    def _positional_words(self, at: str) -> list[ExpWord] | None:
        if self.positional is None:
            return None
        return [ExpWord(p, at, '"$@"') for p in self.positional]

    def _loop_body(self, body: Any) -> int | None:
        try:
            return self.run_node(body)
        except (_Break, _Continue):
            return None

    def run_c_for(self, node: Any) -> int | None:
        return self._in_loop(node, self._run_c_for)

    def _run_c_for(self, node: Any, frame: _Loop) -> int | None:
        body = node.child_by_field_name("body")
        open_tok = next((c for c in node.children if c.type == "(("), None)
        close_tok = next((c for c in node.children if c.type == "))"), None)
        if open_tok is None or close_tok is None or body is None:
            return 0
        inner = self.src.text[open_tok.end_byte : close_tok.start_byte]
        parts = inner.split(";")
        if len(parts) != 3:
            return 0
        init, cond, upd = parts
        at = self.src.at(node.start_byte)
        self.cur_at = at
        reason = f"the loop `for (({inner}))` ({self.src.line_at(node.start_byte)}) is not known statically"
        try:
            if init.strip():
                e = self.expand_arith_text(init)
                if e is None:
                    raise ArithError("unknown")
                self.arith(e)
            n = 0
            status: int | None = 0
            previous: tuple[Any, ...] | None = None
            while n < MAX_LOOP:
                n += 1
                key = self._state_key()
                if key == previous or frame.stop:
                    frame.unbounded = True  # `for ((;;))`: the same iteration forever
                    return None
                previous = key
                if cond.strip():
                    e = self.expand_arith_text(cond)
                    if e is None:
                        raise ArithError("unknown")
                    if not self.arith(e):
                        break
                try:
                    status = self._iteration(body)
                except _Break:
                    break
                except _Continue:
                    pass
                if upd.strip():
                    e = self.expand_arith_text(upd)
                    if e is None:
                        raise ArithError("unknown")
                    self.arith(e)
            return status
        except ArithError:
            self.mark_arith_unknown(inner)
            frame.unbounded = True
            return self.fork([lambda: self._loop_body(body), lambda: 0], reason)

    def run_while(self, node: Any) -> int | None:
        return self._in_loop(node, self._run_while)

    def _run_while(self, node: Any, frame: _Loop) -> int | None:
        body = node.child_by_field_name("body")
        kw = node.children[0].type if node.child_count else "while"
        cond = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "condition"]
        if body is None:
            return 0
        status: int | None = 0
        start = cond[0].start_byte if cond else node.start_byte
        reason = (
            f"the condition of `{kw} {' '.join(self._short(c) for c in cond if c.is_named)}` "
            f"({self.src.line_at(start)}), which is not known statically"
        )
        previous: tuple[Any, ...] | None = None
        for _ in range(MAX_LOOP):
            key = self._state_key()
            if key == previous or frame.stop:
                # a restart loop: the condition and the body see what they saw last time, forever
                frame.unbounded = True
                return None
            previous = key
            st = self.run_condition(cond)
            if st is None:
                frame.unbounded = True
                self.fork([lambda: self._loop_body(body), lambda: 0], reason)
                # after an unknown number of iterations, what the body assigns is unknown
                return None
            if (st == 0) != (kw == "while"):
                return status
            try:
                status = self._iteration(body)
            except _Break:
                return 0
            except _Continue:
                pass
        frame.unbounded = True
        self.emit("loop_limit", self.src.at(node.start_byte), limit=MAX_LOOP)
        return None


def _pipefail_status(statuses: list[int | None]) -> int | None:
    """A pipeline's status under ``set -o pipefail``: its last command's to exit non-zero, or zero when
    every one succeeds (bash(1), Pipelines); None when a command's status that could decide it is unknown."""
    for st in reversed(statuses):
        if st is None:
            return None
        if st != 0:
            return st
    return 0


def _exits_on_failure(node: Any) -> bool:
    """Whether ``set -e`` exits when ``node`` returns non-zero: a simple command (assignments and
    declarations too: ``X=$(false)``), ``[[ ]]``, a pipeline, a subshell or ``(( ))``, redirected or not."""
    if node.type == "redirected_statement":
        body = node.child_by_field_name("body")
        if body is None:
            return True
        node = body
    t = node.type
    if t in _SIMPLE or t in ("pipeline", "subshell"):
        return True
    return t == "compound_statement" and node.child_count > 0 and node.children[0].type == "(("
