"""``json.dumps(value, indent=2, ensure_ascii=False)``: the same text, written by one recursive walk.

CPython's C encoder (``_json.make_encoder``) has no indent before 3.13, so an indented ``json.dumps`` runs
the pure-Python ``json.encoder._make_iterencode``: nested generators, every piece of text handed up
through one ``yield from`` per level. The JSON report of the shipped example went through ~5.5 M
instructions of it, 1% of a short ``check`` (issue 18). :func:`dumps_indented` walks the value once and
appends the pieces to one list, with the same rules as ``_make_iterencode`` (CPython 3.10-3.13,
``json/encoder.py``): strings through the same ``encode_basestring`` (C when ``_json`` is there), ``True``,
``False`` and ``None`` tested by identity before ``int``, ints and floats by ``int.__repr__`` and
``float.__repr__`` (``NaN``, ``Infinity``, ``-Infinity`` as ``allow_nan`` writes them), tuples as lists,
a dict's keys converted as ``json`` converts them (str, float, bool, None, int), in insertion order.
Anything else (a value only ``default`` could handle, a key ``json`` refuses, a structure that contains
itself, nesting deeper than the interpreter's recursion limit) is written by ``json.dumps`` itself, so its
error is ``json``'s own. tests/test_json_text.py compares both on the reports of the repository's inputs.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any

INDENT = "  "


def safe_for_terminals(text: str) -> str:
    """``text`` (JSON) with DEL, the C1 controls and the invisible and bidi format characters that
    ``boundary.visible`` shows in the text report written as ``\\uXXXX`` escapes.

    JSON escapes only U+0000-U+001F (RFC 8259, section 7); with ``ensure_ascii=False`` the rest of a
    script's or a log's bytes reach the output raw, and a terminal obeys them when a user reads the report
    with ``jq -r`` or ``cat`` (U+009B is a CSI, U+202E reverses the line). Escaped, every string parses to
    the same value. Report text is nearly always ASCII: ``isascii`` answers that without a scan."""
    if text.isascii() and "\x7f" not in text:
        return text
    from argtrace.render.boundary import invisible

    return invisible().sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


class _NotPlain(Exception):
    """A value or key ``_make_iterencode`` hands to ``default`` or refuses: json.dumps writes it."""


def dumps_indented(value: Any) -> str:
    """What ``json.dumps(value, indent=2, ensure_ascii=False)`` returns."""
    if isinstance(value, str):
        return encode_basestring(value)
    out: list[str] = []
    try:
        _write(value, out.append, "\n")
    except (_NotPlain, RecursionError):
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "".join(out)


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return float.__repr__(value)


def _leaf(value: Any) -> str | None:
    """The text of a value that is not a container; None for a list, tuple or dict."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, (list, tuple, dict)):
        return None
    raise _NotPlain


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return int.__repr__(key)
    raise _NotPlain


def _write(value: Any, put: Any, newline: str) -> None:
    """``value`` at the indentation ``newline`` ends with (``"\\n"`` plus two spaces per level)."""
    text = _leaf(value)
    if text is not None:
        put(text)
        return
    if not value:
        put("{}" if isinstance(value, dict) else "[]")
        return
    inner = newline + INDENT
    separator = "," + inner
    if isinstance(value, dict):
        put("{" + inner)
        first = True
        for key, item in value.items():
            if first:
                first = False
            else:
                put(separator)
            put(encode_basestring(_key(key)))
            put(": ")
            text = _leaf(item)
            if text is None:
                _write(item, put, inner)
            else:
                put(text)
        put(newline + "}")
        return
    put("[" + inner)
    first = True
    for item in value:
        if first:
            first = False
        else:
            put(separator)
        text = _leaf(item)
        if text is None:
            _write(item, put, inner)
        else:
            put(text)
    put(newline + "]")
