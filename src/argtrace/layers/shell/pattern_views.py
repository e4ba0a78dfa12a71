"""Patterns tree-sitter-bash cannot read: a same-length view in which each is a plain word.

bash reads a ``case`` item's patterns as words up to the ``)`` that ends them (bash(1), "Compound
Commands"; parse.y): quotes and backslashes make a character literal, and with ``shopt -s extglob`` a group
``@(foo|bar)`` nests its own parentheses ("Pattern Matching"). tree-sitter-bash misreads several such
patterns, silently or with an ERROR: a group after other characters (``--@(foo|bar))``), a quoted or escaped
parenthesis (``')')``, ``*\\)*)``), an escaped blank (``\\ )``). It then took the group's own ``)`` as the
pattern's end: ``case $V in --@(foo|bar)) R=yes;; *) R=no;; esac`` matched ``foo`` and not ``--foo``, and
R was stated as ``no`` where bash sets ``yes``; or the ERROR swallowed the rest of the script, server start
included. A group in ``[[ $V == @("a b"|c) ]]`` did the same.

:func:`pattern_masked` finds the case statements and conditionals in the text as bash's parser delimits
them, and writes each pattern (each group in a conditional) as ``_`` characters of the same length: the
script then parses with each pattern one word. The view is kept only when tree-sitter reads more of the
script with it. The evaluator reads a case item's patterns and a conditional's words from the script's own
text by offset (``Control.run_case``, ``patterns._split_patterns``; the conditional's words are lexed), so
each pattern still matches as bash matches it. What tree-sitter still cannot read is an ERROR region that
the evaluator reports (SH055) and whose assignments it leaves unknown (``Control.unreadable``)."""

from __future__ import annotations

import re
from collections.abc import Callable

from argtrace.layers.shell import lexer as L

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_OPERATORS = frozenset("@?*+!")
_CASE = re.compile(r"(?<![\w$/.-])case[ \t]+")
_IN = re.compile(r"[ \t\n]+in(?=[ \t\n;])")
_CONDITIONAL = re.compile(r"(?<![\w$\[])\[\[[ \t]")
_CONDITIONAL_END = re.compile(r"[ \t]\]\](?=[ \t\n;&|)]|$)")
_TERMINATORS = (";;&", ";;", ";&")
_SPECIAL_IN_CONDITIONAL = frozenset("()|\\'\"~")
_COND_OPS = frozenset({"(", ")", "&&", "||"})
_NESTING = re.compile(r"(?<![\w$/.-])(case|esac)(?![\w/.-])")


def pattern_masked(text: str, parse: Callable[[str], Any]) -> str | None:
    """``text`` with its case patterns and conditional groups masked, when tree-sitter reads more of it so;
    else None. ``parse`` parses a text as ``parse_tree`` does (its first call may return the tree it has)."""
    if "case" not in text and "[[" not in text and "extglob" not in text:
        return None
    tree = parse(text)
    if not tree.root_node.has_error:
        return None
    spans = _case_patterns(text) + _conditional_groups(text)
    if "extglob" in text:
        spans += _word_groups(text)
    if not spans:
        return None
    chars = list(text)
    for start, end in spans:
        for p in range(start, end + 1):
            if chars[p] != "\n":
                chars[p] = "_"
    view = "".join(chars)
    if view == text or _error_bytes(parse(view).root_node) >= _error_bytes(tree.root_node):
        return None
    return view


def _case_patterns(text: str) -> list[tuple[int, int]]:
    """The span of every case item's patterns (up to the character before its ``)``)."""
    out: list[tuple[int, int]] = []
    n = len(text)
    for m in _CASE.finditer(text):
        i = _word_end(text, m.end())
        if i is None:
            continue
        in_kw = _IN.match(text, i)
        if in_kw is None:
            continue
        i = in_kw.end()
        while i < n:
            i = after_blanks_and_comments(text, i)
            if text.startswith("esac", i):
                break
            span = _pattern_span(text, i)
            if span is None:
                break
            out.append(span)
            body_end = _body_end(text, span[1] + 2)
            if body_end is None:
                break
            i = body_end
    return out


def _conditional_groups(text: str) -> list[tuple[int, int]]:
    """The words inside each ``[[ ... ]]`` (up to its first ``]]``) that hold a group, a quote or an escape
    (``+([0-9])')'``, ``*\\)*``), whole; a regular expression after ``=~`` is left as it is."""
    out: list[tuple[int, int]] = []
    for m in _CONDITIONAL.finditer(text):
        close = _CONDITIONAL_END.search(text, m.end())  # not the `]]` of a `[[:digit:]]` class
        if close is None:
            continue
        end = close.start() + 1
        i = m.end()
        after_regex_op = False
        while i < end:
            if text[i] in " \t":
                i += 1
                continue
            j = _conditional_word_end(text, i, end)
            if j is None:
                break
            word = text[i:j]
            if (
                not after_regex_op
                and any(c in word for c in _SPECIAL_IN_CONDITIONAL)
                and word not in _COND_OPS
            ):
                out.append((i, j - 1))
            after_regex_op = word == "=~"
            i = j
    return out


def _conditional_word_end(text: str, i: int, end: int) -> int | None:
    """The end of the conditional's word at ``i``: quotes and escapes skipped, an extglob group taken whole;
    a lone ``(``/``)`` is a word of its own."""
    if text[i] in "()":
        return i + 1
    while i < end and text[i] not in " \t\n":
        if text[i] in _OPERATORS and text[i + 1 : i + 2] == "(":
            close = _group_end(text, i + 1)
            if close is None or close >= end:
                return None
            i = close + 1
            continue
        if text[i] in "()":
            break
        try:
            skipped = L.skip_quoted(text, i, end, ansi=True, backtick=True)
        except L.LexError:
            return None
        i = skipped if skipped != i else i + 1
    return i


def _word_groups(text: str) -> list[tuple[int, int]]:
    """Extglob groups in a command's words (``rm -f logs/!(latest).log``, read as a subshell), outside
    arithmetic, where the script turns extglob on."""
    out: list[tuple[int, int]] = []
    for p in range(len(text) - 1):
        if text[p] in _OPERATORS and text[p + 1] == "(" and (p == 0 or text[p - 1] != "$"):
            line_start = text.rfind("\n", 0, p) + 1
            if "((" in text[line_start:p]:
                continue  # `$(( a*(b+1) ))`: arithmetic, not a pattern
            close = _group_end(text, p + 1)
            if close is not None:
                out.append((p + 1, close))
    return out


def _word_end(text: str, i: int) -> int | None:
    """The end of the shell word at ``i`` (quotes and expansions skipped); None when a quote is open."""
    n = len(text)
    while i < n and text[i] not in " \t\n;&|<>()":
        try:
            skipped = L.skip_quoted(text, i, n, ansi=True, backtick=True)
        except L.LexError:
            return None
        i = skipped if skipped != i else i + 1
    return i


def after_blanks_and_comments(text: str, i: int, end: int | None = None) -> int:
    """The first offset in ``text[i:end]`` that is neither a blank, a newline nor in a comment."""
    n = len(text) if end is None else end
    while i < n:
        c = text[i]
        if c in " \t\n\r":
            i += 1
        elif c == "#":
            nl = text.find("\n", i, n)
            i = n if nl < 0 else nl + 1
        else:
            break
    return i


def _pattern_span(text: str, start: int) -> tuple[int, int] | None:
    """``(start, offset before the closing ")")`` of the patterns that begin at ``start``, read as bash's
    parser reads a pattern word: quotes, escapes and ``$(...)``/``${...}`` skipped, an extglob group's
    parentheses nested. None when no ``)`` ends them on the line."""
    i = start
    if text[i : i + 1] == "(":  # the optional `(` before the first pattern
        i += 1
    depth = 0
    n = len(text)
    while i < n:
        try:
            skipped = L.skip_quoted(text, i, n, ansi=True, backtick=True)
        except L.LexError:
            return None
        if skipped != i:
            if text[i] != "\\" and text.find("\n", i, skipped) >= 0:
                return None
            i = skipped
            continue
        c = text[i]
        if c in "\n;":
            return None
        if c == "(":
            depth += 1
        elif c == ")":
            if not depth:
                return (start, i - 1) if i > start else None
            depth -= 1
        i += 1
    return None


def _body_end(text: str, i: int) -> int | None:
    """The offset after the terminator (``;;``, ``;&``, ``;;&``) of the item body that begins at ``i``, or
    of the ``esac`` that ends the statement; nested case statements skipped. None where a here-document
    begins (its body is not shell text) or the text ends."""
    n = len(text)
    depth = 0
    while i < n:
        try:
            skipped = L.skip_quoted(text, i, n, ansi=True, backtick=True)
        except L.LexError:
            return None
        if skipped != i:
            i = skipped
            continue
        if text.startswith("<<", i) and not text.startswith("<<<", i):
            return None
        c = text[i]
        if c == "#" and (i == 0 or text[i - 1] in " \t\n;"):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if c == ";" and not depth:
            for term in _TERMINATORS:
                if text.startswith(term, i):
                    return i + len(term)
        m = _NESTING.match(text, i)
        if m is not None:
            if m.group(1) == "case":
                depth += 1
            elif depth:
                depth -= 1
            else:
                return i
            i = m.end()
            continue
        i += 1
    return None


def _group_end(text: str, open_at: int) -> int | None:
    """The offset of the ``)`` that closes the group opened at ``open_at`` on its line; None without one."""
    depth = 0
    p = open_at
    while p < len(text):
        c = text[p]
        if c == "\\":
            p += 2  # an escaped character is literal
            continue
        if c == "\n":
            return None
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if not depth:
                return p
        p += 1
    return None


def _error_bytes(root: Any) -> int:
    """How much of the script lies in ERROR nodes (the outermost ones) or is missing."""
    total = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            total += max(node.end_byte - node.start_byte, 1)
        elif node.is_missing:
            total += 1
        elif node.has_error:
            stack.extend(node.children)
    return total
