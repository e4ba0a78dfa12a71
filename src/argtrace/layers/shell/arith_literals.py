"""The arithmetic a launch script mostly has: decimal literals, one or two joined by ``+``, ``-`` or ``*``
(``$((30000 + 7))``), read without bash's whole arithmetic (``arith.py``, loaded for any other expression);
and the 64-bit wrap both use."""

from __future__ import annotations

import re

# a decimal literal, or two joined by `+`, `-` or `*` (`$((30000 + 7))`, the commonest arithmetic of a
# launch script): at most 18 digits, so each is below 2**63 and needs no wrap of its own
_LITERALS = re.compile(
    r"[ \t\n]*(0|[1-9][0-9]{0,17})[ \t\n]*(?:([-+*])[ \t\n]*(0|[1-9][0-9]{0,17})[ \t\n]*)?"
)


def literal_value(expr: str) -> int | None:
    """What ``Evaluator(...).evaluate(expr)`` gives for an expression of decimal literals only (one, or two
    joined by ``+``, ``-`` or ``*``), without the tokenizer and the precedence climbing (issue 18); None for
    any other expression, which the evaluator reads."""
    m = _LITERALS.fullmatch(expr)
    if m is None:
        return None
    a = int(m.group(1))
    op = m.group(2)
    if op is None:
        return a
    b = int(m.group(3))
    return _wrap(a + b if op == "+" else a - b if op == "-" else a * b)


def _wrap(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v
