"""The lexer's scanners jump between the characters that matter with a compiled search (issue 18: a 1 MB
script spent a third of its time looking at every character in Python). Each must stop exactly where the
per-character loop it replaced stopped, or raise where it raised: compared here on every short string over
the alphabet of characters they treat specially, and on random longer ones."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest

from argtrace.layers.shell import lexer as L

# -------------------------------------------------------------- the per-character loops, as they were


def _ansi(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            return i + 1
        i += 1
    raise L.LexError("unterminated $'...'")


def _double(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "$" and i + 1 < n and text[i + 1] in "({":
            i = L.skip_dollar(text, i)
        elif c == "`":
            i = _backtick(text, i + 1)
        else:
            i += 1
    raise L.LexError("unterminated double quote")


def _backtick(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == "`":
            return i + 1
        else:
            i += 1
    raise L.LexError("unterminated backquote")


def _braces(text: str, i: int) -> int:
    depth = 1
    n = len(text)
    while i < n:
        skipped = L.skip_quoted(text, i, n, ansi=False, backtick=True)
        if skipped != i:
            i = skipped
            continue
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise L.LexError("unterminated ${")


def _word(text: str, i: int, end: int) -> int:
    start = i
    while i < end:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c in L.META:
            if c == "(" and i > start:
                prefix = text[start:i]
                if (L.ASSIGN_RE.match(prefix) and prefix.endswith("=")) or prefix[-1:] in "@?*+!":
                    i = L._skip_array(text, i + 1, end)
                    continue
            if (c == "<" or c == ">") and i == start and i + 1 < end and text[i + 1] == "(":
                i = L.skip_parens(text, i + 2)
                continue
            break
        if c == "'":
            i = L.skip_single(text, i + 1)
        elif c == '"':
            i = L.skip_double(text, i + 1)
        elif c == "$" and i + 1 < end and text[i + 1] == "'":
            i = L.skip_ansi(text, i + 2)
        elif c == "$" and i + 1 < end and text[i + 1] in "({":
            i = L.skip_dollar(text, i)
        elif c == "`":
            i = L.skip_backtick(text, i + 1)
        else:
            i += 1
    return min(i, max(end, i))


def _outcome(scan: Callable[..., int], *args: object) -> int | str:
    try:
        return scan(*args)
    except L.LexError as exc:
        return f"LexError: {exc}"
    except RecursionError:
        return "RecursionError"


ALPHABET = "a\\'\"$`{}() ;\n"
SHORT = ["".join(p) for n in range(5) for p in itertools.product(ALPHABET, repeat=n)]


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET + "xyz=") for _ in range(rng.randint(0, 40))) for _ in range(count)]


@pytest.mark.parametrize(
    ("new", "old"),
    [
        (L.skip_ansi, _ansi),
        (L.skip_double, _double),
        (L.skip_backtick, _backtick),
        (L.skip_braces, _braces),
    ],
    ids=["ansi", "double", "backtick", "braces"],
)
def test_the_quote_scanners_stop_where_the_loops_stopped(
    new: Callable[[str, int], int], old: Callable[[str, int], int]
) -> None:
    texts = SHORT + _random_texts(2000, seed=18)
    differ = [(t, i) for t in texts for i in range(len(t) + 1) if _outcome(new, t, i) != _outcome(old, t, i)]
    assert differ == []
    # the loops stop on these, and on nothing else
    assert L.skip_double('ab\\"c" d', 0) == 6 and L.skip_braces("x:-${y}}z", 0) == 8


def test_read_word_stops_where_the_loop_stopped() -> None:
    texts = SHORT + _random_texts(2000, seed=19)
    differ = [
        (t, i, end)
        for t in texts
        for i in range(len(t) + 1)
        for end in {len(t), (i + len(t)) // 2}
        if _outcome(L.read_word, t, i, end) != _outcome(_word, t, i, end)
    ]
    assert differ == []
    assert L.read_word("--port $PORT rest", 0, 17) == 6
    assert L.read_word('a"b c"d e', 0, 9) == 7
