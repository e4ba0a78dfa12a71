"""Applying edits to a text in memory, and following a line of the old text into the new one."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Mapping, Sequence

from argtrace.model import EnvEdit, FixEdit


class EditError(ValueError):
    """An edit that does not fit the text (a position past its end, overlapping edits)."""


def file_edits(edits: Iterable[FixEdit | EnvEdit]) -> list[FixEdit]:
    """The edits of files among a finding's ``fix_edits`` (the rest change the environment)."""
    return [e for e in edits if isinstance(e, FixEdit)]


def env_edits(edits: Iterable[FixEdit | EnvEdit]) -> list[EnvEdit]:
    """The environment changes among a finding's ``fix_edits``."""
    return [e for e in edits if isinstance(e, EnvEdit)]


def edit_key(edit: FixEdit | EnvEdit) -> tuple[str, ...]:
    """A total order over both kinds of edit (one re-check per distinct set, whatever the order)."""
    if isinstance(edit, EnvEdit):
        return ("env", edit.env, "" if edit.value is None else "=" + edit.value)
    return ("file", edit.file, edit.start, edit.end, edit.replacement)


def apply_env(env: Mapping[str, str], edits: Iterable[EnvEdit]) -> dict[str, str]:
    """``env`` with each change made: a name set to its value, or removed (``value`` None)."""
    out = dict(env)
    for edit in edits:
        if edit.value is None:
            out.pop(edit.env, None)
        else:
            out[edit.env] = edit.value
    return out


def shell_lines(edits: Iterable[EnvEdit]) -> list[str]:
    """The changes as the lines a user types in the shell the launch starts from."""
    import shlex

    return [f"unset {e.env}" if e.value is None else f"export {e.env}={shlex.quote(e.value)}" for e in edits]


def _line_starts(text: str) -> list[int]:
    """Where each line of ``text`` starts: 0, then the offset after each newline (found by ``str.find``, not
    a Python step per character: a fix re-check, and each verified finding's ``line_mapper``, asked it for
    the whole launch file, 9,500 bytecode steps for the shipped example's 1.5 kB)."""
    starts = [0]
    find = text.find
    at = find("\n")
    while at != -1:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts


def offset(text: str, position: str, starts: Sequence[int] | None = None) -> int:
    """The character offset of ``LINE:COL`` (1-based) in ``text``; the line after the last one is the end."""
    line_text, _, col_text = position.partition(":")
    line, col = int(line_text), int(col_text or "1")
    starts = starts if starts is not None else _line_starts(text)
    if line == len(starts) + 1 and col == 1:
        return len(text)
    if not 1 <= line <= len(starts) or col < 1:
        raise EditError(f"{position}: not a position in the text ({len(starts)} lines)")
    end_of_line = starts[line] if line < len(starts) else len(text)
    result = starts[line - 1] + col - 1
    if result > end_of_line:
        raise EditError(f"{position}: past the end of line {line}")
    return result


def spans(text: str, edits: Sequence[FixEdit]) -> list[tuple[int, int, str]]:
    """The edits as (start, end, replacement) offsets, in text order; overlapping edits are refused."""
    starts = _line_starts(text)
    out = sorted(
        ((offset(text, e.start, starts), offset(text, e.end, starts), e.replacement) for e in edits),
        key=lambda s: (s[0], s[1]),
    )
    for (_, a_end, _), (b_start, _, _) in itertools.pairwise(out):
        if b_start < a_end:
            raise EditError("overlapping edits")
    for start, end, _ in out:
        if end < start:
            raise EditError("an edit ends before it starts")
    return out


def apply_edits(text: str, edits: Sequence[FixEdit]) -> str:
    """``text`` with every edit made (positions refer to the original text)."""
    return _applied(text, spans(text, edits))


def _applied(text: str, ordered: Sequence[tuple[int, int, str]]) -> str:
    pieces: list[str] = []
    cursor = 0
    for start, end, replacement in ordered:
        pieces.append(text[cursor:start])
        pieces.append(replacement)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def line_mapper(text: str, edits: Sequence[FixEdit]) -> dict[int, int]:
    """Old line number -> new line number, for the lines whose start no edit removed.

    One pass over the lines and the spans together: ``spans`` are in text order and do not overlap, so
    their ends only grow; the spans ending at or before a line's start are a prefix (they shift it), and
    only the first span after them can take the line's start away (session 36: each line was compared
    with every edit)."""
    ordered = spans(text, edits)
    new_starts = _line_starts(_applied(text, ordered))
    mapping: dict[int, int] = {}
    old_starts = _line_starts(text)
    lines = len(old_starts)
    shift = 0
    done = 0  # the spans that end at or before the current line's start
    for number, start in enumerate(old_starts, start=1):
        while done < len(ordered) and ordered[done][1] <= start:
            a, b, replacement = ordered[done]
            shift += len(replacement) - (b - a)
            done += 1
        if done < len(ordered):
            a, b, _ = ordered[done]
            next_start = old_starts[number] if number < lines else len(text) + 1
            if a <= start < b and (a < start or b >= next_start):
                continue  # the edit takes the line's start (or the whole line) away
        mapping[number] = bisect.bisect_right(new_starts, start + shift)
    return mapping
