"""The parser layer: what the framework's argument parser makes of the server's argv.

A real ``argparse.ArgumentParser`` is rebuilt from the bundled schema of the analysed release (same option
strings, nargs, choices, ``allow_abbrev``, prefix chars), after the framework's own argv rewrites
(``frameworks/sglang.py``, ``frameworks/vllm.py``). Its actions record which option string matched, what
the user typed and which argv words were consumed; type conversion and choices are checked leniently so
that one bad value does not hide the next, and argparse's own hard errors (a missing value, an ambiguous
abbreviation) are turned into findings before parsing again without the offending word.

The package, by concern (each module imports only the ones above it in this list):

* ``values``: Python equivalents of the schema's converters, unknown and invalid values, the JSON form;
* ``recording``: the argparse subclass and the actions that record every occurrence (``Event``);
* ``build``: the parser rebuilt from a schema; ``parse``: running it, recovering from hard errors;
* ``releases``: what the other bundled releases (and the other framework) know about a flag;
* ``context``: the state one analysis shares (``ParseContext``) and how messages quote words;
* ``errors``, ``json_values``, ``settings``, ``flags``, ``leftovers``: findings and settings by concern;
* ``analysis``: runs those in order.

This module holds the layer's entry points and re-exports the names other code imports from
``argtrace.layers.parser``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from argtrace.frameworks.argv import PreparedArgv
from argtrace.frameworks.schema import Schema
from argtrace.layers.parser.analysis import analyse
from argtrace.layers.parser.build import BuiltParser, build_parser
from argtrace.layers.parser.context import ParseContext
from argtrace.layers.parser.parse import ParseOutcome, run_parser
from argtrace.layers.parser.recording import Event
from argtrace.layers.parser.values import UNKNOWN, Invalid, _jsonable
from argtrace.model import LayerResult, ServerCommand
from argtrace.redact import redact_argv, redact_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "UNKNOWN",
    "BuiltParser",
    "Event",
    "Invalid",
    "ParseOutcome",
    "_jsonable",
    "all_defaults",
    "build_parser",
    "parse_prepared",
    "parse_server_args",
    "run_parser",
]

_RECENT: list[tuple[ServerCommand, Schema, PreparedArgv, ParseOutcome]] = []


# Words handed to argparse at most. The stdlib parser is quadratic in the number of options (each one
# rescans the option indices after it): 4,000 words take about 1 s, 10^5 over 300 s, 1,024 about 0.06 s.
# Real launch commands have a few hundred words at most.
MAX_PARSED_WORDS = 1024


def _bound_words(prepared: PreparedArgv, server: ServerCommand) -> None:
    """Keep at most MAX_PARSED_WORDS words for argparse, cut before an option so that no flag loses its
    value to the cut, and say so (PA027)."""
    tokens = prepared.tokens
    if len(tokens) <= MAX_PARSED_WORDS:
        return
    from argtrace.layers.parser.context import _at
    from argtrace.rules import parser as rules

    cut = MAX_PARSED_WORDS
    while cut > 1 and not (tokens[cut].text or "").startswith("-"):
        cut -= 1
    if cut <= 1:
        cut = MAX_PARSED_WORDS
    at = _at(server, tokens[cut])
    prepared.tokens = tokens[:cut]
    prepared.findings.append(
        rules.PA_TOO_MANY_WORDS.finding(
            f"the server command has {len(tokens)} words for the parser: argtrace parsed the first {cut} "
            f"and not the other {len(tokens) - cut}" + (f" (from {at} on)" if at else ""),
            at=at or server.at,
        )
    )


def parse_prepared(server: ServerCommand, schema: Schema) -> tuple[PreparedArgv, ParseOutcome]:
    """The framework's argv rewrites and the parse, for one server start (the process layer asks for the
    parallel sizes first; the result is reused for the same server object and schema)."""
    for srv, sch, prepared, outcome in _RECENT:
        if srv is server and sch is schema:
            return prepared, outcome
    if schema.framework == "sglang":  # only the launched framework's module (vllm.py: 33 KB)
        from argtrace.frameworks import sglang

        prepared = sglang.prepare_argv(server, schema)
    else:
        from argtrace.frameworks import vllm

        prepared = vllm.prepare_argv(server, schema)
    _bound_words(prepared, server)
    outcome = run_parser(prepared, schema)
    _RECENT.insert(0, (server, schema, prepared, outcome))
    del _RECENT[4:]
    return prepared, outcome


def parse_server_args(
    server: ServerCommand,
    schema: Schema,
    *,
    all_schemas: Sequence[Schema] | None = None,
) -> LayerResult:
    """The parser layer for one server start: settings the parser saw, and findings."""
    from argtrace.rules import parser as rules

    prepared, outcome = parse_prepared(server, schema)
    result = LayerResult()
    result.findings.extend(prepared.findings)
    analyse(ParseContext(server, schema, prepared, outcome, all_schemas, result, rules))
    result.sections["parser"] = {
        # What argparse finally gets, after the framework's rewrites (secrets masked: sections are
        # rendered as they are).
        "argv": redact_argv([t.text for t in prepared.tokens]),
        "exit_status": prepared.fatal[0] if prepared.fatal else outcome.exit_status,
        "error": redact_text(prepared.fatal[1])
        if prepared.fatal
        else (redact_text(outcome.first_error) if outcome.first_error else None),
        "notes": list(prepared.notes),
    }
    return result


def all_defaults(schema: Schema) -> dict[str, Any]:
    """Every dest of the parser with its default (for ``--all-settings``); a new dict each call, made from
    the one kept in the schema instance (a check and its fix re-checks ask about five times for the same
    ~500 defaults, issue 18)."""
    kept = schema.__dict__.get("_all_defaults")
    if kept is None:
        kept = schema.__dict__["_all_defaults"] = _all_defaults(schema)
    return dict(kept)


def _all_defaults(schema: Schema) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in (*schema.options, *schema.positionals):
        if spec.action in ("help", "version") or spec.dest in out:
            continue
        if spec.default == argparse.SUPPRESS:
            continue
        out[spec.dest] = spec.default_value
    return out
