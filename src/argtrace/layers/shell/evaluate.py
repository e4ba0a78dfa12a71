"""The static evaluator: walks the tree-sitter structure, re-reads each simple command with bash's word rules
(``lexer.py``) and computes what every command would receive, without executing anything.

What cannot be known statically (command substitution, ``read``, a branch on run-time state, arithmetic on
unknown values) is carried as ``None`` with a reason. Branches whose condition is unknown are evaluated on
copies of the state and merged: a variable that differs between them becomes unknown, and server commands
found inside them are still reported (as conditional).

``ShellEvaluator`` is assembled from one part per concept of bash, each in its own module and each built on
the one before (imports point only down this chain; see ``core`` for the hooks that go the other way):
``core`` (values, limits, shared state), ``params`` (variables and arrays), ``expand`` (word expansion),
``control`` (the tree walk and compound commands), ``conditions`` (``[[ ]]`` and ``test``), ``commands``
(simple commands, redirections, functions, programs, server starts), ``builtins``; ``patterns`` and
``outputs`` are pure helpers. This module keeps the names callers import from it.
"""

from __future__ import annotations

from argtrace.layers.shell.builtins import Builtins
from argtrace.layers.shell.commands import detect_after_unknown
from argtrace.layers.shell.core import (
    MAX_DEPTH,
    MAX_LOOP,
    MAX_LOOP_SERVERS,
    MAX_STEPS,
    STEP_BYTES,
    Event,
    ExpWord,
    FoundServer,
    PredictedCommand,
    Source,
    Vanished,
    from_str,
    prepare_text,
    to_str,
)


class ShellEvaluator(Builtins):
    """A bash script evaluated statically: ``run()`` fills ``servers``, ``commands`` and ``events``."""


__all__ = [
    "MAX_DEPTH",
    "MAX_LOOP",
    "MAX_LOOP_SERVERS",
    "MAX_STEPS",
    "STEP_BYTES",
    "Event",
    "ExpWord",
    "FoundServer",
    "PredictedCommand",
    "ShellEvaluator",
    "Source",
    "Vanished",
    "detect_after_unknown",
    "from_str",
    "prepare_text",
    "to_str",
]
