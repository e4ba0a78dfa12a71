"""Text-level hazards: CRLF, BOM, invalid UTF-8, blanks after a continuation backslash, unicode look-alikes,
``<placeholder>`` redirections. These are found in the raw bytes, then located in the tree so that comments
and quoted text are told apart from the words bash will read."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# character -> (name, ASCII replacement)
LOOKALIKES: dict[str, tuple[str, str]] = {
    "\u2010": ("HYPHEN", "-"),
    "\u2011": ("NON-BREAKING HYPHEN", "-"),
    "\u2012": ("FIGURE DASH", "-"),
    "\u2013": ("EN DASH", "-"),
    "\u2014": ("EM DASH", "-"),
    "\u2015": ("HORIZONTAL BAR", "-"),
    "\u2212": ("MINUS SIGN", "-"),
    "\ufe63": ("SMALL HYPHEN-MINUS", "-"),
    "\uff0d": ("FULLWIDTH HYPHEN-MINUS", "-"),
    "\u00ad": ("SOFT HYPHEN", ""),
    "\u2018": ("LEFT SINGLE QUOTATION MARK", "'"),
    "\u2019": ("RIGHT SINGLE QUOTATION MARK", "'"),
    "\u201a": ("SINGLE LOW-9 QUOTATION MARK", "'"),
    "\u201b": ("SINGLE HIGH-REVERSED-9 QUOTATION MARK", "'"),
    "\u2032": ("PRIME", "'"),
    "\u201c": ("LEFT DOUBLE QUOTATION MARK", '"'),
    "\u201d": ("RIGHT DOUBLE QUOTATION MARK", '"'),
    "\u201e": ("DOUBLE LOW-9 QUOTATION MARK", '"'),
    "\u201f": ("DOUBLE HIGH-REVERSED-9 QUOTATION MARK", '"'),
    "\u2033": ("DOUBLE PRIME", '"'),
    "\u00ab": ("LEFT-POINTING DOUBLE ANGLE QUOTATION MARK", '"'),
    "\u00bb": ("RIGHT-POINTING DOUBLE ANGLE QUOTATION MARK", '"'),
    "\u00a0": ("NO-BREAK SPACE", " "),
    "\u2007": ("FIGURE SPACE", " "),
    "\u202f": ("NARROW NO-BREAK SPACE", " "),
    "\u2000": ("EN QUAD", " "),
    "\u2001": ("EM QUAD", " "),
    "\u2002": ("EN SPACE", " "),
    "\u2003": ("EM SPACE", " "),
    "\u2009": ("THIN SPACE", " "),
    "\u200a": ("HAIR SPACE", " "),
    "\u3000": ("IDEOGRAPHIC SPACE", " "),
    "\u200b": ("ZERO WIDTH SPACE", ""),
    "\u200c": ("ZERO WIDTH NON-JOINER", ""),
    "\u200d": ("ZERO WIDTH JOINER", ""),
    "\u2060": ("WORD JOINER", ""),
    "\ufeff": ("ZERO WIDTH NO-BREAK SPACE (BOM)", ""),
    "\uff1d": ("FULLWIDTH EQUALS SIGN", "="),
}


@functools.cache
def _lookalike_re() -> re.Pattern[str]:
    # compiled for the first script that is not ASCII (~0.4 ms at import otherwise, issue 18)
    return re.compile("[" + "".join(LOOKALIKES) + "]")


@dataclass(frozen=True)
class TextHazard:
    """Something in the script's text that bash reads differently from how it looks: a CR line end, a byte-
    order mark, a look-alike character, a blank after a backslash, a placeholder."""

    kind: str  # "crlf", "bom", "utf8", "backslash_blank", "lookalike", "placeholder"
    line: int
    col: int
    offset: int  # byte offset
    text: str  # the line (as text) or the offending piece
    data: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str) -> Any:
        return dict(self.data).get(key)


def _node_kinds_at(tree: Any, offset: int) -> list[str]:
    if tree is None:
        return []
    node = tree.root_node.descendant_for_byte_range(offset, offset)
    kinds: list[str] = []
    while node is not None:
        kinds.append(node.type)
        node = node.parent
    return kinds


def _col(line_bytes: bytes, byte_col: int) -> int:
    return len(line_bytes[:byte_col].decode("utf-8", "replace")) + 1


def previous_line_continues(prev: bytes) -> bool:
    """Does a line ending like ``prev`` continue onto the next one (odd backslashes, not in a comment)?"""
    if prev.lstrip().startswith(b"#"):
        return False
    stripped = prev.rstrip(b"\\")
    return (len(prev) - len(stripped)) % 2 == 1


_FLAG_AT_START = re.compile(rb"[ \t]*(-{1,2}[A-Za-z][A-Za-z0-9_.-]*)")
# after a newline: a pattern that starts with a literal is searched for at C speed, where `(?m)^` is tried at
# every byte (a 1 MB script's check spent some 40 M instructions on it, issue 18)
_FLAG_AFTER_NEWLINE = re.compile(rb"\n[ \t]*(-{1,2}[A-Za-z][A-Za-z0-9_.-]*)")


def _flag_line_starts(data: bytes) -> Iterator[re.Match[bytes]]:
    """The matches of ``(?m)^[ \\t]*(-{1,2}[A-Za-z][A-Za-z0-9_.-]*)`` in ``data``, in order (group 1 the same
    word at the same offset): the first line's, then those after a newline (no match holds a newline but
    the one it starts with, so none hides the next)."""
    first = _FLAG_AT_START.match(data)
    if first is not None:
        yield first
    yield from _FLAG_AFTER_NEWLINE.finditer(data)


def scan(data: bytes, tree: Any, bodies: list[tuple[int, int]] | None = None) -> list[TextHazard]:
    """All text-level hazards in the raw script bytes (``tree`` parsed from the prepared text; ``bodies``:
    the here-documents tree-sitter was given as blank lines, ``heredoc_lines.masked_bodies``)."""
    out: list[TextHazard] = []

    def kinds_at(offset: int) -> list[str]:
        if bodies and any(s <= offset < e for s, e in bodies):
            return ["heredoc_body"]
        return _node_kinds_at(tree, offset)

    if data.startswith(b"\xef\xbb\xbf"):
        out.append(TextHazard("bom", 1, 1, 0, "\ufeff"))
    # CRLF
    if b"\r" in data:
        crlf_lines: list[int] = []
        broken: list[int] = []
        line_no = 1
        pos = 0
        for raw_line in data.split(b"\n"):
            if raw_line.endswith(b"\r"):
                crlf_lines.append(line_no)
                stripped = raw_line[:-1]
                bs = len(stripped) - len(stripped.rstrip(b"\\"))
                if bs % 2 == 1:
                    broken.append(line_no)
            pos += len(raw_line) + 1
            line_no += 1
        if crlf_lines:
            out.append(
                TextHazard(
                    "crlf", crlf_lines[0], 1, 0, "", (("lines", tuple(crlf_lines)), ("broken", tuple(broken)))
                )
            )
    # invalid UTF-8
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        ls = data.rfind(b"\n", 0, e.start) + 1
        out.append(
            TextHazard(
                "utf8",
                line,
                _col(data[ls:], e.start - ls),
                e.start,
                data[ls : data.find(b"\n", e.start) if b"\n" in data[e.start :] else len(data)].decode(
                    "utf-8", "backslashreplace"
                ),
            )
        )
        text = data.decode("utf-8", "replace")
    # blanks after a continuation backslash (a backslash and a blank next to each other somewhere first: a
    # regex search on every line of a 1 MB script that has none took a twentieth of its check)
    lines = data.split(b"\n") if b"\\ " in data or b"\\\t" in data else []
    offset = 0
    for i, raw_line in enumerate(lines, 1):
        line_b = raw_line[:-1] if raw_line.endswith(b"\r") else raw_line
        # a comment after the blanks leaves the backslash escaping the first blank all the same (the
        # documented form `--flag 1 \      # what it does`); one blank and `#` is a word ` #`, no comment
        m = re.search(rb"(?<!\\)((?:\\\\)*)\\([ \t]+)(#.*)?$", line_b)
        if m and m.group(3) and len(m.group(2)) < 2:
            m = None
        if m:
            bs_off = offset + m.start(2) - 1
            kinds = kinds_at(bs_off)
            if not any(
                k in ("comment", "heredoc_body", "raw_string", "string", "string_content") for k in kinds[:3]
            ):
                in_array = "array" in kinds
                out.append(
                    TextHazard(
                        "backslash_blank",
                        i,
                        _col(line_b, m.start(2) - 1),
                        bs_off,
                        line_b.decode("utf-8", "replace"),
                        (("blanks", m.group(2).decode()), ("array", in_array), ("comment", bool(m.group(3)))),
                    )
                )
        offset += len(raw_line) + 1
    # unicode look-alikes (outside comments)
    if not text.isascii():
        boff = 0
        lookalike = _lookalike_re()
        for i, line_text in enumerate(text.split("\n"), 1):
            for m2 in lookalike.finditer(line_text):
                if i == 1 and m2.start() == 0 and m2.group(0) == "\ufeff":
                    continue  # the BOM has its own rule
                bpos = boff + len(line_text[: m2.start()].encode("utf-8"))
                kinds = kinds_at(bpos)
                if kinds and kinds[0] == "comment":
                    continue
                if "comment" in kinds[:2]:
                    continue
                name, ascii_ = LOOKALIKES[m2.group(0)]
                out.append(
                    TextHazard(
                        "lookalike",
                        i,
                        m2.start() + 1,
                        bpos,
                        line_text,
                        (("char", m2.group(0)), ("name", name), ("ascii", ascii_)),
                    )
                )
            boff += len(line_text.encode("utf-8")) + 1
    # a line that starts with a flag where bash expects a command (a missing continuation backslash)
    for m4 in _flag_line_starts(data):
        kinds = kinds_at(m4.start(1))
        if kinds[:2] != ["word", "command_name"]:
            continue
        line = data.count(b"\n", 0, m4.start(1)) + 1
        ls = data.rfind(b"\n", 0, m4.start(1)) + 1
        prev = data[data.rfind(b"\n", 0, max(ls - 1, 0)) + 1 : max(ls - 1, 0)].rstrip(b"\r") if ls else b""
        if previous_line_continues(prev):
            continue  # tree-sitter's view; bash continues the line
        le = data.find(b"\n", m4.start(1))
        le = len(data) if le < 0 else le
        out.append(
            TextHazard(
                "flag_line",
                line,
                _col(data[ls:], m4.start(1) - ls),
                m4.start(1),
                data[ls:le].decode("utf-8", "replace").rstrip("\r"),
                (("word", m4.group(1).decode("utf-8", "replace")),),
            )
        )
    # <placeholder> read as redirections
    if b"<" in data:
        for m3 in re.finditer(rb"(?<![<\w$\\])<([A-Za-z][A-Za-z0-9_./:-]*)>", data):
            kinds = kinds_at(m3.start())
            if "file_redirect" not in kinds[:3]:
                continue
            line = data.count(b"\n", 0, m3.start()) + 1
            ls = data.rfind(b"\n", 0, m3.start()) + 1
            le = data.find(b"\n", m3.start())
            le = len(data) if le < 0 else le
            after = data[m3.end() : le]
            nxt = re.match(rb"[ \t]*([^ \t;&|<>()\r]*)", after)
            eaten = nxt.group(1).decode("utf-8", "replace") if nxt else ""
            out.append(
                TextHazard(
                    "placeholder",
                    line,
                    _col(data[ls:], m3.start() - ls),
                    m3.start(),
                    data[ls:le].decode("utf-8", "replace"),
                    (
                        ("placeholder", m3.group(0).decode("utf-8", "replace")),
                        ("name", m3.group(1).decode("utf-8", "replace")),
                        ("eaten", eaten),
                    ),
                )
            )
    return out
