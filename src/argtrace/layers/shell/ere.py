"""``[[ WORD =~ REGEX ]]``: bash hands REGEX to the C library's POSIX extended regular expressions
(``regcomp(3)`` with ``REG_EXTENDED``; bash manual, "Conditional Constructs"), and sets ``BASH_REMATCH``
from the match. Python's ``re`` agrees with ERE on a common subset only, so a regex is evaluated here only
where the two provably agree, and is unknown otherwise (an honest "unknown" rather than a wrong branch):

- POSIX bracket classes (``[[:digit:]]``) are translated to the ASCII sets POSIX defines in the C locale;
  a backslash inside brackets is literal in ERE and escaping in Python: unknown.
- A backslash before a letter or digit outside brackets (``\\d`` matches ``d`` in glibc's ERE, a digit in
  Python; ``\\w``/``\\b`` are GNU extensions): unknown. Python-only syntax (``(?``, lazy quantifiers ``*?``):
  unknown.
- ``$`` is the end of the string in ERE; Python's ``$`` also matches before a final newline: written ``\\Z``.
- A quoted part of REGEX (``"."``, ``\\.``) matches itself literally. The expanded text no longer says
  which characters were quoted, so a regex with quoting is evaluated only when its text has no regex
  special character at all (then literal and regex readings agree).
- ``BASH_REMATCH``: POSIX picks the leftmost-longest match and its own sub-match rules; Python the first
  its backtracking finds. With no quantifier and no alternation every match at a position has the same
  length, so the two agree and the captures are known; otherwise the captures are unknown (the match
  itself, found or not, is the same under both rules).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SPECIAL = frozenset(".[]()*+?{}|^$\\")
# POSIX character classes in the C/POSIX locale (POSIX.1-2017, XBD 7.3.1 LC_CTYPE)
_CLASSES = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "0-9a-zA-Z",
    "upper": "A-Z",
    "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v",
    "blank": " \\t",
    "punct": "!-/:-@\\[-`{-~",
    "xdigit": "0-9A-Fa-f",
    "cntrl": "\\x00-\\x1f\\x7f",
    "print": " -~",
    "graph": "!-~",
}


@dataclass(frozen=True)
class EreMatch:
    """What ``[[ text =~ regex ]]`` gives: ``matched`` None when unknown; ``captures`` (BASH_REMATCH's
    elements, the whole match first) None when they are not known, with ``reason``."""

    matched: bool | None
    captures: tuple[str, ...] | None
    reason: str | None = None


def _translate(ere: str) -> tuple[str, bool] | None:
    """ERE text -> (Python pattern, has a quantifier or alternation), or None where they may differ."""
    out: list[str] = []
    ambiguous = False
    i, n = 0, len(ere)
    while i < n:
        c = ere[i]
        if c == "[":
            j = i + 1
            body: list[str] = []
            if j < n and ere[j] == "^":
                body.append("^")
                j += 1
            if j < n and ere[j] == "]":
                body.append("\\]")
                j += 1
            while j < n and ere[j] != "]":
                if ere.startswith("[:", j):
                    end = ere.find(":]", j + 2)
                    if end < 0 or ere[j + 2 : end] not in _CLASSES:
                        return None
                    body.append(_CLASSES[ere[j + 2 : end]])
                    j = end + 2
                    continue
                if ere[j] == "\\" or ere.startswith("[.", j) or ere.startswith("[=", j):
                    return None
                body.append("\\[" if ere[j] == "[" else ere[j])
                j += 1
            if j >= n:
                return None  # no closing bracket: regcomp's error, bash's status 2
            out.append("[" + "".join(body) + "]")
            i = j + 1
            continue
        if c == "\\":
            if i + 1 >= n or ere[i + 1].isalnum():
                return None
            out.append(re.escape(ere[i + 1]))
            i += 2
            continue
        if c == "(" and ere.startswith("(?", i):
            return None
        if c in "*+?{":
            nxt = ere[i + 1] if i + 1 < n else ""
            if c != "{" and nxt in ("?", "+"):
                return None
            ambiguous = True
        if c == "|":
            ambiguous = True
        out.append("\\Z" if c == "$" else c)
        i += 1
    return "".join(out), ambiguous


def ere_from_word(raw: str) -> str | None:
    """The ERE bash compiles from a word without expansions: its quoted characters (``'...'``,
    ``"..."``, ``\\c``) escaped so that they match themselves; None for a word with ``$`` or a backquote
    (its expanded text no longer says which characters were quoted)."""
    out: list[str] = []
    i, n = 0, len(raw)

    def literal(c: str) -> str:
        return "\\" + c if c in _SPECIAL else c

    while i < n:
        c = raw[i]
        if c == "`" or (c == "$" and i + 1 < n and (raw[i + 1].isalnum() or raw[i + 1] in "_{(@*#?$!-")):
            return None
        if c == "'":
            end = raw.find("'", i + 1)
            if end < 0:
                return None
            out.extend(literal(q) for q in raw[i + 1 : end])
            i = end + 1
        elif c == '"':
            end = raw.find('"', i + 1)
            if end < 0 or any(q in raw[i + 1 : end] for q in "$`\\"):
                return None
            out.extend(literal(q) for q in raw[i + 1 : end])
            i = end + 1
        elif c == "\\":
            if i + 1 >= n:
                return None
            out.append(literal(raw[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def ere_match(text: str | None, regex: str | None, quoted: bool) -> EreMatch:
    """``[[ text =~ regex ]]`` with ``regex`` the expanded word (``quoted``: the word had quoting)."""
    if text is None or regex is None:
        return EreMatch(None, None, "the word or the regex is not known statically")
    if quoted and any(c in _SPECIAL for c in regex):
        return EreMatch(
            None, None, "a regex with quoted parts: which characters are literal is not evaluated"
        )
    translated = _translate(regex) if not quoted else (re.escape(regex), False)
    if translated is None:
        return EreMatch(
            None, None, "a POSIX extended regex whose meaning differs from Python's is not evaluated"
        )
    pattern, ambiguous = translated
    try:
        m = re.search(pattern, text, re.DOTALL)
    except re.error:
        return EreMatch(None, None, "a regex argtrace cannot compile")
    if m is None:
        return EreMatch(False, ())
    if ambiguous:
        return EreMatch(
            True,
            None,
            "BASH_REMATCH follows POSIX's leftmost-longest rule, not evaluated for a regex with a quantifier "
            "or alternation",
        )
    return EreMatch(True, (m.group(0), *(g or "" for g in m.groups())))
