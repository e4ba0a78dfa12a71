"""The boundary every string crosses on its way out of argtrace, besides the report itself.

* :func:`visible`: control characters and terminal escape sequences from scripts, logs and payloads are
  shown as ``\\x1b``, ``\\r``, ``\\t``, ``\\u200b`` instead of reaching the terminal (clear screen, set title,
  a carriage return that hides the start of a line, bidi overrides and zero-width characters that make
  two different words look equal). Newlines stay: they are the text's own line structure. Applied to the
  report dict before the text renderer styles it, so rich's own styling still works.
* :class:`RedactingStream`: wraps ``sys.stderr`` for the whole command, so that messages, progress lines,
  usage errors and exceptions' text go through the run's :class:`~argtrace.redact.Redactor` and
  :func:`visible` too.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO


# C0 controls but newline, DEL, C1 controls, NBSP, soft hyphen, zero-width and bidi controls, the line and
# paragraph separators, the BOM / zero-width no-break space.
@functools.cache
def invisible() -> re.Pattern[str]:
    # compiled on first use: a run that writes nothing to stderr never needs it (~0.5 ms, issue 18)
    return re.compile(
        "[\x00-\x09\x0b-\x1f\x7f-\x9f\xa0\xad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e"
        "\u2060-\u2064\u2066-\u206f\u3164\ufeff\ufff9-\ufffb]"
    )


_NAMED = {
    "\t": "\\t",
    "\r": "\\r",
    "\x1b": "\\x1b",
    "\x07": "\\a",
    "\x08": "\\b",
    "\x0c": "\\f",
    "\x0b": "\\v",
}


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every invisible or terminal-controlling character written as a visible escape."""
    pattern = invisible()
    return pattern.sub(_escape, text) if pattern.search(text) else text


def _map_strings(value: Any, shown: Callable[[str], str]) -> Any:
    """``shown`` over every string (and dict key) of a JSON-like structure."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {shown(k) if isinstance(k, str) else k: _map_strings(v, shown) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_map_strings(v, shown) for v in value]
    return value


def visible_data(value: Any) -> Any:
    """:func:`visible` over every string (and dict key) of a JSON-like structure."""
    return _map_strings(value, visible)


# Longer strings are cut in the views people read (text, github, gcc): a 5 MB image name or flag value
# echoed whole is megabytes of report nobody reads (and rich wraps it for seconds); the machine formats
# (json, sarif, junit, json-lines) keep every value whole, the public contract.
LONGEST_SHOWN = 10_000


def clipped(text: str, longest: int = LONGEST_SHOWN) -> str:
    """``text``, or its first ``longest`` characters and how many more there were."""
    if len(text) <= longest:
        return text
    return f"{text[:longest]}… [{len(text) - longest:,} more characters; --format json has the whole value]"


def readable_data(value: Any, longest: int = LONGEST_SHOWN) -> Any:
    """:func:`visible_data` with every string cut to ``longest`` characters (:func:`clipped`)."""
    return _map_strings(value, lambda text: clipped(visible(text), longest))


class RedactingStream:
    """A text stream that masks secrets and escapes control characters line by line before writing.

    Whole lines are processed (a secret split across two ``write`` calls of one ``print`` is still found);
    ``flush`` passes on a pending partial line, so progress output is not held back.
    """

    def __init__(self, stream: TextIO, scrub: Callable[[str], str]) -> None:
        self._stream = stream
        self.scrub = scrub
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        if "\n" in self._pending:
            done, _, self._pending = self._pending.rpartition("\n")
            self._stream.write(self._clean(done) + "\n")
        return len(text)

    def _clean(self, text: str) -> str:
        return "\n".join(visible(self.scrub(line)) for line in text.split("\n"))

    def flush(self) -> None:
        if self._pending:
            self._stream.write(self._clean(self._pending))
            self._pending = ""
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    @property
    def terminal_stream(self) -> TextIO:
        """The wrapped stream, for ``argtrace.progress`` only: its live line is argtrace's own stage label
        (no input data) and needs the cursor controls this stream would escape."""
        return self._stream

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self._stream, "encoding", "utf-8") or "utf-8"

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
