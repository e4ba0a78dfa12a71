"""Flags the shell cut off from the server command: what the user meant, and what the server got instead.

A comment line inside a continued command, a blank after a backslash or a missing backslash ends the
server command early; the remaining lines (``--mamba-scheduler-strategy extra_buffer ...``) run as a
command of their own (``command not found``). The shell layer reports the hazard (SH004); this module
keeps the user's intent on record: each separated flag becomes a setting whose history says it was written
in the script, never reached the process, and that the parser used its default. The words are parsed with
the same parser layer as the server's own argv, so names and values follow the framework version.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from argtrace.frameworks.schema import Schema
from argtrace.model import LayerResult, Observation, Origin, ServerCommand, Word

# (at, argv, condition) for every simple command the shell layer predicted, in script order.
PredictedCommands = Sequence[tuple[str, list[str | None], str | None]]


def separated_words(server: ServerCommand, commands: PredictedCommands) -> list[Word]:
    """The words of the commands that start with a flag right after the server command.

    Several broken continuations in a row each make such a command; the first command that does not
    start with a flag ends the run (it is the script's next real command).
    """
    start = next((i for i, (at, _argv, _cond) in enumerate(commands) if at == server.at), None)
    if start is None:
        return []
    words: list[Word] = []
    for at, argv, _condition in commands[start + 1 :]:
        if not argv or argv[0] is None or not argv[0].startswith("-"):
            break
        words += [
            Word(text, Origin(at, "separated", text is not None, None if text else "unknown"))
            for text in argv
        ]
    return words


def separated_flags(
    server: ServerCommand,
    commands: PredictedCommands,
    schema: Schema,
    parser_result: LayerResult,
) -> LayerResult:
    """Settings written in the script but cut off from the server command (empty when there are none)."""
    from argtrace.layers.parser import all_defaults, parse_server_args

    words = separated_words(server, commands)
    if not words:
        return LayerResult()
    # Parse as if the words had arrived: the same schema decides names, values and abbreviations.
    would_be = parse_server_args(replace(server, argv=(*server.argv, *words)), schema)
    defaults = all_defaults(schema)
    result = LayerResult()
    # What the parser would say once the flags do reach the server (a flag this release removed, a bad
    # choice): fixing the line break alone would not be enough.
    separated_at = {w.origin.at for w in words}
    result.findings = [
        replace(f, message=f"once these flags reach the server: {f.message}")
        for f in would_be.findings
        if f.at in separated_at
    ]
    for name, (flag, observations) in would_be.observations.items():
        if name in parser_result.observations:
            continue  # also passed in the server command itself: the parser layer follows it
        shell = [o for o in observations if o.layer == "shell"]
        if not shell or not all(o.detail.get("expansion") == "separated" for o in shell):
            continue
        written = shell[-1]
        result.observations[name] = (
            flag,
            [
                replace(
                    written,
                    detail={
                        **written.detail,
                        "separated": True,
                        "reason": f"written at {written.at}, a command of its own: the server command at "
                        f"{server.at} ended before it",
                    },
                ),
                Observation("process", None, at=server.at, detail={"absent": True}),
                Observation("parser", defaults.get(name), by="default", detail={"default": True}),
            ],
        )
        if name in would_be.intended:
            result.intended[name] = would_be.intended[name]
        if name in would_be.unknown_settings:
            result.unknown_settings.add(name)
    return result


def merged_parser_view(parser_result: LayerResult, separated: LayerResult) -> LayerResult:
    """The parser's observations plus the separated settings' defaults, for layers that read parsed values.

    The resolver starts from the parser's values: a separated flag's default is a value the parser
    produced, so it must not be reported again as a default the resolver found. Intended values stay the
    parser's own (the separated ones never reached the framework).
    """
    if not separated.observations:
        return parser_result
    observations = dict(parser_result.observations)
    for name, (flag, obs) in separated.observations.items():
        observations.setdefault(name, (flag, [o for o in obs if o.layer == "parser"]))
    return replace(parser_result, observations=observations)
