"""Findings about each flag argparse matched: abbreviations, single-dash long options, ``--config=FILE``
spellings that are not expanded, deprecated, retired, no-effect and removed-later flags, rejected values and
choices, and flags given more than once.
"""

from __future__ import annotations

import re

from argtrace.frameworks.schema import OptionSpec
from argtrace.layers.parser.context import (
    _NO_EFFECT,
    ParseContext,
    _deprecation_sentence,
    _from_caller,
    _show,
    _word,
)
from argtrace.layers.parser.json_values import (
    _json_valued,
    dropped_keys,
    hyphenated_override_keys,
    json_duplicates,
    json_string,
)
from argtrace.layers.parser.recording import Event
from argtrace.layers.parser.settings import intended
from argtrace.model import Evidence
from argtrace.redact import is_secret_flag, redact_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def flag_findings(ctx: ParseContext, events: list[Event]) -> None:
    rules = ctx.rules
    schema = ctx.schema
    for ev in events:
        spec = ev.spec
        at = ctx.at(
            ev.option_tok if ev.option_tok is not None else (ev.value_toks[0] if ev.value_toks else None)
        )
        typed = (ev.typed or "").split("=", 1)[0] if ev.typed else None
        tok = ctx.tok(ev.option_tok)
        typed_display: str | None = typed
        if tok is not None and tok.original and typed and tok.original.split("=", 1)[0] != typed:
            typed_display = tok.original.split("=", 1)[0]
        # Abbreviation
        if (
            typed
            and ev.option
            and typed != ev.option
            and ev.option.startswith(typed)
            and typed.startswith("--")
        ):
            newer = ctx.releases.ambiguous_elsewhere(typed)
            more = f"; in {newer} it is ambiguous and the server refuses to start" if newer else ""
            # the word is a flag of its own in another release, of another setting (vLLM <= 0.9.2's
            # `--device cuda`, the device type, is 0.30.0's `--device-ids`): the user meant that setting, so
            # the value lands in one they never named, and writing the longer flag is no fix
            former = [(s, o) for s, o in ctx.releases.knowing(typed) if o.dest != spec.dest]
            if former:
                home, own = former[-1]
                given = f" with {ev.raw[0]!r}" if ev.raw and isinstance(ev.raw[0], str) else ""
                ctx.add(
                    rules.PA_ABBREVIATION,
                    f"{typed_display} is {home.label}'s flag for {own.dest}, not a {schema.label} flag: "
                    f"argparse silently takes it as an abbreviation of {ev.option}, another setting, so "
                    f"{spec.dest} is set{given}{more}",
                    at=at,
                    setting=spec.dest,
                    fix=f"remove {typed_display} and its value ({schema.label} has no {own.dest} setting), "
                    f"or run {home.version}",
                )
            else:
                ctx.add(
                    rules.PA_ABBREVIATION,
                    f"{typed_display} is not a {schema.label} flag: argparse silently takes it as an "
                    f"abbreviation of {ev.option}{more}",
                    at=at,
                    setting=spec.dest,
                    fix=f"write {ev.option} in full",
                    # Unique in every bundled release (``--tp 8`` from SGLang's own docs): the value arrives;
                    # a warning only where a known release makes the prefix ambiguous.
                    severity=None if newer else "info",
                )
        # Single-dash long option parsed as a short flag plus attached value
        word = tok.original or tok.text if tok is not None else None
        if (
            word
            and word.startswith("-")
            and not word.startswith("--")
            and len(word) > 2
            and ev.option
            and len(ev.option) == 2
            and word[:2] == ev.option
            and not word[2:].isdigit()
        ):
            longs = [s for s in schema.option_strings if s.startswith("-" + word.split("=", 1)[0])]
            if longs:
                ctx.add(
                    rules.PA_SINGLE_DASH,
                    f"{word} has a single hyphen: argparse reads it as {ev.option} with the value "
                    f"{word[2:]!r}, not as {longs[0]}",
                    at=at,
                    setting=spec.dest,
                    fix=f"write {longs[0]}",
                )
        # --config=FILE (or an abbreviation): the rewrite looks for the exact word, so nothing is merged
        word_text = ((tok.original or tok.text) if tok is not None else ev.typed) or ""
        if (
            "--config" in spec.option_strings
            and schema.has_rewrite("config_yaml")
            and word_text != "--config"  # the exact word: merged, or the launcher stopped (PA018)
        ):
            ctx.add(
                rules.PA_CONFIG_IGNORED,
                f"{word_text}: {schema.label} expands a config file only when `--config` and "
                f"the file name "
                "are two separate words; this spelling is parsed as a plain option and every setting in "
                f"the file is ignored",
                at=at,
                setting=spec.dest,
                fix=f"write --config {ev.raw[0] if ev.raw else 'FILE'}",
            )
        # Deprecated / retired
        if ev.kind == "noop":
            msg = spec.deprecation_message or "deprecated"
            retired = (spec.raw.get("action_attrs") or {}).get("error_message")
            raised = spec.raw.get("removed")
            if retired:
                ctx.add(
                    rules.PA_IGNORED,
                    f"{ev.option} is retired in {schema.label}: {retired} (argparse exit 2)",
                    at=at,
                    setting=spec.dest,
                )
            elif raised:
                repl = help_replacement(ctx, spec)
                ctx.add(
                    rules.PA_IGNORED,
                    f"{ev.option} is refused by {schema.label}: its action raises {raised} (a traceback "
                    "while the arguments are parsed; the server does not start)",
                    at=at,
                    setting=spec.dest,
                    fix=f"use {repl}" if repl else f"remove {ev.option} ({raised.split(': ', 1)[-1]})",
                )
            else:
                repl = help_replacement(ctx, spec)
                ctx.add(
                    rules.PA_IGNORED,
                    f"{ev.option} is accepted but ignored by {schema.label} ({msg}); nothing is stored"
                    + (f"; use {repl}" if repl else ""),
                    at=at,
                    setting=spec.dest,
                    fix=f"use {repl}" if repl else None,
                )
        elif spec.deprecation_message:
            new = (spec.raw.get("action_attrs") or {}).get("new_flag") or help_replacement(ctx, spec)
            msg = spec.deprecation_message or "deprecated"
            if msg == "deprecated":
                msg = _deprecation_sentence(spec.help) or "the parser marks it deprecated"
            if _NO_EFFECT.search(msg) or _NO_EFFECT.search(spec.help or ""):
                # Stored, but the framework no longer reads it: the value never takes effect.
                why = next(
                    (
                        t
                        for t in re.split(r"(?<=[.!])\s+", " ".join((spec.help or "").split()))
                        if _NO_EFFECT.search(t)
                    ),
                    "",
                )
                if why and why not in msg:
                    msg = f"{msg} {why}"
                ctx.add(
                    rules.PA_IGNORED,
                    f"{ev.option} is accepted but has no effect in {schema.label}: {msg}",
                    at=at,
                    setting=spec.dest,
                    fix="remove the flag" + (f" (see {new})" if new else ""),
                )
            else:
                fix = f"use {new}" if new else None
                passed = ""
                if new is None and ev.option is not None:
                    # no spelling named, but the release passes the value on into another option's key
                    # (vllm 0.10.2-0.11.2's --num-redundant-experts into --eplb-config): write that key
                    from argtrace.frameworks.flag_replacements import forwarded_into

                    went = forwarded_into(schema.framework, ev.option)
                    if went is not None and schema.option(went.into) is not None:
                        fix = f"write {went.into}.{went.key}"
                        passed = (
                            f"; {schema.label} passes its value on to {went.into}.{went.key} ({went.said})"
                        )
                ctx.add(
                    rules.PA_DEPRECATED,
                    f"{ev.option} is deprecated in {schema.label}: {msg}"
                    + (f" (the current spelling is {new})" if new and new not in msg else "")
                    + passed,
                    at=at,
                    setting=spec.dest,
                    fix=fix,
                )
        else:
            removed = ctx.releases.removed_later(ev.option)
            if removed:
                ctx.add(rules.PA_REMOVED_LATER, removed, at=at, setting=spec.dest)
        for kind, message in ev.errors:
            if kind == "choice":
                valid_in = ctx.releases.choice_valid_in(spec, ev.value)
                extra = f"; {ev.value!r} is valid in {valid_in}" if valid_in else ""
                ctx.add(
                    rules.PA_INVALID_CHOICE,
                    f"{redact_text(message)}{extra} (argparse exit 2)",
                    at=at,
                    setting=spec.dest,
                )
            elif kind == "choice?":
                ctx.add(
                    rules.PA_INVALID_CHOICE,
                    f"{redact_text(message)}, unless the flag's own converter (which argtrace cannot "
                    "reproduce) rewrites the value first",
                    at=at,
                    setting=spec.dest,
                    severity="warning",
                )
            elif kind == "invalid" and "Extra inputs are not permitted" in message:
                dataclass = schema.config_dataclass(spec.dest) or {}
                fields = set(dataclass.get("fields") or ())
                keys = re.findall(r"'([^']+)'", message.split("has no field", 1)[-1])
                hints = ctx.releases.key_hints(spec.dest, keys, fields)
                ctx.add(
                    rules.PA_UNKNOWN_JSON_KEY,
                    f"{redact_text(message)} (argparse exit 2)" + (f"; {hints}" if hints else ""),
                    at=at,
                    setting=spec.dest,
                )
            elif kind == "invalid":
                from argtrace.layers.parser.json_fixes import (
                    config_mapping_fix,
                    json_value_fix,
                    split_json_fix,
                )

                rule = (
                    rules.PA_INVALID_JSON
                    if (_json_valued(spec, schema) or "json" in message.lower())
                    else rules.PA_INVALID_VALUE
                )
                fix = (
                    (
                        config_mapping_fix(ctx, ev)
                        or split_json_fix(ctx, ev)
                        or json_value_fix(ev.raw[-1], message)
                    )
                    if rule is rules.PA_INVALID_JSON and ev.raw
                    else _one_word_per_value(spec, schema, ev.raw, message)
                )
                ctx.add(
                    rule, f"{scrub(ctx, spec, message)} (argparse exit 2)", at=at, setting=spec.dest, fix=fix
                )
            elif kind in ("retired", "raised"):
                pass
        dropped_keys(ctx, spec, ev, at)
        hyphenated_override_keys(ctx, spec, ev, at)
        if _json_valued(spec, schema) and ev.raw:
            json_duplicates(ctx, spec, ev, at)
            if not ev.errors and isinstance(ev.value, str) and ev.kind == "store":
                json_string(ctx, spec, ev, at)


def _one_word_per_value(spec: OptionSpec, schema: Any, raw: list[str], message: str) -> str | None:
    """The fix of a refused item of an option that takes several values (nargs '+'/'*') when the item holds
    several values in one word (`1,2,4`, or `1 2 4` quoted as one YAML list item): argparse converts each
    word on its own, so each value must be a word of its own. Only when every part converts."""
    import argparse

    from argtrace.layers.parser.build import option_converter

    if spec.nargs not in ("+", "*") or is_secret_flag(spec.flag or ""):
        return None
    refused = next((item for item in raw if f"{item!r}" in message), None)
    parts = [part for part in re.split(r"[,\s]+", refused.strip()) if part] if refused else []
    if len(parts) < 2:
        return None
    convert, known, _type = option_converter(spec, schema)
    if convert is None or not known:
        return None
    try:
        for part in parts:
            convert(part)
    except (argparse.ArgumentTypeError, TypeError, ValueError):
        return None
    shown = " ".join(parts[:4]) + (" ..." if len(parts) > 4 else "")
    return (
        f"give each value as a word of its own: {spec.flag} {shown} (in a YAML list, one item per value); "
        f"the flag takes several values and converts each word, and {refused!r} is one word"
    )


def scrub(ctx: ParseContext, spec: OptionSpec, message: str) -> str:
    flag = spec.flag
    if flag and is_secret_flag(flag):
        return f"argument {flag}: invalid value (secret, not shown)"
    return redact_text(message)


def help_replacement(ctx: ParseContext, spec: OptionSpec) -> str | None:
    """The flag a deprecated option's own words point to ("Use --x instead", "renamed to --x")."""
    text = " ".join(str(t) for t in (spec.deprecation_message, spec.help) if isinstance(t, str))
    pattern = (
        r"(?i)(?:use|instead|renamed to|replaced by|in favou?r of|alias (?:of|for))\s+'?"
        r"(--[a-z0-9][a-z0-9._-]*)"
    )
    for ref in re.findall(pattern, text):
        ref = ref.rstrip(".")
        base = ref.split(".", 1)[0]
        if ref not in spec.option_strings and ctx.schema.option(base) is not None:
            return ref
    return None


def duplicates(ctx: ParseContext, by_dest: dict[str, list[Event]]) -> None:
    rules = ctx.rules
    for dest, events in by_dest.items():
        stored = [
            e for e in events if e.stored and e.kind not in ("append", "append_const", "extend", "count")
        ]
        if len(stored) < 2:
            continue
        # vLLM's merged dotted keys are reported separately (PA021).
        if all(ctx.via(e.option_tok) == "dotted" for e in stored[1:]):
            continue
        winner = stored[-1]
        values = [intended(ctx, e) for e in stored]
        flag = winner.option or dest
        win_word = _word(ctx.server, ctx.tok(winner.option_tok))
        lost = stored[:-1]
        shown = ", ".join(
            # `--flag=value` is one word: its value follows the `=`, not a blank
            f"{(e.typed or e.option or '').partition('=')[0]}{'=' if '=' in (e.typed or '') else ' '}"
            f"{_show(flag, intended(ctx, e))}"
            if e.kind == "store"
            else (e.typed or "")
            for e in stored
        )
        same = all(v == values[-1] for v in values)
        caller = _from_caller(win_word) and not any(
            _from_caller(_word(ctx.server, ctx.tok(e.option_tok))) for e in lost
        )
        config = [e for e in stored if ctx.via(e.option_tok) == "config"]
        if caller:
            msg = (
                f"{flag} is set by the script and again by the caller's arguments "
                f"({win_word.origin.expansion if win_word else '$@'}): "
                f"{shown}; the caller's {_show(flag, values[-1])} wins and the script's own value "
                "is overridden"
            )
        elif not _from_caller(win_word) and any(
            _from_caller(_word(ctx.server, ctx.tok(e.option_tok))) for e in lost
        ):
            msg = (
                f"{flag} comes from the caller's arguments and again from the script after them "
                f"({shown}): the script's own {_show(flag, values[-1])} wins, so the caller cannot "
                "override it"
            )
        elif config and len(config) < len(stored):
            msg = (
                f"{flag} is set in the --config file and on the command line ({shown}); the command line wins"
            )
        else:
            msg = (
                f"{flag} is given {len(stored)} times ({shown}); argparse keeps the last, "
                f"{_show(flag, values[-1])}"
            )
        severity = "info" if (same or (config and len(config) < len(stored))) else None
        ctx.add(
            rules.PA_DUPLICATE,
            msg,
            at=ctx.at(winner.option_tok),
            setting=dest,
            severity=severity,
            evidence=[Evidence("shell", ctx.at(e.option_tok), e.typed or e.option or "") for e in stored],
        )
