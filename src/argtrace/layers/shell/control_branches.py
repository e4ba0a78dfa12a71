"""The interpreter's compound commands other than loops (code35: loaded on a script's first one): lists
(``&&``, ``||``), pipelines and what their producers give the next command, ``(( ))``, ``if`` and ``case``
(with ``;&`` and ``;;&``), conditions, and a compound command's redirections and standard input. Methods
of :class:`~argtrace.layers.shell.control.Control` (see ``deferred.py``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from argtrace.layers.shell import control
from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.control import _PIPE_PRODUCERS, _pipefail_status
from argtrace.layers.shell.core import ArithError, to_str
from argtrace.layers.shell.glob_match import TOO_MUCH_WORK, glob_fullmatch
from argtrace.layers.shell.patterns import _split_patterns
from argtrace.layers.shell.stdin_streams import StdinStream, reads_stdin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell.control import Control


def run_condition(self: Control, nodes: Iterable[Any]) -> int | None:
    self.cond_depth += 1
    try:
        return self.run_block(nodes)
    finally:
        self.cond_depth -= 1


def _last_direct(self: Control, node: Any) -> None:
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


def compound_redirects(self: Control, node: Any, body: Any) -> list[tuple[str | None, str, str | None, str]]:
    toks = L.tokenize_command(self.src.text, body.end_byte, node.end_byte)
    out: list[tuple[str | None, str, str | None, str]] = []
    for r in toks.redirs:
        tgt = self.expand_single(r.target) if r.target is not None else None
        out.append((r.fd, r.op, tgt, self.src.at(r.start)))
    return out


def run_list(self: Control, node: Any) -> int | None:
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
    present = _tested_present(self, mark, self._short(left)) if op == "&&" and st is None else []
    if op == "&&":
        if st == 0:
            return self._run_last(right)
        if st is None:
            return self.fork(
                [lambda: _where_present(self, present, lambda: self.run_node(right)), lambda: None],
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


def _run_last(self: Control, node: Any) -> int | None:
    """The command after a list's final ``&&``/``||``: the one place in a list ``set -e`` applies to."""
    status = self.run_node(node)
    if status:
        self.last_status = status
        self._errexit(node, status)
    return status


def capture_node(self: Control, node: Any) -> str | None:
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


def _compound_stdin(self: Control, node: Any, body: Any) -> StdinStream | None:
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


def stdin_taken(self: Control, name: str | None, redirs: list[Any], at: str) -> None:
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


def run_pipeline(
    self: Control, node: Any, last_redirects: list[tuple[str | None, str, str | None, str]] | None = None
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


def pipe_output(self: Control, node: Any) -> tuple[str | None, int | None, str] | None:
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


def _producer(self: Control, node: Any) -> str:
    """A pipeline part as the report names it: its first words, up to one with `=`, a quote or an
    expansion (``kubectl create secret generic k ...``: an option's value may be a secret)."""
    words = to_str(self.node_text(node)).replace("\\\n", " ").split()
    shown: list[str] = []
    for w in words:
        if len(shown) == 4 or (any(c in w for c in "=$`'\"") and shown and not w.startswith("<<")):
            return " ".join(shown) + " ..."
        shown.append(w)
    return " ".join(shown)


def run_arith_command(self: Control, node: Any) -> int | None:
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


def _segments(self: Control, node: Any, keywords: set[str]) -> list[tuple[str, list[Any]]]:
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


def run_if(self: Control, node: Any) -> int | None:
    lone = control.lone_clause(node)  # looked up in control.py at each call, as the method there did
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
    self: Control,
    clauses: list[tuple[list[Any] | None, list[Any], int]],
    cond: list[Any] | None,
    body: list[Any],
    node: Any,
) -> None:
    if cond is not None:
        start = next((c.start_byte for c in cond if c.is_named), node.start_byte)
        clauses.append((cond, body, start))


def _run_clauses(
    self: Control, clauses: list[tuple[list[Any] | None, list[Any], int]], idx: int
) -> int | None:
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
    present = _tested_present(self, mark, text)
    return self.fork(
        [
            lambda: _where_present(self, present, lambda: self.run_block(body)),
            lambda: self._run_clauses(clauses, idx + 1),
        ],
        reason,
    )


def _tested_present(self: Control, mark: int, text: str) -> list[str]:
    """The paths the condition just read (``text``, its file tests from ``mark`` on) says exist when it
    holds: those of a condition without a negation or an alternative (`!`, `||`, `-o`), whose every part
    holds on its true branch; none for any other."""
    asked = self.untested_files[mark:]
    del self.untested_files[mark:]
    if re.search(r"(?:^|\s)(?:!|-o)(?:\s|$)|\|\|", text):
        return []
    return asked


def _where_present(self: Control, paths: list[str], body: Callable[[], int | None]) -> int | None:
    """``body`` read where ``paths`` exist (the branch a file test of them guards)."""
    added = [p for p in paths if p not in self.present_by_test]
    self.present_by_test.update(added)
    try:
        return body()
    finally:
        self.present_by_test.difference_update(added)


def run_case(self: Control, node: Any) -> int | None:
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
    self: Control,
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
    self: Control,
    word: str | None,
    items: list[tuple[list[str | None], list[Any], str]],
    k: int,
    value_node: Any,
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
