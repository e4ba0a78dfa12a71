"""``[ ... ]`` commands tree-sitter-bash cannot read: a same-length view in which their ``[`` is a plain word.

For bash, ``[`` is a builtin command like any other: its words are expanded as a simple command's and the
builtin reads them (bash(1), ``test``; test.c). tree-sitter-bash instead parses a ``test_command`` with an
expression grammar of its own, and words it does not expect there (``[ "$1" \\< "b" ]``, ``[ a = ]``) make
an ERROR that swallows the lines after it: ``if [ "$1" \\< b ]; then P=1; else P=2; fi`` became one command
named ``"$1"`` whose words ran to the end of the script, and ``P`` was lost.

:func:`bracket_masked` gives tree-sitter the script with each such ``[`` written as ``_``: the line then
parses as the simple command bash sees. The evaluator reads every command's words from the script's own
text by offset (``Commands._run_simple``), so it still runs ``[`` there, the ``test`` builtin."""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# what may stand before a command word: the start of a line, a blank, or an operator that ends a command
_BEFORE_COMMAND = frozenset(" \t\n;&|(){!")
_ROUNDS = 4  # each round may uncover the next misread `[` that the first ERROR had swallowed

_MASKED: list[tuple[int, str, str]] = []  # (id(text), text, its view or "" when it needs none)


def bracket_masked(text: str, parse: Callable[[str], Any]) -> str | None:
    """``text`` with the ``[`` of each ``[ ... ]`` command that tree-sitter read into an ERROR replaced by
    ``_`` (same length, same newlines), or None when there is none. ``parse`` parses a text as
    ``parse_tree`` does (the last text's answer is kept: ranges of one script are parsed again and again)."""
    if "[" not in text:
        return None
    if _MASKED and _MASKED[0][0] == id(text) and _MASKED[0][1] is text:
        return _MASKED[0][2] or None
    view = text
    tree = parse(view)
    for _ in range(_ROUNDS):
        if not tree.root_node.has_error:
            break
        spots = _misread_brackets(tree.root_node, view)
        if not spots:
            break
        chars = list(view)
        for p in spots:
            chars[p] = "_"
        view = "".join(chars)
        tree = parse(view)
    _MASKED[:] = [(id(text), text, view if view is not text else "")]
    return view if view is not text else None


def _misread_brackets(root: Any, text: str) -> list[int]:
    """Offsets of the ``[`` tokens that open a command inside an ERROR or an erroneous ``test_command``."""
    out: list[int] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if not node.has_error:
            continue
        for child in node.children:
            if child.type == "[" and node.type in ("test_command", "ERROR"):
                p = child.start_byte
                if (
                    text[p] == "["
                    and text[p + 1 : p + 2] in (" ", "\t")
                    and (p == 0 or text[p - 1] in _BEFORE_COMMAND)
                ):
                    out.append(p)
            elif child.has_error:
                stack.append(child)
    return out
