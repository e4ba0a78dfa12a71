"""Patterns: bash glob patterns (with extglob groups and POSIX classes) as Python regexes, brace expansion
(``{a,b}``, ``{1..10}``, bounded), the alternatives of a ``case`` item, and the longest/shortest match helpers
used by ``${x#pat}`` and friends. Pure functions of text; no evaluator state.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.core import _BREAK, _Chunk, to_str


class PatternUnknown(Exception):
    """A pattern whose meaning argtrace does not translate (``!(...)`` before more of the pattern, groups
    nested deeper than MAX_GROUP_DEPTH)."""


# extglob groups nested in one another: deeper, a pattern is not translated (its match is unknown). Real
# scripts nest two or three; the fuzzers' 1,000 raised RecursionError here, and each level multiplies what
# a match costs (glob_match.py)
MAX_GROUP_DEPTH = 16


_EXTGLOB_REGEX = {"@": "(?:{})", "?": "(?:{})?", "*": "(?:{})*", "+": "(?:{})+"}
_POSIX_CLASSES = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": "\\s",
    "xdigit": "0-9a-fA-F",
    "punct": "!-/:-@\\[-`{-~",
    "word": "\\w",
    "blank": " \\t",
}


def _glob_to_regex(chunks: Sequence[tuple[str, bool]], extglob: bool = True) -> str:
    """Translate a bash pattern (pieces with a quoted flag) into a Python regex.

    An extglob group's alternatives are patterns themselves, nested groups included (bash's
    ``extmatch``, lib/glob/sm_loop.c), and its parts may be quoted (``@("a b"|c)``), so the pattern is
    read as one sequence of characters, each with its quoted flag. ``!(list)`` matches any text that none
    of the list matches; it is translated only where it ends the pattern (``*.!(bak)``): before more of
    the pattern, the part it takes depends on what follows, and :class:`PatternUnknown` is raised."""
    chars = [(c, quoted) for text, quoted in chunks for c in text]
    return _translate(chars, extglob, at_end=True)


def _translate(chars: Sequence[tuple[str, bool]], extglob: bool, at_end: bool, depth: int = 0) -> str:
    if depth > MAX_GROUP_DEPTH:
        raise PatternUnknown
    out: list[str] = []
    i = 0
    n = len(chars)
    while i < n:
        c, quoted = chars[i]
        if quoted:
            out.append(re.escape(c))
            i += 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(chars[i + 1][0]))
            i += 2
        elif extglob and c in "@?*+!" and i + 1 < n and chars[i + 1] == ("(", False):
            group = _extglob_group(chars, i + 2)
            if group is None:
                out.append(re.escape(c))
                i += 1
                continue
            alts, j = group
            last = at_end and j + 1 == n
            body = "|".join(_translate(a, extglob, at_end=last, depth=depth + 1) for a in alts)
            if c == "!":
                if not last:
                    raise PatternUnknown
                out.append(f"(?!(?:{body})\\Z)[\\s\\S]*")
            else:
                out.append(_EXTGLOB_REGEX[c].format(body))
            i = j + 1
        elif c == "*":
            out.append("[\\s\\S]*")
            i += 1
        elif c == "?":
            out.append("[\\s\\S]")
            i += 1
        elif c == "[":
            bracket = _bracket(chars, i)
            if bracket is None:
                out.append("\\[")
                i += 1
                continue
            rx, i = bracket
            out.append(rx)
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _extglob_group(
    chars: Sequence[tuple[str, bool]], start: int
) -> tuple[list[list[tuple[str, bool]]], int] | None:
    """The alternatives of the extglob group whose text begins at ``start`` (after its ``(``), and the
    offset of its closing ``)``; None when it is not closed. Quoted ``|`` and ``)`` are literal."""
    alts: list[list[tuple[str, bool]]] = []
    cur: list[tuple[str, bool]] = []
    depth = 0
    i = start
    while i < len(chars):
        c, quoted = chars[i]
        if not quoted:
            if c == "\\" and i + 1 < len(chars):
                cur.extend(chars[i : i + 2])
                i += 2
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                if not depth:
                    alts.append(cur)
                    return alts, i
                depth -= 1
            elif c == "|" and not depth:
                alts.append(cur)
                cur = []
                i += 1
                continue
        cur.append(chars[i])
        i += 1
    return None


def _bracket(chars: Sequence[tuple[str, bool]], i: int) -> tuple[str, int] | None:
    """A bracket expression ``[...]`` at ``i`` as a regex class and the offset after it; None when it is
    not closed (the ``[`` is then a literal)."""
    text = "".join(c for c, _q in chars)
    n = len(text)
    j = i + 1
    if j < n and text[j] in "!^":
        j += 1
    if j < n and text[j] == "]":
        j += 1
    while j < n and text[j] != "]":
        if text.startswith("[:", j):
            k = text.find(":]", j + 2)
            j = k + 2 if k > 0 else j + 1
        else:
            j += 1
    if j >= n:
        return None
    body = text[i + 1 : j]
    neg = body[:1] in ("!", "^")
    if neg:
        body = body[1:]
    # the characters are escaped for Python's class, the POSIX classes' sets are not (`\s` was
    # escaped into a backslash and an `s`: `${X//[[:space:]]/}` removed no blank)
    body = "".join(
        _posix_class(_POSIX_CLASSES, m) if m.group(1) else re.sub(r"([\\\]\[])", r"\\\1", m.group(2))
        for m in re.finditer(r"\[:(\w+):\]|([^[]+|\[)", body)
    )
    return "[" + ("^" if neg else "") + body + "]", j + 1


def _posix_class(classes: dict[str, str], m: re.Match[str]) -> str:
    return classes.get(m.group(1), "")


BRACE_LIMIT = 10_000


class BraceLimit(Exception):
    pass


def brace_expand(raw: str) -> list[str]:
    """Bash brace expansion of one raw word (quotes respected); returns [raw] when nothing expands.

    Raises BraceLimit when the word would expand to more than BRACE_LIMIT words."""
    out = _brace_expand(raw)
    if len(out) > BRACE_LIMIT:
        raise BraceLimit()
    return out


def _brace_expand(raw: str) -> list[str]:
    n = len(raw)
    i = 0
    while i < n:
        skipped = L.skip_quoted(raw, i, n, ansi=True, backtick=True)
        if skipped != i:
            i = skipped
            continue
        c = raw[i]
        if c == "{":
            j, commas = _brace_close(raw, i + 1)
            if j > 0:
                inner = raw[i + 1 : j]
                pre, post = raw[:i], raw[j + 1 :]
                if commas:
                    alts: list[str] = []
                    last = i + 1
                    for k in commas:
                        alts.append(raw[last:k])
                        last = k + 1
                    alts.append(raw[last:j])
                    out: list[str] = []
                    for alt in alts:
                        out.extend(_brace_expand(pre + alt + post))
                        if len(out) > BRACE_LIMIT:
                            return out
                    return out
                m = re.fullmatch(
                    r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([a-zA-Z])\.\.([a-zA-Z])(?:\.\.(-?\d+))?", inner
                )
                if m:
                    seq: list[str]
                    if m.group(1) is not None:
                        a, b_ = int(m.group(1)), int(m.group(2))
                        step = abs(int(m.group(3))) if m.group(3) else 1
                        step = step or 1
                        width = (
                            max(len(m.group(1)), len(m.group(2)))
                            if (
                                (m.group(1).lstrip("-").startswith("0") and len(m.group(1).lstrip("-")) > 1)
                                or (
                                    m.group(2).lstrip("-").startswith("0") and len(m.group(2).lstrip("-")) > 1
                                )
                            )
                            else 0
                        )
                        rng = range(a, b_ + 1, step) if a <= b_ else range(a, b_ - 1, -step)
                        seq = [str(v).zfill(width) if width else str(v) for v in rng]
                    else:
                        a2, b2 = ord(m.group(4)), ord(m.group(5))
                        step = abs(int(m.group(6))) if m.group(6) else 1
                        step = step or 1
                        rng = range(a2, b2 + 1, step) if a2 <= b2 else range(a2, b2 - 1, -step)
                        seq = [chr(v) for v in rng]
                    if len(seq) > 10000:
                        return [raw]
                    out = []
                    for s in seq:
                        out.extend(_brace_expand(pre + s + post))
                        if len(out) > BRACE_LIMIT:
                            return out
                    return out
                # not an expansion: keep looking after this brace
            i += 1
            continue
        i += 1
    return [raw]


def _brace_close(raw: str, i: int) -> tuple[int, list[int]]:
    depth = 1
    commas: list[int] = []
    n = len(raw)
    while i < n:
        skipped = L.skip_quoted(raw, i, n, ansi=False, backtick=False)
        if skipped != i:
            i = skipped
            continue
        c = raw[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i, commas
        elif c == "," and depth == 1:
            commas.append(i)
        i += 1
    return -1, []


def _split_patterns(text: str, start: int, end: int) -> list[tuple[str, int]]:
    """``a|b*|"c d")``: the alternatives of a case item (quotes respected), with their offsets."""
    i = start
    while i < end and text[i] in " \t\n":
        i += 1
    if i < end and text[i] == "(":
        i += 1  # the optional `(` before the first pattern
    out: list[tuple[str, int]] = []
    seg = i
    depth = 0  # inside an extglob group `@(a|b)`, whose `|` does not separate patterns
    while i < end:
        try:
            skipped = L.skip_quoted(text, i, end, ansi=False, backtick=False)
        except L.LexError:
            break
        if skipped != i:
            i = skipped
            continue
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        elif c == "|" and not depth:
            out.append((text[seg:i].strip(" \t\n"), seg))
            i += 1
            while i < end and text[i] in " \t\n":
                i += 1
            seg = i
            continue
        i += 1
    out.append((text[seg:end].strip(" \t\n"), seg))
    return [(raw, off) for raw, off in out if raw]


def _split_on_break(chunks: list[_Chunk]) -> list[list[_Chunk]]:
    groups: list[list[_Chunk]] = [[]]
    for c in chunks:
        if c is _BREAK:
            groups.append([])
        else:
            groups[-1].append(c)
    return groups


def from_str_regex(rx: str) -> str:
    """Patterns are built from latin-1 text; matching happens on real strings."""
    return to_str(rx) if not rx.isascii() else rx
