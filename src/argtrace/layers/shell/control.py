"""Control flow: the walk over the tree-sitter tree (``run``, ``run_block``, ``run_node``), lists and
pipelines, subshells and background jobs, ``if``, ``case`` (with ``;&`` and ``;;&``), ``for``, ``for ((;;))``,
``while``/``until`` with their iteration limits, fixed points and the folding of server starts repeated
by a loop, and the forks for conditions that are not known statically.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable

from argtrace.layers.shell.core import (
    TEXT_FILTERS,
    _Break,
    _Budget,
    _Continue,
    _Exit,
    _Return,
    from_str,
    to_str,
)
from argtrace.layers.shell.deferred import Deferred
from argtrace.layers.shell.expand import Expander

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

    run_condition = Deferred("argtrace.layers.shell.control_branches")

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

    _last_direct = Deferred("argtrace.layers.shell.control_branches")
    compound_redirects = Deferred("argtrace.layers.shell.control_branches")
    run_list = Deferred("argtrace.layers.shell.control_branches")
    _run_last = Deferred("argtrace.layers.shell.control_branches")
    capture_node = Deferred("argtrace.layers.shell.control_branches")
    _compound_stdin = Deferred("argtrace.layers.shell.control_branches")
    stdin_taken = Deferred("argtrace.layers.shell.control_branches")

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

    run_pipeline = Deferred("argtrace.layers.shell.control_branches")
    pipe_output = Deferred("argtrace.layers.shell.control_branches")
    _producer = Deferred("argtrace.layers.shell.control_branches")
    run_arith_command = Deferred("argtrace.layers.shell.control_branches")

    # ---------------------------------------------------------------------- if / case / loops

    _segments = Deferred("argtrace.layers.shell.control_branches")
    run_if = Deferred("argtrace.layers.shell.control_branches")
    _flush_clause = Deferred("argtrace.layers.shell.control_branches")
    _run_clauses = Deferred("argtrace.layers.shell.control_branches")
    run_case = Deferred("argtrace.layers.shell.control_branches")
    _run_case_from = Deferred("argtrace.layers.shell.control_branches")
    _run_case_body = Deferred("argtrace.layers.shell.control_branches")
    _enter_loop = Deferred("argtrace.layers.shell.control_loops")
    _leave_loop = Deferred("argtrace.layers.shell.control_loops")
    _in_loop = Deferred("argtrace.layers.shell.control_loops")
    _iteration = Deferred("argtrace.layers.shell.control_loops")
    _state_key = Deferred("argtrace.layers.shell.control_loops")
    run_for = Deferred("argtrace.layers.shell.control_loops")
    _run_for = Deferred("argtrace.layers.shell.control_loops")
    _positional_words = Deferred("argtrace.layers.shell.control_loops")
    _loop_body = Deferred("argtrace.layers.shell.control_loops")
    run_c_for = Deferred("argtrace.layers.shell.control_loops")
    _run_c_for = Deferred("argtrace.layers.shell.control_loops")
    run_while = Deferred("argtrace.layers.shell.control_loops")
    _run_while = Deferred("argtrace.layers.shell.control_loops")


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
