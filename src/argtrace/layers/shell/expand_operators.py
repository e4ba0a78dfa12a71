"""The operators of a parameter expansion (``${x:-w}``, ``${x#p}``, ``${x/p/r}``, ...; code35: loaded on a
script's first one): their operands expanded and applied to a value or to each item of a list. Methods of
:class:`~argtrace.layers.shell.expand.Expander` (see ``deferred.py``).
"""

from __future__ import annotations

from argtrace.layers.shell import wordparts as W
from argtrace.layers.shell.core import _BREAK, ArithError, _Chunk, from_str, to_str
from argtrace.layers.shell.glob_match import TOO_MUCH_WORK, TooMuchWork, replaced, trimmed
from argtrace.layers.shell.patterns import PatternUnknown, _glob_to_regex, from_str_regex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.layers.shell.expand import Expander


def _list_chunks(self: Expander, vals: list[str], q: bool, star: bool) -> list[_Chunk]:
    """What a list expansion's values become: ``"${a[@]}"`` one word each, ``"${a[*]}"`` one word
    joined with IFS's first character, and unquoted either form joined, then split."""
    if star or not q:
        ifs = self._ifs()
        if ifs is None:
            return [_Chunk(None, q, not q, "IFS is not known statically")]
        if q:
            return [_Chunk(ifs[:1].join(vals), True, False)]
        if ifs == "":
            return self._emit_list([v for v in vals if v], False, True)
        # unquoted: bash joins with the first IFS character, then splits the result
        return [_Chunk(ifs[:1].join(vals), False, True)]
    return self._emit_list(vals, True, True)


def _emit_list(self: Expander, vals: list[str], quoted: bool, separate: bool) -> list[_Chunk]:
    out: list[_Chunk] = []
    for i, v in enumerate(vals):
        if i:
            out.append(_BREAK)
        out.append(_Chunk(v, quoted, not quoted))
    if not vals and quoted:
        out.append(_Chunk(None, True, False, "EMPTY_AT"))
    return out


def _operand_chunks(self: Expander, raw: str, quoted: bool, at: str) -> list[_Chunk]:
    # a double quote inside the word of a double-quoted `${x+word}` quotes again: `"${A[@]+"${A[@]}"}"`
    # (`set -u`'s idiom) is one word per element; a single quote there stays literal (in-quotes reading)
    inner_dq = quoted and '"' in raw and "'" not in raw
    parts = W.parse_word(raw, in_dq=quoted and not inner_dq)
    chunks = self.expand_parts(parts, at)
    if quoted:
        return [_Chunk(c.text, True, False, c.reason) if c is not _BREAK else c for c in chunks]
    # unquoted literal text inside ${x:-...} is subject to splitting too
    return [
        _Chunk(c.text, c.quoted, c.split or not c.quoted, c.reason) if c is not _BREAK else c for c in chunks
    ]


def _expand_operand(self: Expander, raw: str, at: str) -> str | None:
    parts = W.parse_word(raw)
    chunks = self.expand_parts(parts, at, assignment=True)
    if any(c.text is None for c in chunks):
        return None
    return "".join(c.text or "" for c in chunks)


def _pattern(self: Expander, raw: str, at: str) -> str | None:
    parts = W.parse_word(raw)
    chunks = self.expand_parts(parts, at, assignment=True)
    pieces: list[tuple[str, bool]] = []
    for c in chunks:
        if c.text is None:
            return None
        pieces.append((c.text, c.quoted and not c.split))
    try:
        return _glob_to_regex(pieces)
    except PatternUnknown:
        return None


def _op_unknown(self: Expander, raw: str) -> str:
    """Why ``raw``, an expansion with an operator, is not known: the last match ran out of its steps,
    or an operand is unknown."""
    if self.match_ran_out:
        return f"`{raw}`: {TOO_MUCH_WORK}"
    return f"`{raw}`: operand not known statically"


def _apply_op(self: Expander, p: W.Param, value: str, at: str) -> str | None:
    self.match_ran_out = False
    try:
        return self._apply_op_to(p, value, at)
    except TooMuchWork:
        self.match_ran_out = True
        return None


def _apply_op_to(self: Expander, p: W.Param, value: str, at: str) -> str | None:
    op = p.op
    if op == ":":
        try:
            off = self.arith(self._expand_operand(p.arg or "0", at) or "0")
            ln = None if p.arg2 is None else self.arith(self._expand_operand(p.arg2, at) or "0")
        except ArithError:
            return None
        s = to_str(value)
        if off < 0:
            off = max(len(s) + off, 0) if len(s) + off >= 0 else len(s) + 1
        if ln is None:
            r = s[off:]
        elif ln < 0:
            r = s[off : len(s) + ln]
        else:
            r = s[off : off + ln]
        return from_str(r)
    if op in ("#", "##", "%", "%%"):
        pat = self._pattern(p.arg or "", at)
        if pat is None:
            return None
        # matched without backtracking, and unknown past a bound of work (glob_match.py)
        cut = trimmed(from_str_regex(pat), to_str(value), op)
        return None if cut is None else from_str(cut)
    if op in ("/", "//", "/#", "/%"):
        pat = self._pattern(p.arg or "", at)
        rep = self._expand_operand(p.arg2 or "", at) if p.arg2 is not None else ""
        if pat is None or rep is None:
            return None
        s = to_str(value)
        reps = to_str(rep)
        if pat == "":
            # an empty pattern matches the empty string at the anchor: `"${@/#/--gpu=}"` prefixes each
            # word; unanchored it replaces nothing (bash's pattern substitution)
            return from_str(reps + s) if op == "/#" else from_str(s + reps) if op == "/%" else value
        done = replaced(from_str_regex(pat), s, reps, op)
        return None if done is None else from_str(done)
    if op in ("^^", "^", ",,", ","):
        s = to_str(value)
        if p.arg:
            return None
        if op == "^^":
            return from_str(s.upper())
        if op == ",,":
            return from_str(s.lower())
        if op == "^":
            return from_str(s[:1].upper() + s[1:])
        return from_str(s[:1].lower() + s[1:])
    if op == "@":
        a = p.arg or ""
        if a == "Q":
            return "'" + value.replace("'", "'\\''") + "'"
        if a == "U":
            return from_str(to_str(value).upper())
        if a == "L":
            return from_str(to_str(value).lower())
        if a == "u":
            s = to_str(value)
            return from_str(s[:1].upper() + s[1:])
        return None
    return None
