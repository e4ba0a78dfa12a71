"""What every carrier asks of a command first.

This module owns the program a command's first word names (:func:`_basename`, the shells in ``_SHELLS``)
and where the command stands (``FILE:LINE:COL``, :func:`_split_at`). It is apart from ``words.py``
(showing and reading a command's words), which a check loads only for a command a carrier reads (code35).
"""

from __future__ import annotations

_SHELLS = {"bash", "sh", "dash", "zsh", "ksh"}


def _split_at(at: str) -> tuple[str, int, int] | None:
    parts = at.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return None
    return parts[0], int(parts[1]), int(parts[2])


def _basename(word: str | None) -> str:
    word = word or ""
    return word[word.rfind("/") + 1 :]  # rsplit's last piece without its list (asked of every command)
