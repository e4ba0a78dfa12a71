"""Session 36's cheaper fix re-check: ``line_mapper`` in one pass gives what comparing each line with every
edit gave (the old algorithm, kept here as the reference), on random texts and edit sets."""

from __future__ import annotations

import bisect
import random

import pytest

from argtrace.fixes.apply import EditError, _line_starts, apply_edits, line_mapper, spans
from argtrace.model import FixEdit


def _reference(text: str, edits: list[FixEdit]) -> dict[int, int]:
    """``line_mapper`` before session 36: each line's start compared with every span."""
    ordered = spans(text, edits)
    new_starts = _line_starts(apply_edits(text, edits))
    mapping: dict[int, int] = {}
    old_starts = _line_starts(text)
    for number, start in enumerate(old_starts, start=1):
        next_start = old_starts[number] if number < len(old_starts) else len(text) + 1
        shift = 0
        removed = False
        for a, b, replacement in ordered:
            if b <= start:
                shift += len(replacement) - (b - a)
            elif a <= start < b and (a < start or b >= next_start):
                removed = True
        if removed:
            continue
        mapping[number] = bisect.bisect_right(new_starts, start + shift)
    return mapping


def _position(text: str, rng: random.Random) -> str:
    starts = _line_starts(text)
    line = rng.randint(1, len(starts))
    end = starts[line] if line < len(starts) else len(text)
    return f"{line}:{rng.randint(1, end - starts[line - 1] + 1)}"


@pytest.mark.parametrize("seed", range(300))
def test_line_mapper_is_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    count = rng.randint(1, 8)
    lines = ["".join(rng.choice("ab \\#") for _ in range(rng.randint(0, 6))) for _ in range(count)]
    text = "\n".join(lines) + ("\n" if rng.random() < 0.5 else "")
    edits = []
    for _ in range(rng.randint(1, 4)):
        first, second = _position(text, rng), _position(text, rng)
        key = sorted([first, second], key=lambda p: tuple(map(int, p.split(":"))))
        replacement = rng.choice(["", "x", "\n", "# moved\n", "a\nb"])
        edits.append(FixEdit(file="f", start=key[0], end=key[1], replacement=replacement))
    try:
        expected = _reference(text, edits)
    except EditError:
        with pytest.raises(EditError):
            line_mapper(text, edits)
        return
    assert line_mapper(text, edits) == expected


def test_the_shipped_examples_comment_move() -> None:
    """SH004's fix on examples/launch_mtp.sh: the comment at line 26 taken out, put above line 15."""
    text = "".join(f"line {n}\n" for n in range(1, 31))
    edits = [
        FixEdit(file="f", start="26:1", end="27:1", replacement=""),
        FixEdit(file="f", start="15:1", end="15:1", replacement="line 26\n"),
    ]
    mapping = line_mapper(text, edits)
    assert mapping == _reference(text, edits)
    assert (mapping[14], mapping[15], mapping[25], mapping[27], mapping[30]) == (14, 16, 26, 27, 30)
    assert 26 not in mapping
