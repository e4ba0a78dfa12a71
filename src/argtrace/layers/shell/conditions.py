"""Conditions: ``[[ ... ]]`` (``run_cond`` and its small recursive-descent parser) and ``test``/``[``
(``test_argv``), with the unary file and string tests and the binary comparisons; unknown operands give
``None`` (the branch is then evaluated both ways by ``control``).
"""

from __future__ import annotations

import re

from argtrace.layers.shell.control import Control
from argtrace.layers.shell.deferred import Deferred

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.layers.shell.ere import EreMatch  # (ere.py: read with conditions_run.py, on a first test)


_DECIMAL = re.compile(r"[ \t\n]*([-+]?[0-9]+)[ \t\n]*")
# test(1)'s operators as bash's test builtin knows them (test.c: unary_test_op, binary_test_op)
_TEST_UNARY = frozenset(f"-{c}" for c in "abcdefghknoprstuvwxzGLNOSR")
_TEST_BINARY = frozenset(
    {"=", "==", "!=", "<", ">", "-nt", "-ot", "-ef", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-a", "-o"}
)


class TestSyntaxError(Exception):
    """``test``/``[`` given words it cannot read as an expression (``[ a = ]``: "unary operator expected"):
    bash prints the error and the builtin returns 2."""


def _test_integers(op: str, a: str | None, b: str | None) -> bool | None:
    """``test``/``[``'s integer comparisons: each operand a decimal integer, blanks around it allowed
    (``010`` is ten; bash's ``legal_number``, test.c); anything else is bash's "integer expression
    expected" error, status 2: the test is false. (``[[ ]]`` reads its operands as
    arithmetic instead, where ``010`` is eight: ``_binary``.)"""
    if a is None or b is None or not a.strip() or not b.strip():
        # an empty operand is bash's error too, but a script compares a variable as an integer only when it
        # expects it set where it runs (`[ "$RANK" -eq 0 ]`, RANK the platform's): unset here says nothing of
        # there, so the branch is not known
        return None
    ma, mb = _DECIMAL.fullmatch(a), _DECIMAL.fullmatch(b)
    if ma is None or mb is None:
        return False
    x, y = int(ma.group(1)), int(mb.group(1))
    return {"-eq": x == y, "-ne": x != y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y}[op]


class Conditions(Control):
    # ---------------------------------------------------------------------- [[ ]] and test

    _rematch: EreMatch | None  # BASH_REMATCH as the `[[ ]]` being read leaves it (set by run_cond)
    run_cond = Deferred("argtrace.layers.shell.conditions_run")
    _set_rematch = Deferred("argtrace.layers.shell.conditions_run")
    _short_circuit = Deferred("argtrace.layers.shell.conditions_run")
    _c_peek = Deferred("argtrace.layers.shell.conditions_run")
    _c_or = Deferred("argtrace.layers.shell.conditions_run")
    _c_and = Deferred("argtrace.layers.shell.conditions_run")
    _c_not = Deferred("argtrace.layers.shell.conditions_run")
    _c_primary = Deferred("argtrace.layers.shell.conditions_run")
    _unary = Deferred("argtrace.layers.shell.conditions_run")
    _binary = Deferred("argtrace.layers.shell.conditions_run")
    test_argv = Deferred("argtrace.layers.shell.conditions_run")
