"""Running the rebuilt parser over the prepared argv: argparse's hard errors (a missing value, an
ambiguous abbreviation) are located, recorded and the offending word dropped before parsing again, so that
one error does not hide the next; the outcome says what the real parser would do (exit status and its
first error message).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from argtrace.frameworks.argv import UNKNOWN_PREFIX, ArgToken, PreparedArgv
from argtrace.frameworks.schema import Schema
from argtrace.layers.parser.build import build_parser
from argtrace.layers.parser.recording import Event, _ParseError, _ParseExit, _Parser, _plain, _Tok
from argtrace.redact import redact_argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass
class ParseOutcome:
    """What the framework's argument parser does with a server's argv: the namespace, the events on the
    way, the words it could not place and whether it exits."""

    tokens: list[ArgToken]
    events: list[Event]
    namespace: dict[str, Any]
    extras: list[int]  # token indices argparse could not place
    exit_status: int  # what the real parser would do: 0 parses, 2 argparse error, 1 launcher error
    first_error: str | None
    hard_errors: list[tuple[str, int | None, str]]  # (kind, token index, message)
    help_exit: bool = False


# Hard argparse errors recovered from (each costs a whole new parse): `--port --port ...` 5,000 times took
# 275 s before this bound.
MAX_HARD_ERRORS = 32


def run_parser(prepared: PreparedArgv, schema: Schema) -> ParseOutcome:
    """Parse the prepared tokens; recover from argparse's hard errors by dropping the offending word."""
    built = build_parser(schema, prepared.without)
    parser = built.parser
    tokens = list(prepared.tokens)
    strings = [
        _Tok(t.text if t.text is not None else f"{t.option_prefix or ''}{UNKNOWN_PREFIX}{i}", i)
        for i, t in enumerate(tokens)
    ]
    hard: list[tuple[str, int | None, str]] = []
    dropped: set[int] = set()
    first_error: str | None = None
    help_exit = False
    namespace: dict[str, Any] = {}
    extras: list[int] = []
    events: list[Event] = []
    for _attempt in range(len(strings) + 2):
        parser.reset()
        current = [s for s in strings if s.idx not in dropped]
        try:
            ns, rest = parser.parse_known_args(current, parser.fresh_namespace())
        except _ParseExit:
            help_exit = True
            events = list(parser.events)
            break
        except _ParseError as err:
            idx, kind, extra_drop = _locate_error(err.message, parser, current, schema)
            hard.append((kind, idx, err.message))
            if first_error is None:
                first_error = err.message
            if idx is None or idx in dropped or len(hard) >= MAX_HARD_ERRORS:
                events = list(parser.events)
                break
            dropped.add(idx)
            dropped.update(extra_drop)
            continue
        events = list(parser.events)
        # most of the ~500 values are the defaults, neither a word nor a list: _plain only where it acts
        namespace = {k: _plain(v) if isinstance(v, (_Tok, list)) else v for k, v in vars(ns).items()}
        extras = [getattr(r, "idx", -1) for r in rest]
        if schema.framework == "sglang":
            from argtrace.frameworks.sglang import post_parse

            post_parse(tokens, namespace, schema)
        break
    # Errors argparse would raise on the first of them (in argv order): lenient values, then leftovers.
    soft: list[tuple[int, str]] = []
    raised: set[str] = set()  # an action's own exception: a traceback (exit 1), not argparse's exit 2
    for ev in events:
        for _kind, message in ev.errors:
            if _kind == "choice?":
                continue  # not certain: the real converter may normalise the value
            pos = ev.option_tok if ev.option_tok is not None else (ev.value_toks[0] if ev.value_toks else 0)
            soft.append((pos, message))
            if _kind == "raised":
                raised.add(message)
    required = [
        s
        for s in schema.required_specs
        if not any(ev.spec.dest == s.dest for ev in events)
        and (s.option_strings[0] if s.option_strings else s.dest) not in prepared.without
    ]
    status = 0
    if first_error is None and soft:
        first_error = min(soft)[1]
    if first_error is None and required and not help_exit:
        names = ", ".join(s.flag or s.dest for s in required)
        first_error = f"the following arguments are required: {names}"
    if first_error is None and extras and not help_exit and not prepared.known_args:
        shown = redact_argv([str(x) for x in strings])  # a stray credential after --api-key stays masked
        words = [shown[i] or "?" if i >= 0 else "?" for i in extras]
        first_error = "unrecognized arguments: " + " ".join(map(str, words))
    if first_error is not None:
        status = 1 if first_error in raised and not hard else 2
    if help_exit and not hard:
        status = 0
    return ParseOutcome(tokens, events, namespace, extras, status, first_error, hard, help_exit)


def _locate_error(
    message: str, parser: _Parser, current: Sequence[_Tok], schema: Schema
) -> tuple[int | None, str, set[int]]:
    """The token an argparse error is about, the kind of error, and any word to drop with it."""
    m = re.match(r"ambiguous option: (\S+?)(?:=\S*)? could match (.*)", message, re.S)
    if m:
        typed = m.group(1)
        for tok in current:
            if str(tok) == typed or str(tok).split("=", 1)[0] == typed:
                extra: set[int] = set()
                pos = current.index(tok)
                if (
                    "=" not in str(tok)
                    and pos + 1 < len(current)
                    and not str(current[pos + 1]).startswith("-")
                ):
                    matches = [s.strip() for s in m.group(2).split(",")]
                    specs = [schema.option(s) for s in matches]
                    if all(
                        sp is not None
                        and sp.nargs != 0
                        and sp.action not in ("store_true", "store_false", "store_const", "count")
                        for sp in specs
                    ):
                        extra.add(current[pos + 1].idx)
                return tok.idx, "ambiguous", extra
        return None, "ambiguous", set()
    m = re.match(r"argument (\S+): (.*)", message, re.S)
    if m:
        names = set(m.group(1).split("/"))
        seen = {ev.option_tok for ev in parser.events if ev.option_tok is not None}
        consumed = {i for ev in parser.events for i in ev.value_toks}
        last = max(seen | consumed, default=-1)
        for idx, action in parser.classified:
            if (
                action is not None
                and names & set(action.option_strings)
                and idx > last - 1
                and idx not in seen
            ):
                detail = m.group(2)
                kind = (
                    "missing_value"
                    if detail.startswith("expected")
                    else "explicit_arg"
                    if detail.startswith("ignored explicit argument")
                    else "argument"
                )
                return idx, kind, set()
        return None, "argument", set()
    return None, "other", set()
