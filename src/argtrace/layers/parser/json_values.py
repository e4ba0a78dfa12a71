"""Flags whose value is JSON: keys their config class drops or rejects, a JSON string the server decodes
only later, keys given twice in one value, and vLLM's dotted keys (``--x.key``) replacing a whole JSON
value; also how a JSON value is flattened into one setting per key. The fix a refused JSON value names
is ``json_fixes.py``'s.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping

from argtrace import safe_json
from argtrace.frameworks.argv import UNKNOWN_PREFIX
from argtrace.frameworks.schema import OptionSpec, Schema
from argtrace.layers.parser.context import (
    ParseContext,
    _show,
)
from argtrace.layers.parser.recording import Event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _json_valued(spec: OptionSpec, schema: Schema) -> bool:
    """A flag whose value is JSON: the schema says so (its type decodes JSON, or the framework's code
    ``json.loads`` the field), or a string flag named ``json_*`` / documented as JSON with a JSON default."""
    if spec.dest in schema.json_flags:
        return True
    if spec.type not in (None, "str"):
        return False
    if spec.dest.startswith("json_"):
        return True
    default = spec.default_value
    return bool(
        spec.help and "JSON" in spec.help and isinstance(default, str) and default.strip()[:1] in ("{", "[")
    )


def _is_config_json(ev: Event) -> bool:
    return isinstance(ev.value, dict)


def _flatten(value: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out: list[tuple[tuple[str, ...], Any]] = []
    for k, v in value.items():
        path = (*prefix, str(k))
        if isinstance(v, dict) and v:
            out.extend(_flatten(v, path))
        else:
            out.append((path, v))
    return out


def dropped_keys(ctx: ParseContext, spec: OptionSpec, ev: Event, at: str | None) -> None:
    """Keys of a JSON config flag that its config class does not have and silently drops."""
    dataclass = ctx.schema.config_dataclass(spec.dest)
    if dataclass is None or (dataclass.get("extra") or "ignore") != "ignore" or not ev.raw:
        return
    from argtrace.frameworks import vllm

    try:
        value = vllm.parse_dataclass_json(ev.raw[-1])
    except (argparse.ArgumentTypeError, ValueError, TypeError):
        return
    if not isinstance(value, dict):
        return
    fields = set(dataclass.get("fields") or ())
    unknown = sorted(k for k in value if k not in fields)
    if unknown:
        cls = str(dataclass.get("class") or "").rsplit(".", 1)[-1]
        hints = ctx.releases.key_hints(spec.dest, unknown, fields)
        ctx.add(
            ctx.rules.PA_UNKNOWN_JSON_KEY,
            f"{ev.option}: {cls} in {ctx.schema.label} has no field {', '.join(map(repr, unknown))}; "
            "the key is dropped without a word" + (f" ({hints})" if hints else ""),
            at=at,
            setting=spec.dest,
        )


def json_string(ctx: ParseContext, spec: OptionSpec, ev: Event, at: str | None) -> None:
    """A JSON flag the parser keeps as a string (SGLang's --json-model-override-args): the server
    decodes it later, after parsing, and stops there if it is not JSON."""
    text = ev.value
    if not text.strip() or UNKNOWN_PREFIX in text:
        return
    try:
        safe_json.loads(text)
    except ValueError as exc:
        from argtrace.layers.parser.json_fixes import json_value_fix

        ctx.add(
            ctx.rules.PA_INVALID_JSON,
            f"{ev.option} {_show(ev.option, text)!r} is not valid JSON ({exc.msg} at column {exc.pos + 1}"
            if isinstance(exc, json.JSONDecodeError)
            else f"{ev.option} {_show(ev.option, text)!r} is not valid JSON ({exc}",
            at=at,
            setting=spec.dest,
            # what the value shows (quotes that reached the parser, a Python literal...) decides the repair;
            # the rule's own fix (single quotes for the shell) holds otherwise (gpustack#2822)
            fix=json_value_fix(text),
        )
        # The message above is completed here so that both branches read the same.
        last = ctx.result.findings[-1]
        from dataclasses import replace

        ctx.result.findings[-1] = replace(
            last,
            message=last.message + "); the parser keeps the string and the server fails when it decodes it",
        )


def json_duplicates(ctx: ParseContext, spec: OptionSpec, ev: Event, at: str | None) -> None:
    for raw in ev.raw:
        dups: list[str] = []

        def hook(pairs: list[tuple[str, Any]], dups: list[str] = dups) -> dict[str, Any]:
            seen: set[str] = set()
            for k, _v in pairs:
                if k in seen:
                    dups.append(k)
                seen.add(k)
            return dict(pairs)

        try:
            safe_json.loads(raw, object_pairs_hook=hook)
        except (ValueError, TypeError):
            continue
        if dups:
            ctx.add(
                ctx.rules.PA_JSON_OVERRIDE,
                f"{ev.option}: key(s) {', '.join(sorted(set(dups)))} appear twice in the JSON value; "
                "the last one silently wins",
                at=at,
                setting=spec.dest,
            )


def hyphenated_override_keys(ctx: ParseContext, spec: OptionSpec, ev: Event, at: str | None) -> None:
    """vLLM's --hf-overrides: each top-level key is set on the model's Hugging Face configuration as written
    (``config.update`` for a plain value, vllm/transformers_utils/config.py get_config; ``setattr`` for a
    mapping, vllm/config/model.py ModelConfig._apply_dict_overrides; 0.11.2 and 0.33.0 alike). Fields are
    Python attribute names, so a key with a hyphen is an attribute no code reads: the override is lost
    (PA058). Keys inside a mapping value are the mapping's own (label names need not be identifiers)."""
    if ctx.schema.framework != "vllm" or spec.dest != "hf_overrides" or not isinstance(ev.value, dict):
        return
    lost = [k for k in ev.value if isinstance(k, str) and "-" in k]
    if not lost:
        return
    shown = ", ".join(repr(k) for k in lost)
    fields = ", ".join(k.replace("-", "_") for k in lost)
    ctx.add(
        ctx.rules.PA_HF_OVERRIDE_KEY_LOST,
        f"{ev.option}: {ctx.schema.label} sets the key{'' if len(lost) == 1 else 's'} {shown} on the model's "
        "configuration as written, "
        "and a configuration field is a Python name without a hyphen: nothing reads "
        f"{'it' if len(lost) == 1 else 'them'}, so the override is lost without a word",
        at=at,
        setting=spec.dest,
        fix=f"write {fields} (the field as the model's config.json spells it)",
    )


def dotted_overrides(ctx: ParseContext) -> None:
    """vLLM appends merged dotted keys at the end: an earlier whole-JSON value of the flag is replaced."""
    if not ctx.prepared.dotted:
        return
    flags = {p.flag for p in ctx.prepared.dotted}
    for flag in flags:
        events = [e for e in ctx.outcome.events if e.option == flag or (e.spec.flag == flag)]
        whole = [e for e in events if ctx.via(e.option_tok) != "dotted"]
        if whole and events and events[-1] not in whole:
            lost = whole[-1]
            ctx.add(
                ctx.rules.PA_JSON_OVERRIDE,
                f"{flag} is given as a whole JSON value and as dotted keys ({flag}.KEY): vLLM merges the "
                f"dotted keys into a new JSON value appended at the end of argv, which replaces "
                f"{_show(flag, lost.raw[0] if lost.raw else '')} entirely",
                at=ctx.at(lost.option_tok),
                setting=lost.spec.dest,
                fix=f"put every key in one place: either the JSON value or {flag}.KEY words",
            )
