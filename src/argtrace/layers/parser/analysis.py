"""The analysis of one parse, by concern: argparse's hard errors first, then every flag that matched
(its findings and its setting), the words left over, unknowable words, required options and vLLM's dotted
keys, and a help or version flag that makes the server exit.
"""

from __future__ import annotations

from argtrace.layers.parser.context import ParseContext
from argtrace.layers.parser.errors import hard_errors, required, unknown_words
from argtrace.layers.parser.flags import duplicates, flag_findings
from argtrace.layers.parser.json_values import dotted_overrides
from argtrace.layers.parser.literal_vars import literal_variables
from argtrace.layers.parser.recording import Event
from argtrace.layers.parser.settings import record_setting


def analyse(ctx: ParseContext) -> None:
    hard_errors(ctx)
    occurrences(ctx)
    if any(i >= 0 for i in ctx.outcome.extras):  # words the parser left (its test, in leftovers.extras)
        from argtrace.layers.parser.leftovers import extras  # (36 KB of bytecode, only for such words)

        extras(ctx)
    unknown_words(ctx)
    required(ctx)
    dotted_overrides(ctx)
    literal_variables(ctx)
    if ctx.outcome.help_exit:
        ev = next((e for e in ctx.outcome.events if e.spec.action in ("help", "version")), None)
        if ev is not None:
            ctx.add(
                ctx.rules.PA_EXITS,
                f"{ev.typed or ev.option} makes the server print {ev.spec.action} and exit without starting",
                at=ctx.at(ev.option_tok),
            )


def occurrences(ctx: ParseContext) -> None:
    """What each flag did: its findings, its setting, and whether it is given more than once."""
    by_dest: dict[str, list[Event]] = {}
    for ev in ctx.outcome.events:
        if ev.spec.action in ("help", "version"):
            continue
        by_dest.setdefault(ev.spec.dest, []).append(ev)
    for dest, events in by_dest.items():
        flag_findings(ctx, events)
        record_setting(ctx, dest, events)
    duplicates(ctx, by_dest)
