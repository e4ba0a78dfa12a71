"""Here-documents on a line that goes on after them (``cat <<EOF | kubectl apply -f -``, ``cat <<A <<B``,
``false <<EOF || x=1``): bash reads every here-document's body after the newline that ends the whole line
(bash(1), Here Documents: "all lines until a line containing only the delimiter"; the line is parsed first),
so the pipeline or list on the line is one statement and the bodies are data.

tree-sitter-bash hangs the rest of such a line inside the first ``heredoc_redirect`` (and a second
here-document, or a redirection before the ``|``, becomes an ERROR with its body read as commands), so
argtrace read the bodies as script lines (a manifest's ``- name: v`` as a command starting with ``-``).
:func:`masked_text` gives tree-sitter a same-length view of the script in which each such line's
here-document operators read as ``<WORD`` and their bodies as blank lines: the line parses as the
pipeline/list bash sees, every offset stays, and the bodies are read ahead by the lexer
(:func:`argtrace.layers.shell.lexer.register_read_ahead`) for the commands they belong to."""

from __future__ import annotations

import re
from collections.abc import Callable

from argtrace.layers.shell import lexer as L

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# `<<` or `<<-` (not `<<<`) followed by a delimiter word: a candidate here-document operator
_HEREDOC_OP = re.compile(r"(?<!<)<<-?(?!<)[ \t]*[^\s;&|<>()]")

_MASKED: list[tuple[int, str, str]] = []
# id(text) -> (text, the spans of here-document bodies given to tree-sitter as blank lines)
_BODIES: dict[int, tuple[str, list[tuple[int, int]]]] = {}


def masked_bodies(text: str) -> list[tuple[int, int]]:
    """The here-document bodies :func:`masked_text` blanked in ``text`` (read by the text hazards)."""
    got = _BODIES.get(id(text))
    return got[1] if got is not None and got[0] is text else []


def masked_text(text: str, tree: Callable[[], Any]) -> str | None:
    """The text tree-sitter should parse instead of ``text`` (same length, same newlines), or None when no
    line needs it. ``tree()`` is tree-sitter's parse of ``text``: it tells a here-document operator from
    ``<<`` in arithmetic, a string or a comment (the last text's answer is kept: ranges of one script are
    parsed again and again)."""
    if "<<" not in text:
        return None
    if _MASKED and _MASKED[0][0] == id(text) and _MASKED[0][1] is text:
        return _MASKED[0][2] or None
    root = tree().root_node
    data_len = len(text)
    pieces: list[tuple[int, int, str]] = []  # (start, end, replacement) in order
    table: dict[int, tuple[str, bool]] = {}
    pos = 0
    while True:
        m = _HEREDOC_OP.search(text, pos)
        if m is None:
            break
        p = m.start()
        pos = m.end()
        node = root.descendant_for_byte_range(p, p + 2)
        if node is None or node.type not in ("<<", "<<-") or node.parent is None:
            continue
        if node.parent.type not in ("heredoc_redirect", "ERROR"):
            continue
        line = _line_heredocs(text, p, data_len)
        if line is None:
            continue
        docs, went_on, body_start = line
        if not docs:
            continue
        body_end = L.read_heredoc_bodies(text, body_start, data_len, docs)
        pos = max(pos, body_end)
        if not went_on and len(docs) == 1:
            continue  # `cmd <<EOF` alone on its line: tree-sitter reads it as bash does
        for r in docs:
            assert r.target is not None
            tend = r.target.start + len(r.target.raw)
            pieces.append((r.start, tend, " " * (r.target.start - r.start - 1) + "<" + r.target.raw))
            table[r.start] = (r.heredoc or "", r.heredoc_quoted)
        pieces.append((body_start, body_end, re.sub(r"[^\n]", " ", text[body_start:body_end])))
    if not pieces:
        _MASKED[:] = [(id(text), text, "")]
        return None
    out: list[str] = []
    at = 0
    for s, e, rep in sorted(pieces):
        out.append(text[at:s])
        out.append(rep)
        at = e
    out.append(text[at:])
    masked = "".join(out)
    L.register_read_ahead(text, table)
    _BODIES.pop(id(text), None)
    if len(_BODIES) >= 64:
        del _BODIES[next(iter(_BODIES))]
    _BODIES[id(text)] = (text, [(s, e) for s, e, rep in pieces if not rep.strip()])  # the blanked bodies
    _MASKED[:] = [(id(text), text, masked)]
    return masked


def _line_heredocs(text: str, p: int, end: int) -> tuple[list[L.RedirTok], bool, int] | None:
    """From the here-document operator at ``p`` to the newline that ends its line, as the lexer reads it:
    the here-document redirections in order, whether a command operator (``|``, ``&&``, ``;``...) came
    before that newline, and the offset after it (where the first body starts)."""
    docs: list[L.RedirTok] = []
    went_on = False
    i = p
    try:
        while i < end:
            toks = L.tokenize_command(text, i, end, read_heredocs=False)
            docs.extend(r for r in toks.redirs if r.op in ("<<", "<<-") and r.target is not None)
            if toks.stopped_at == "\n":
                return docs, went_on, toks.end
            if toks.stopped_at is None:
                return None  # the script ends on this line: no body to read
            went_on = True
            i = max(toks.end + 1, i + 1)
    except L.LexError:
        return None
    return None
