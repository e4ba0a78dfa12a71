"""Matching a shell pattern without backtracking: the regex ``patterns._glob_to_regex`` writes, run as sets
of positions (each step takes every offset the pattern so far can end at to the offsets the next piece can
end at), so no input costs more than polynomial time, and the work is counted.

Python's ``re`` backtracks: ``+(a|aa)b`` against 40 ``a`` took minutes (it tries every split of the run),
``*a*a*a*a*b`` against 2,000 characters as long, and ``${X//a/b}`` over a 20,000-character value called
``re.fullmatch`` on every prefix of every suffix (cubic: 2,000 characters 3 s, 20,000 past 2 minutes). bash
itself backtracks (lib/glob/sm_loop.c ``extmatch``), so such a pattern is slow there too; argtrace answers
the same match, or "unknown" once a match has cost :data:`WORK_LIMIT` position steps (:class:`TooMuchWork`),
which its callers report as a value or branch not known.

The regex grammar read here is exactly what ``_glob_to_regex`` writes: literal characters (``re.escape``d
or plain), ``[\\s\\S]`` (any character), a bracket class ``[...]`` (tested on one character with ``re``,
which cannot backtrack there), ``(?:...)`` with ``?``, ``*`` or ``+`` after it, ``|``, and the ``!(...)``
form ``(?!(?:...)\\Z)``. Any other text is :class:`NotAPattern`, and its match is unknown (never seen: the
differential test in tests/shell/test_glob_match.py reads 1,500 random patterns' regexes)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

# position steps one pattern operation (a case item's match, one `${X//pat/rep}`) may take: about 0.7 s on
# the 2-core CI machine; a real script's matches take hundreds
WORK_LIMIT = 1_000_000
# why a value is unknown when a match ran out of its steps, for the finding that says so
TOO_MUCH_WORK = (
    f"matching its pattern takes more than {WORK_LIMIT:,} steps (argtrace's bound; bash backtracks through "
    "such a match too)"
)


class TooMuchWork(Exception):
    """The match would cost more than WORK_LIMIT steps: its answer is not known here."""


class NotAPattern(Exception):
    """Regex text outside the grammar ``_glob_to_regex`` writes."""


@dataclass(frozen=True)
class _Char:
    """One character: ``text`` exactly, any (``text`` None and no class), or one in ``cls``."""

    text: str | None
    cls: re.Pattern[str] | None = None


@dataclass(frozen=True)
class _Alt:
    """Alternatives: each a sequence of items, any of which may match."""

    seqs: tuple[tuple[object, ...], ...]


@dataclass(frozen=True)
class _Repeat:
    """An item repeated as ``op`` says: at most once, any number of times, or at least once."""

    body: object
    op: str  # "?", "*" or "+"


@dataclass(frozen=True)
class _Not:
    """``(?!...)``: zero width, keeps an offset from which the body matches nothing."""

    body: _Alt


@dataclass(frozen=True)
class _End:
    """``\\Z``: the end of the text."""


_ANY = _Char(None)


@dataclass
class _Parser:
    """Reads the regular expression a shell pattern was translated into, at offset ``i``."""

    rx: str
    i: int = 0
    end_sensitive: bool = False  # a `\Z` or `(?!...)`: a match depends on where the text ends

    def alts(self) -> _Alt:
        seqs = [self.seq()]
        while self.rx.startswith("|", self.i):
            self.i += 1
            seqs.append(self.seq())
        return _Alt(tuple(seqs))

    def seq(self) -> tuple[object, ...]:
        items: list[object] = []
        rx = self.rx
        while self.i < len(rx) and rx[self.i] not in "|)":
            atom = self.atom()
            if self.i < len(rx) and rx[self.i] in "?*+":
                if isinstance(atom, (_End, _Not)):
                    raise NotAPattern(rx)
                atom = _Repeat(atom, rx[self.i])
                self.i += 1
            items.append(atom)
        return tuple(items)

    def atom(self) -> object:
        rx, i = self.rx, self.i
        if rx.startswith("[\\s\\S]", i):
            self.i += 6
            return _ANY
        if rx.startswith("\\Z", i):
            self.i += 2
            self.end_sensitive = True
            return _End()
        c = rx[i]
        if c == "\\":
            if i + 1 >= len(rx) or rx[i + 1].isalnum():
                raise NotAPattern(rx)  # a class escape (`\s`, `\d`) outside brackets is not ours
            self.i += 2
            return _Char(rx[i + 1])
        if c == "[":
            j = i + 1
            if rx.startswith("^", j):
                j += 1
            while j < len(rx) and rx[j] != "]":
                j += 2 if rx[j] == "\\" else 1
            if j >= len(rx):
                raise NotAPattern(rx)
            self.i = j + 1
            return _Char(None, _class(rx[i : j + 1]))
        if rx.startswith("(?:", i) or rx.startswith("(?!", i):
            self.i += 3
            body = self.alts()
            if not rx.startswith(")", self.i):
                raise NotAPattern(rx)
            self.i += 1
            if rx[i + 2] == "!":
                self.end_sensitive = True
                return _Not(body)
            return body
        if c in "()?*+{}^$.|":
            raise NotAPattern(rx)
        self.i += 1
        return _Char(c)


@lru_cache(maxsize=4096)
def _class(text: str) -> re.Pattern[str]:
    return re.compile(text, re.DOTALL)


@dataclass(frozen=True)
class Pattern:
    """A compiled pattern: its alternatives, and whether a match depends on where the text ends."""

    root: _Alt
    end_sensitive: bool
    # the pattern read backwards (each sequence reversed), None when end-sensitive: run over the reversed
    # text it finds every suffix that matches, or every offset where a match can begin, in one pass
    backwards: _Alt | None


def _reverse(node: object) -> object:
    if isinstance(node, _Alt):
        return _Alt(tuple(tuple(_reverse(item) for item in reversed(seq)) for seq in node.seqs))
    if isinstance(node, _Repeat):
        return _Repeat(_reverse(node.body), node.op)
    return node


@lru_cache(maxsize=1024)
def compile_pattern(rx: str) -> Pattern:
    """The pattern of a regex ``_glob_to_regex`` wrote; :class:`NotAPattern` for any other."""
    p = _Parser(rx)
    root = p.alts()
    if p.i != len(rx):
        raise NotAPattern(rx)
    backwards = None if p.end_sensitive else _reverse(root)
    assert backwards is None or isinstance(backwards, _Alt)
    return Pattern(root, p.end_sensitive, backwards)


@dataclass
class Work:
    """Position steps spent, shared by the matches of one operation."""

    spent: int = 0
    limit: int = WORK_LIMIT

    def spend(self, n: int) -> None:
        self.spent += n + 1
        if self.spent > self.limit:
            raise TooMuchWork


@dataclass
class _Run:
    """One match of a pattern against ``s`` up to ``end``, counting its steps in ``work``."""

    s: str
    end: int
    work: Work
    # a repeat's ends by its start offsets: a group nested in another is asked again for the same offsets
    # by each round of the outer one (without it, each level of `+(+(+(a)))` doubled the work)
    memo: dict[tuple[int, frozenset[int]], frozenset[int]] = field(default_factory=dict)

    def ends(self, node: object, starts: frozenset[int]) -> frozenset[int]:
        """Every offset at which ``node`` can end, having begun at one of ``starts``."""
        if not starts:
            return starts
        self.work.spend(len(starts))
        s, end = self.s, self.end
        if isinstance(node, _Char):
            if node.text is not None:
                c = node.text
                return frozenset(p + 1 for p in starts if p < end and s[p] == c)
            if node.cls is None:
                return frozenset(p + 1 for p in starts if p < end)
            m = node.cls.fullmatch
            return frozenset(p + 1 for p in starts if p < end and m(s[p]))
        if isinstance(node, _Alt):
            out: set[int] = set()
            for seq in node.seqs:
                cur = starts
                for item in seq:
                    cur = self.ends(item, cur)
                    if not cur:
                        break
                out |= cur
            return frozenset(out)
        if isinstance(node, _Repeat):
            if node.body is _ANY and node.op == "*":
                lo = min(starts)
                self.work.spend(end - lo)
                return frozenset(range(lo, end + 1)) if lo <= end else starts
            key = (id(node), starts)
            known = self.memo.get(key)
            if known is not None:
                return known
            first = self.ends(node.body, starts)
            if node.op == "?":
                done = starts | first
            else:
                reached = set(first) | (set(starts) if node.op == "*" else set())
                frontier = first - starts if node.op == "*" else first
                while frontier:
                    new = self.ends(node.body, frontier) - reached
                    reached |= new
                    frontier = frozenset(new)
                done = frozenset(reached)
            self.memo[key] = done
            return done
        if isinstance(node, _Not):
            return frozenset(p for p in starts if not self.ends(node.body, frozenset((p,))))
        if isinstance(node, _End):
            return frozenset(p for p in starts if p == end)
        raise NotAPattern(repr(node))


def match_ends(pat: Pattern, s: str, start: int, work: Work, end: int | None = None) -> frozenset[int]:
    """The offsets ``k`` at which the pattern, begun at ``start``, matches ``s[start:k]`` whole, reading
    ``s`` as if it ended at ``end``. Exact for every ``k`` only when the pattern is not end-sensitive (a
    ``!(...)`` or ``\\Z`` looks at where the text ends): callers then ask once per end."""
    return _Run(s, len(s) if end is None else end, work).ends(pat.root, frozenset((start,)))


def fullmatch(pat: Pattern, s: str, work: Work, start: int = 0, end: int | None = None) -> bool:
    """Whether ``s[start:end]`` matches the pattern whole."""
    stop = len(s) if end is None else end
    return stop in match_ends(pat, s, start, work, stop)


def prefix_lengths(pat: Pattern, s: str, work: Work, start: int = 0) -> list[int]:
    """Every length ``k`` for which ``s[start:start+k]`` matches whole, ascending."""
    if not pat.end_sensitive:
        return sorted(k - start for k in match_ends(pat, s, start, work))
    return [k - start for k in range(start, len(s) + 1) if fullmatch(pat, s, work, start, k)]


def suffix_starts(pat: Pattern, s: str, work: Work) -> list[int] | None:
    """Every offset ``k`` for which ``s[k:]`` matches whole, ascending; None for an end-sensitive pattern."""
    if pat.backwards is None:
        return None
    rs = s[::-1]
    return sorted(len(s) - k for k in _Run(rs, len(rs), work).ends(pat.backwards, frozenset((0,))))


def match_starts(pat: Pattern, s: str, work: Work) -> frozenset[int] | None:
    """Every offset at which some match begins (one pass over the reversed text from every offset); None for
    an end-sensitive pattern."""
    if pat.backwards is None:
        return None
    rs = s[::-1]
    every = frozenset(range(len(s) + 1))
    return frozenset(len(s) - k for k in _Run(rs, len(rs), work).ends(pat.backwards, every))


def glob_fullmatch(rx: str, s: str) -> bool | None:
    """``re.fullmatch(rx, s, re.DOTALL)`` for a pattern's regex, without backtracking; None when that costs
    more than WORK_LIMIT steps (or the regex is not a pattern's)."""
    try:
        return fullmatch(compile_pattern(rx), s, Work())
    except (NotAPattern, TooMuchWork):
        return None


def trimmed(rx: str, s: str, op: str) -> str | None:
    """``${X#pat}``, ``${X##pat}``, ``${X%pat}``, ``${X%%pat}`` of the value ``s`` (``rx``: the pattern's
    regex): the shortest or longest matching prefix or suffix removed; None for a regex that is not a
    pattern's, :class:`TooMuchWork` past the bound."""
    try:
        pat = compile_pattern(rx)
        work = Work()
        if op in ("#", "##"):
            lengths = prefix_lengths(pat, s, work)
            if not lengths:
                return s
            return s[lengths[0] if op == "#" else lengths[-1] :]
        suffixes = suffix_starts(pat, s, work)
        if suffixes is not None:
            if not suffixes:
                return s
            return s[: suffixes[-1] if op == "%" else suffixes[0]]
        starts = range(len(s), -1, -1) if op == "%" else range(len(s) + 1)
        for k in starts:
            if fullmatch(pat, s, work, k):
                return s[:k]
        return s
    except NotAPattern:
        return None


def replaced(rx: str, s: str, rep: str, op: str) -> str | None:
    """``${X/pat/rep}`` (``op`` ``/``), ``${X//pat/rep}``, ``${X/#pat/rep}``, ``${X/%pat/rep}`` of the value
    ``s`` for a non-empty pattern: at each offset the longest match is replaced, as bash does; None when not
    not a pattern's regex, :class:`TooMuchWork` past the bound."""
    try:
        pat = compile_pattern(rx)
        work = Work()
        if op == "/#":
            lengths = prefix_lengths(pat, s, work)
            return rep + s[lengths[-1] :] if lengths else s
        if op == "/%":
            suffixes = suffix_starts(pat, s, work)
            if suffixes is not None:
                return s[: suffixes[0]] + rep if suffixes else s
            for k in range(len(s) + 1):
                if fullmatch(pat, s, work, k):
                    return s[:k] + rep
            return s
        possible = match_starts(pat, s, work)
        out: list[str] = []
        i = 0
        while i <= len(s):
            lengths = prefix_lengths(pat, s, work, i) if possible is None or i in possible else []
            if lengths and lengths[-1] > 0:
                out.append(rep)
                i += lengths[-1]
                if op == "/":
                    out.append(s[i:])
                    break
                continue
            if i < len(s):
                out.append(s[i])
            i += 1
        return "".join(out)
    except NotAPattern:
        return None
