"""The fast path's cheaper set-up (logspeed32) finds what it found before.

``acscan`` builds its two leftmost matchers as noncontiguous NFAs (``acscan._quick_to_build``) instead of
the DFA ``ahocorasick_rs`` picks for so few patterns: a third of the set-up's cost, the same matches (the
crate's kinds differ in speed only). Here both builds search the recorded logs, real-format windows and
random texts made of the patterns' pieces, and must return the same list. ``lines.after_nuls`` (the
leading NUL run without copying the window) must equal the slice-and-strip it replaces.
"""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from argtrace.layers.log import acscan
from argtrace.layers.log import lines as shared

ahocorasick_rs = pytest.importorskip("ahocorasick_rs")

DATA = Path(__file__).resolve().parents[1] / "data"


def _texts() -> list[bytes]:
    """Every recorded log under tests/data, and 400 random texts of pattern pieces, newlines and noise."""
    texts = [p.read_bytes() for p in sorted(DATA.rglob("*.log"))]
    rng = random.Random(32)
    pieces = [*shared.MATCHED, *shared.ANCHORS, *shared.BORING]
    for _ in range(400):
        parts = []
        for _ in range(rng.randint(1, 60)):
            roll = rng.random()
            if roll < 0.45:
                word = rng.choice(pieces)
                cut = rng.randint(0, len(word))  # a whole pattern, or a head / tail of one
                parts.append(word if roll < 0.3 else (word[:cut] if roll < 0.38 else word[cut:]))
            elif roll < 0.6:
                parts.append(b"\n")
            else:
                parts.append(
                    bytes(
                        rng.choice(b"abcdefghijklmnopqrst ERKtdr:\x00\xff") for _ in range(rng.randint(1, 9))
                    )
                )
        texts.append(b"".join(parts))
    return texts


def test_the_set_up_asks_for_a_noncontiguous_nfa() -> None:
    assert acscan._quick_to_build(ahocorasick_rs) == {
        "implementation": ahocorasick_rs.Implementation.NoncontiguousNFA
    }
    # an ahocorasick_rs without the choice builds its own kind
    assert acscan._quick_to_build(SimpleNamespace()) == {}


@pytest.mark.parametrize(("patterns", "name"), [(shared.MATCHED, "matcher"), (shared.ANCHORS, "_anchors")])
def test_the_nfa_matchers_find_what_the_default_build_finds(patterns: tuple[bytes, ...], name: str) -> None:
    ours = getattr(acscan, name)()
    default = ahocorasick_rs.BytesAhoCorasick(
        list(patterns), matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
    )
    texts = _texts()
    assert len(texts) == len(list(DATA.rglob("*.log"))) + 400
    found = 0
    for text in texts:
        expected = default.find_matches_as_indexes(text)
        assert ours.find_matches_as_indexes(text) == expected
        # as the scan searches: a window of a reused buffer, through a memoryview
        buf = bytearray(text + b"\n" * 7)
        assert ours.find_matches_as_indexes(
            memoryview(buf)[3 : len(text)]
        ) == default.find_matches_as_indexes(memoryview(buf)[3 : len(text)])
        found += len(expected)
    assert found > 1000  # the texts do hold matches


@pytest.mark.parametrize(
    ("data", "n", "kept"),
    [
        (b"", 0, 0),
        (b"abc", 3, 3),
        (b"abc\x00", 2, 2),
        (b"\x00\x00ab", 4, 2),
        (b"\x00\x00ab", 1, 0),
        (b"\x00\x00\x00", 3, 0),
        (b"\x00a\x00", 3, 2),
    ],
)
def test_after_nuls_counts_what_follows_the_leading_nuls(data: bytes, n: int, kept: int) -> None:
    for buf in (data, bytearray(data), bytearray(data + b"\x00zz")):
        assert shared.after_nuls(buf, n) == kept == len(buf[:n].lstrip(b"\x00"))


def test_after_nuls_equals_the_slice_and_strip_on_random_buffers() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        data = bytearray(rng.choice(b"\x00\x00\x00a\n") for _ in range(rng.randint(0, 40)))
        n = rng.randint(0, len(data))
        assert shared.after_nuls(data, n) == len(data[:n].lstrip(b"\x00"))
