"""A message another program on a launch's path prints in its own words (``why``'s origin of a text that no
framework site explains): the record ``why_confidence`` and ``why_toolchain`` list them in."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Wording:
    """A message another program on a launch's path prints in its own words: who prints it (``origin``),
    the words (``pattern``), the real report it was learned from (``source``)."""

    origin: str
    pattern: str
    source: str
