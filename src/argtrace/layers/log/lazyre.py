"""Regular expressions of the log analyser, compiled on first use.

``argtrace log`` reads one framework's log: the other framework's patterns, and the error signatures of a
stage the log never reached, are never used, yet compiling them all at import cost about 7 ms of a run
whose every millisecond shows against ``grep -c`` on a 10 MB log (issue 18). A :class:`LazyPattern` is
compiled by ``re`` the first time one of its methods is called, then reused. ``needles``, when given, are
literal strings of which every match contains at least one: a line holding none of them cannot match, and is
answered without compiling (or running) the expression. The analyser tries its timeline patterns one after
the other on each kept line, so without them every pattern would be compiled by the first line that matches
none (tests/log/test_lazyre.py checks each needle against every pattern's matches in the fixtures).
"""

from __future__ import annotations

import re
import sys


class LazyPattern:
    """``re.compile(source, flags)``, done when first searched with."""

    __slots__ = ("_compiled", "flags", "needles", "source")

    def __init__(self, source: str, flags: int = 0, *, needles: tuple[str, ...] = ()) -> None:
        self.source = source
        self.flags = flags
        self.needles = needles
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        if self.needles and not any(needle in string for needle in self.needles):
            return None
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        if self.needles and not any(needle in string for needle in self.needles):
            return None
        return self.compiled.match(string, pos, endpos)

    def sub(self, repl: str, string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)
