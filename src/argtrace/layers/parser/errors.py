"""argparse's hard errors (an ambiguous abbreviation, a missing value, a value for a switch), options that
are required and not given, and words that cannot be known statically (an unknown value, or an unknown word
that may add flags).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from argtrace.frameworks.schema import VALUELESS_ACTIONS, OptionSpec
from argtrace.layers.parser.context import (
    ParseContext,
    _word,
)
from argtrace.layers.parser.release_view import _dest_guess
from argtrace.model import Evidence, VanishedWord
from argtrace.redact import is_secret_flag, mask, redact_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# -- argparse hard errors
def hard_errors(ctx: ParseContext) -> None:
    rules = ctx.rules
    for kind, idx, message in ctx.outcome.hard_errors:
        tok = ctx.tok(idx)
        typed = tok.text if tok is not None else None
        if kind == "ambiguous":
            m = re.search(r"could match (.*)", message)
            ctx.add(
                rules.PA_AMBIGUOUS,
                f"{typed} is an abbreviation that matches several {ctx.schema.label} flags "
                f"({m.group(1) if m else '?'}); argparse stops with exit status 2",
                at=ctx.at(idx),
                setting=_dest_guess(typed or ""),
                fix="spell the flag out in full",
            )
        elif kind == "missing_value":
            nxt = ctx.tok(idx + 1) if idx is not None else None
            shown_next = (
                mask(nxt.text)
                if nxt is not None and nxt.text and typed and is_secret_flag(typed)
                else (redact_text(nxt.text) if nxt is not None and nxt.text else "")
            )
            after = (
                f", and the next word {shown_next!r} looks like a flag"
                if nxt is not None and (nxt.text or "").startswith("-")
                else ""
            )
            spec = spec_of(ctx, typed)
            nxt_text = nxt.text if nxt is not None else None
            is_flag = bool(nxt_text) and (
                spec_of(ctx, (nxt_text or "").split("=", 1)[0]) is not None
                or (nxt_text or "").startswith("--")
            )
            fix = None
            if nxt_text and nxt_text.startswith("-") and not is_flag:
                # a value that really starts with a dash must be attached with '='
                fix = f"write {typed}={shown_next} (a value starting with '-' must be attached with '=')"
            src = tok.src if tok is not None else ()
            # (frameworks/vanished.py is imported where a finding needs it: a correct launch never does)
            from argtrace.frameworks.vanished import after_flag, as_consequence, unset_value_note

            lost = after_flag(ctx.server, src[-1]) if src and tok is not None and tok.via is None else None
            note = unset_value_note(lost) if lost is not None else {}
            ctx.add(
                rules.PA_MISSING_VALUE,
                f"{typed} needs a value but gets none{after}; argparse stops with "
                f'"{message}" (exit status 2)',
                at=ctx.at(idx),
                setting=spec.dest if spec else _dest_guess(typed or ""),
                **{"fix": fix, **note},
            )
        elif kind == "explicit_arg":
            spec = spec_of(ctx, (typed or "").split("=", 1)[0])
            ctx.add(
                rules.PA_NO_VALUE_EXPECTED,
                f'{typed}: the flag takes no value, so argparse stops with "{message}" (exit 2)',
                at=ctx.at(idx),
                setting=spec.dest if spec else None,
                fix=f"write {(typed or '').split('=', 1)[0]} alone",
            )
        else:
            from argtrace.frameworks.vanished import as_consequence

            lost = _lost_positional(ctx) if message.startswith(_REQUIRED) else None
            ctx.add(
                rules.PA_UNRECOGNIZED,
                f'argparse stops with "{redact_text(message)}" (exit 2)',
                at=ctx.at(idx),
                **(as_consequence(lost) if lost is not None else {}),
            )


def spec_of(ctx: ParseContext, typed: str | None) -> OptionSpec | None:
    if not typed:
        return None
    spec = ctx.schema.option(typed)
    if spec is not None:
        return spec
    cands = [s for s in ctx.schema.option_strings if s.startswith(typed)]
    return ctx.schema.option(cands[0]) if len(cands) == 1 else None


_REQUIRED = "the following arguments are required:"


# -- unknown words
def unknown_words(ctx: ParseContext) -> None:
    rules = ctx.rules
    for ev in ctx.outcome.events:
        for i in ev.value_toks:
            tok = ctx.tok(i)
            if tok is not None and tok.text is None:
                word = _word(ctx.server, tok)
                reason = (
                    word.origin.reason
                    if word is not None and word.origin.reason
                    else "cannot be known statically"
                )
                exp = word.origin.expansion if word is not None else None
                ctx.add(
                    rules.PA_UNKNOWN_VALUE,
                    f"the value of {ev.option or ev.spec.dest} comes from {exp or 'a word'} "
                    f"({reason}): {ev.spec.dest} cannot be known before the server runs",
                    at=ctx.at(i),
                    setting=ev.spec.dest,
                )
    for i in ctx.outcome.extras:
        tok = ctx.tok(i)
        if tok is not None and tok.text is None:
            word = _word(ctx.server, tok)
            exp = word.origin.expansion if word is not None else None
            ctx.add(
                rules.PA_UNKNOWN_VALUE,
                f"argv word {exp or ''} cannot be known statically and is not the value of a flag; "
                "it may add flags this analysis cannot see",
                at=ctx.at(i),
            )


def required(ctx: ParseContext) -> None:
    if ctx.outcome.help_exit or ctx.fatal:
        return
    unknown_words = any((tok := ctx.tok(i)) is not None and tok.text is None for i in ctx.outcome.extras)
    lacks = ctx.prepared.without  # not in this entry point's parser (vLLM <= 0.9's module entry point)
    explained = {f.setting: f for f in ctx.prepared.findings if f.code == "PA029"}
    for spec in ctx.schema.required_specs:
        if (spec.option_strings[0] if spec.option_strings else spec.dest) in lacks:
            continue
        if not any(ev.spec.dest == spec.dest for ev in ctx.outcome.events):
            name = spec.flag or spec.dest
            not_given = (
                f"{name} is required by {ctx.schema.label} and is not given: argparse "
                'stops with "the following arguments are required" (exit 2)'
            )
            written = _written_without_value(ctx, spec)
            if written:
                # `--model-path $MODEL` with MODEL the caller's, not set here: SH007 says so (a warning
                # resting on that assumption); this is its note, and an error when the loss is certain
                ctx.add(ctx.rules.PA_REQUIRED, not_given, at=ctx.server.at, setting=spec.dest, **written)
                continue
            from argtrace.frameworks.vanished import among_words, as_consequence, carried_by

            lost = None if spec.option_strings else _lost_positional(ctx)
            if lost is not None and not unknown_words:
                _vanished_positional(ctx, lost, name)
                ctx.add(
                    ctx.rules.PA_REQUIRED,
                    not_given,
                    at=ctx.server.at,
                    setting=spec.dest,
                    **as_consequence(lost),
                )
                continue
            cause = explained.get(spec.dest)
            if cause is not None:  # the launcher's PA029 (`sglang serve $MODEL`): the same lost word
                ctx.add(
                    ctx.rules.PA_REQUIRED,
                    not_given,
                    at=ctx.server.at,
                    setting=spec.dest,
                    fix=cause.fix,
                    severity="info" if cause.basis == "assumed" else None,
                    basis="assumed" if cause.basis == "assumed" else None,
                )
                continue
            carriers = among_words(ctx.server, _takes_value(ctx)) if spec.option_strings else []
            if carriers and not unknown_words:
                message, fix = carried_by(carriers, name, _STOPS)
                ctx.add(
                    ctx.rules.PA_REQUIRED,
                    f"{name} is required by {ctx.schema.label} and {message}",
                    at=carriers[0].at,
                    setting=spec.dest,
                    fix=fix,
                    severity="warning",
                    basis="assumed",
                    evidence=[Evidence("shell", v.at, v.expansion) for v in carriers],
                )
                continue
            if unknown_words:
                ctx.add(
                    ctx.rules.PA_REQUIRED,
                    f"{name} is required by {ctx.schema.label} and is not among the known words; "
                    "only a word that cannot be known statically could still provide it",
                    at=ctx.server.at,
                    setting=spec.dest,
                    severity="info",
                )
                continue
            ctx.add(
                ctx.rules.PA_REQUIRED,
                not_given,
                at=ctx.server.at,
                setting=spec.dest,
                fix=f"add {name} VALUE" if spec.option_strings else _positional_fix(ctx, name),
            )


def _positional_fix(ctx: ParseContext, name: str) -> str:
    """The fix of a required positional that is not given: where the word goes; for ``vllm serve``, that
    ``--model`` does not give it (the release's parser requires the positional whatever else is there)."""
    command = ctx.server.entrypoint
    if command != "vllm serve":
        return f"give {name}: a word of its own after `{command}`"
    model = next((ev for ev in ctx.outcome.events if ev.spec.dest == "model"), None)
    fix = "put the model right after `vllm serve` (`vllm serve MODEL --port ...`)"
    # a flag of one or more words takes every word up to the next flag: the model written after it too
    greedy = [ev for ev in ctx.outcome.events if ev.spec.nargs in ("+", "*") and len(ev.value_toks) > 1]
    eaten = ctx.tok(greedy[0].value_toks[-1]) if greedy else None
    if greedy and eaten is not None and eaten.text is not None:
        shown = ctx.display(greedy[0].value_toks[-1], eaten.text)
        fix += (
            f"; `{shown}` after {greedy[0].option} is taken as one more of its values (it takes one or more "
            "words), not as the model"
        )
    if model is not None:
        fix += (
            f"; {model.option or '--model'} does not give it: {ctx.schema.label}'s `vllm serve` requires the "
            f"positional {name}"
        )
    return fix


_STOPS = 'argparse stops with "the following arguments are required" (exit 2)'


def _takes_value(ctx: ParseContext) -> Callable[[str], bool]:
    def takes_value(flag: str) -> bool:
        spec = spec_of(ctx, flag)
        return spec is None or not (
            spec.nargs == 0 or spec.action in VALUELESS_ACTIONS or "StoreTrue" in spec.action
        )

    return takes_value


def _lost_positional(ctx: ParseContext) -> VanishedWord | None:
    from argtrace.frameworks.vanished import lost_positional

    return lost_positional(ctx.server, _takes_value(ctx))


def _written_without_value(ctx: ParseContext, spec: OptionSpec) -> dict[str, Any]:
    """PA020's keyword arguments when the required flag is written and a variable of the caller's
    environment that is not set here vanished as its value (empty: nothing to change, SH007 is the cause)."""
    for tok in ctx.tokens:
        typed = (tok.text or "").split("=", 1)[0]
        if tok.via is None and tok.src and typed in spec.option_strings:
            from argtrace.frameworks.vanished import after_flag, unset_value_note

            lost = after_flag(ctx.server, tok.src[-1])
            if lost is not None:
                return unset_value_note(lost)
    return {}


def _vanished_positional(ctx: ParseContext, lost: VanishedWord, name: str) -> None:
    from argtrace.frameworks.vanished import vanished_positional

    ctx.result.findings.append(
        vanished_positional(
            lost,
            f"{ctx.schema.label} needs its positional {name}",
            name,
            name,
            f'argparse stops with "{_REQUIRED} {name}" (exit 2)',
        )
    )
