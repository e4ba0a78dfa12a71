"""The parts of one shell word: literals, parameters, command and arithmetic substitutions, tildes.

The lexer (``lexer.py``) finds where a word starts and ends; this module reads what is inside it, as bash's
word expansion sees it: ``parse_word`` cuts a word into its parts (quoted regions, ``$x``/``${x...}``,
``$(...)``/backquotes, ``$((...))``, ``~user``, ``<(...)``), ``parse_braced`` cuts a ``${...}`` into name,
subscript, operator and operands, ``decode_ansi`` decodes ``$'...'``. It is a unit because the expander
(``expand.py``) and the readers of words outside the shell layer consume these parts and nothing else of
the lexer; it uses only the lexer's scanners (``skip_*``) to find where a nested quote or expansion ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from argtrace.deferred_dataclass import dataclass as deferred
from argtrace.layers.shell.lexer import (
    NAME_RE,
    restore,
    skip_ansi,
    skip_backtick,
    skip_braces,
    skip_double,
    skip_parens,
    skip_quoted,
    skip_single,
)

# ---------------------------------------------------------------------------------------------- word parts
# The commonest parts (literals and parameters), like the lexer's words and commands, are slotted
# dataclasses: a slotted one is built in a third of the time, and a 1 MB script makes some 100,000 (issue
# 18); the rare ones are not (making a class slotted makes it twice, a cost every start-up pays).


@dataclass(slots=True)
class Lit:
    """Literal text inside a word, and whether quoting shields it from splitting and globbing."""

    text: str
    quoted: bool  # single-quoted, $'..', escaped or inside double quotes: no splitting, no globbing


@dataclass(slots=True)
class Param:
    """A parameter expansion inside a word (``$x``, ``${x:-y}``, ``${#a[@]}``...), cut into its name,
    subscript, operator and operands."""

    raw: str  # "$x", "${x:-y}"
    name: str  # "x", "1", "@", "#", "arr"
    quoted: bool
    index: str | None = None  # raw subscript of ${a[...]}
    op: str | None = None  # ":-", "-", ":=", "=", ":+", "+", ":?", "?", "#", "##", "%", "%%", "/", "//",
    #                        "/#", "/%", "^", "^^", ",", ",,", ":" (substring), "@" (transform)
    arg: str | None = None  # raw operand
    arg2: str | None = None  # replacement / substring length
    length: bool = False  # ${#x}
    indirect: bool = False  # ${!x}
    simple: bool = False  # $x form


@deferred
class CmdSub:
    """A command substitution inside a word (``$(...)`` or backquotes) and the command text it runs."""

    raw: str
    body: str
    quoted: bool


@deferred
class Arith:
    """An arithmetic expansion inside a word (``$((...))``) and its expression."""

    raw: str
    expr: str
    quoted: bool


@deferred
class Tilde:
    """A tilde prefix inside a word (``~`` or ``~user``)."""

    raw: str
    user: str


@deferred
class ProcSub:
    """A process substitution inside a word (``<(...)`` or ``>(...)``), which argtrace does not run."""

    raw: str


@deferred
class DQStart:
    """Marks the start of a quoted region (so ``""`` keeps an empty word alive)."""


@deferred
class DQEnd:
    """Marks the end of a quoted region."""


Part = Lit | Param | CmdSub | Arith | Tilde | ProcSub | DQStart | DQEnd

_SPECIAL = "@*#?$!-0123456789"
_ANSI = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def decode_ansi(body: str) -> str:
    """Decode the inside of ``$'...'`` (latin-1 text in, latin-1 text out)."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        d = body[i + 1]
        if d in _ANSI:
            out.append(_ANSI[d])
            i += 2
        elif d in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert m
            out.append(chr(int(m.group(0), 8) & 0xFF))
            i += 1 + m.end()
        elif d == "x":
            m = re.match(r"[0-9A-Fa-f]{1,2}", body[i + 2 :])
            if m:
                out.append(chr(int(m.group(0), 16)))
                i += 2 + m.end()
            else:
                out.append("\\x")
                i += 2
        elif d in "uU":
            m = re.match(r"[0-9A-Fa-f]{1,4}" if d == "u" else r"[0-9A-Fa-f]{1,8}", body[i + 2 :])
            if m:
                ch = chr(int(m.group(0), 16))
                out.append(ch.encode("utf-8", "surrogatepass").decode("latin-1"))
                i += 2 + m.end()
            else:
                out.append("\\" + d)
                i += 2
        elif d == "c" and i + 2 < n:
            out.append(chr(ord(body[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + d)
            i += 2
    return "".join(out)


_ORDINARY = re.compile(r"[^\\'\"`$<>:~]+")


# "$NAME" and "${NAME}": the commonest quoted word, parsed without the general reader (same parts)
QUOTED_NAME = re.compile(r'"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))"')


def parse_word(raw: str, in_dq: bool = False, assignment: bool = False) -> list[Part]:
    """The parts of one word (quotes, escapes and expansions), in order (callers must not mutate them)."""
    if not in_dq:
        m = QUOTED_NAME.fullmatch(raw)
        if m is not None:
            return quoted_name_parts(raw, m)
    if len(raw) > 2000:
        return _parse_word(raw, in_dq, assignment)
    return _parse_word_cached(raw, in_dq, assignment)


def quoted_name_parts(raw: str, m: re.Match[str]) -> list[Part]:
    """The parts of ``raw``, a word ``QUOTED_NAME`` matched (``m``): ``"${NAME}"`` or ``"$NAME"``."""
    if m.group(1) is not None:
        return [DQStart(), Param(raw[1:-1], m.group(1), True), DQEnd()]
    return [DQStart(), Param(raw[1:-1], m.group(2), True, simple=True), DQEnd()]


@lru_cache(maxsize=8192)
def _parse_word_cached(raw: str, in_dq: bool, assignment: bool) -> list[Part]:
    return _parse_word(raw, in_dq, assignment)


def _parse_word(raw: str, in_dq: bool = False, assignment: bool = False) -> list[Part]:
    parts = _parse_word_raw(raw, in_dq, assignment)
    if "\x01" in raw or "\x02" in raw or "\x03" in raw:
        # the placeholders were only for tree-sitter: in a word they are the characters they stand for
        for p in parts:
            if isinstance(p, Lit):
                p.text = restore(p.text)
    return parts


def _parse_word_raw(raw: str, in_dq: bool = False, assignment: bool = False) -> list[Part]:
    parts: list[Part] = []
    buf: list[str] = []
    buf_quoted = in_dq

    def flush() -> None:
        nonlocal buf
        if buf:
            parts.append(Lit("".join(buf), buf_quoted))
            buf = []

    def lit(s: str, quoted: bool) -> None:
        nonlocal buf_quoted
        if buf and buf_quoted != quoted:
            flush()
        buf_quoted = quoted
        buf.append(s)

    def quoted_region(inner: str, literal: bool) -> None:
        """A quoted region between its marks: one literal ('...', $'...') or parsed as in "..."."""
        flush()
        parts.append(DQStart())
        if literal:
            lit(inner, True)
            flush()
        else:
            parts.extend(parse_word(inner, in_dq=True))
        parts.append(DQEnd())

    i = 0
    n = len(raw)
    if not in_dq and raw.startswith("~"):
        m = re.match(r"~([A-Za-z0-9_.+-]*)(?=/|$|:)", raw)
        if m:
            parts.append(Tilde(m.group(0), m.group(1)))
            i = m.end()
    while i < n:
        m_run = _ORDINARY.match(raw, i)
        if m_run is not None and m_run.end() > i:
            lit(m_run.group(0), in_dq)
            i = m_run.end()
            continue
        c = raw[i]
        if c == "\\":
            if i + 1 >= n:
                lit("\\", in_dq)
                i += 1
                continue
            d = raw[i + 1]
            if d == "\n":
                i += 2
                continue
            if in_dq:
                if d in '$`"\\':
                    lit(d, True)
                else:
                    lit("\\" + d, True)
            else:
                lit(d, True)
            i += 2
            continue
        if c == "'" and not in_dq:
            j = skip_single(raw, i + 1)
            quoted_region(raw[i + 1 : j - 1], True)
            i = j
            continue
        if c == '"' and not in_dq:
            j = skip_double(raw, i + 1)
            quoted_region(raw[i + 1 : j - 1], False)
            i = j
            continue
        if c == "`":
            j = skip_backtick(raw, i + 1)
            flush()
            parts.append(CmdSub(raw[i:j], raw[i + 1 : j - 1], in_dq))
            i = j
            continue
        if c == "$" and i + 1 < n:
            d = raw[i + 1]
            if d == "'" and not in_dq:
                j = skip_ansi(raw, i + 2)
                quoted_region(decode_ansi(raw[i + 2 : j - 1]), True)
                i = j
                continue
            if d == '"' and not in_dq:
                j = skip_double(raw, i + 2)
                quoted_region(raw[i + 2 : j - 1], False)
                i = j
                continue
            if d == "(":
                j = skip_parens(raw, i + 2)
                flush()
                body = raw[i + 2 : j - 1]
                if raw.startswith("$((", i) and body.endswith(")") and _balanced(body[1:-1]):
                    parts.append(Arith(raw[i:j], body[1:-1], in_dq))
                else:
                    parts.append(CmdSub(raw[i:j], body, in_dq))
                i = j
                continue
            if d == "[":  # $[ expr ] (old arithmetic)
                j = raw.find("]", i)
                if j > 0:
                    flush()
                    parts.append(Arith(raw[i : j + 1], raw[i + 2 : j], in_dq))
                    i = j + 1
                    continue
            if d == "{":
                j = skip_braces(raw, i + 2)
                flush()
                parts.append(parse_braced(raw[i:j], in_dq))
                i = j
                continue
            if d in _SPECIAL:
                flush()
                parts.append(Param(raw[i : i + 2], d, in_dq, simple=True))
                i += 2
                continue
            m = NAME_RE.match(raw, i + 1)
            if m:
                flush()
                parts.append(Param(raw[i : m.end()], m.group(0), in_dq, simple=True))
                i = m.end()
                continue
            lit("$", in_dq)
            i += 1
            continue
        if (c == "<" or c == ">") and not in_dq and raw.startswith("(", i + 1):
            j = skip_parens(raw, i + 2)
            flush()
            parts.append(ProcSub(raw[i:j]))
            i = j
            continue
        if assignment and c == ":" and not in_dq and raw.startswith("~", i + 1):
            lit(":", False)
            m = re.match(r"~([A-Za-z0-9_.+-]*)(?=/|$|:)", raw[i + 1 :])
            if m:
                flush()
                parts.append(Tilde(m.group(0), m.group(1)))
                i += 1 + m.end()
                continue
            i += 1
            continue
        lit(c, in_dq)
        i += 1
    flush()
    return parts


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


_OPS = (
    ":-",
    ":=",
    ":+",
    ":?",
    "-",
    "=",
    "+",
    "?",
    "##",
    "#",
    "%%",
    "%",
    "//",
    "/#",
    "/%",
    "/",
    "^^",
    "^",
    ",,",
    ",",
    "@",
)


def parse_braced(raw: str, in_dq: bool) -> Param:
    """Parse ``${...}`` (``raw`` includes ``${`` and ``}``)."""
    body = raw[2:-1]
    p = Param(raw, "", in_dq)
    i = 0
    if body.startswith("#") and len(body) > 1 and body[1] not in "}":
        # ${#x} length, but ${#} / ${#-x} / ${##} are the parameter '#'
        rest = body[1:]
        if (rest[0] in "@*#?$!-0123456789" and len(rest) == 1) or NAME_RE.match(rest) or rest[0] in _SPECIAL:
            if not (rest[0] in "-=?+:%/" and len(rest) > 1 and rest[0] != "-"):
                p.length = True
                i = 1
    elif body.startswith("!") and len(body) > 1:
        p.indirect = True
        i = 1
    m = NAME_RE.match(body, i)
    if m:
        p.name = m.group(0)
        i = m.end()
    elif i < len(body) and body[i] in _SPECIAL:
        if body[i].isdigit():
            m2 = re.match(r"\d+", body[i:])
            assert m2
            p.name = m2.group(0)
            i += m2.end()
        else:
            p.name = body[i]
            i += 1
    if i < len(body) and body[i] == "[":
        j = _match_bracket(body, i)
        p.index = body[i + 1 : j]
        i = j + 1
    rest = body[i:]
    if not rest:
        return p
    if p.indirect and rest in ("*", "@") and not p.index:
        p.op = "!prefix"
        return p
    if rest.startswith(":") and not rest.startswith((":-", ":=", ":+", ":?")):
        p.op = ":"
        sub = rest[1:]
        k = _find_top(sub, ":")
        if k < 0:
            p.arg = sub
        else:
            p.arg, p.arg2 = sub[:k], sub[k + 1 :]
        return p
    for op in _OPS:
        if rest.startswith(op):
            p.op = op
            arg = rest[len(op) :]
            if op in ("/", "//", "/#", "/%"):
                k = _find_top(arg, "/")
                if k < 0:
                    p.arg = arg
                else:
                    p.arg, p.arg2 = arg[:k], arg[k + 1 :]
            else:
                p.arg = arg
            return p
    p.op = "?bad"
    p.arg = rest
    return p


def _match_bracket(s: str, i: int) -> int:
    depth = 0
    while i < len(s):
        if s[i] == "[":
            depth += 1
        elif s[i] == "]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(s) - 1


def _find_top(s: str, ch: str) -> int:
    """Index of ``ch`` in ``s`` outside quotes and nested expansions, or -1."""
    i = 0
    n = len(s)
    while i < n:
        skipped = skip_quoted(s, i, n, ansi=False, backtick=False)
        if skipped != i:
            i = skipped
            continue
        if s[i] == ch:
            return i
        i += 1
    return -1
