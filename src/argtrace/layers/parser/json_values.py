"""Flags whose value is JSON: keys their config class drops or rejects, a JSON string the server decodes
only later, keys given twice in one value, and vLLM's dotted keys (``--x.key``) replacing a whole JSON
value; also how a JSON value is flattened into one setting per key.
"""

from __future__ import annotations

import argparse
import json
import re
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


def _malformed_with_quotes(value: str) -> str | None:
    """A JSON object or list whose double quotes reached the parser and that is still refused: the shell
    kept the quotes, so single quotes (the rule's fix) change nothing; the JSON itself is broken where
    ``json.loads`` stops, often a part an unset variable left empty (`"n":${N}}` -> `"n":}`)."""
    import json

    if not value.startswith(("{", "[")) or '"' not in value:
        return None
    try:
        safe_json.loads(value)  # the user's value: nested 10^4 deep is a decoding error, not a crash
    except json.JSONDecodeError as e:
        near = value[max(e.pos - 12, 0) : e.pos + 1]
        return (
            f"the double quotes reached the server, so quoting is not what is wrong: the JSON breaks at "
            f"character {e.pos + 1} ({e.msg}: `{near}`); a part a variable makes is empty when the variable "
            "is not set"
        )
    return None


def config_mapping_fix(ctx: ParseContext, ev: Event) -> str | None:
    """The fix of a JSON flag's refusal of a word that vLLM's ``--config`` file reader made from a YAML
    mapping: a release whose load_config_file ends in ``str(value)`` hands the flag the mapping's Python
    repr (frameworks/vllm_config_file.py), which no written quoting repairs. None for any other word."""
    import ast

    from argtrace.frameworks.vllm_config_file import first_json_release, mapping_word

    tok = ctx.tok(ev.value_toks[-1]) if ev.value_toks else None
    key = ctx.tok(ev.value_toks[-1] - 1) if ev.value_toks else None
    if tok is None or tok.via != "config" or not tok.text or key is None or not key.text:
        return None
    try:
        value = ast.literal_eval(tok.text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    word = mapping_word(ctx.schema.version)
    if not isinstance(value, dict) or word is None or word.mapping != "repr":
        return None
    newer = first_json_release()
    name = (key.original or key.text).removeprefix("--")
    return (
        f"in {tok.at or 'the config file'}, write {name} as a JSON string in single quotes "
        f"({name}: '{json.dumps(value)}'): {ctx.schema.label} turns a YAML mapping into its Python repr "
        f"(str(value), load_config_file at {word.at}), which json.loads refuses"
        + (f"; vllm {newer} and later pass a mapping as JSON" if newer else "")
    )


def _depth(text: str) -> int:
    """How many JSON brackets ``text`` opens and leaves open (negative when it closes more)."""
    return sum(text.count(c) for c in "{[") - sum(text.count(c) for c in "}]")


def split_json_fix(ctx: ParseContext, ev: Event) -> str | None:
    """The fix of a JSON flag's refusal of a word that opens a JSON object the next words close: the shell
    split an unquoted JSON at its blanks and removed its double quotes (``--mm-processor-kwargs
    {"max_pixels": $MAX_PIXELS}`` gives the flag ``{max_pixels:`` and leaves ``1003520}`` over, vllm#27981).
    The JSON must be one quoted word; when it holds a variable, single quotes would keep ``$NAME`` as
    written, so the fix is double quotes with the inner ones escaped. None when the value is whole."""
    last = ev.value_toks[-1] if ev.value_toks else None
    tok = ctx.tok(last)
    if last is None or tok is None or not tok.text or tok.text[:1] not in "{[" or _depth(tok.text) <= 0:
        return None
    written: list[str] = []
    depth, i = 0, last
    while True:
        part = ctx.tok(i)
        if part is None or part.text is None or (i > last and part.text.startswith("--")):
            return None
        word = ctx.word(i)
        expansion = word.origin.expansion if word is not None else None
        written.append(expansion if expansion and expansion != "literal" and "$" in expansion else part.text)
        depth += _depth(part.text)
        if depth <= 0:
            break
        i += 1
    if depth < 0:
        return None
    source = " ".join(written)
    names = sorted(set(re.findall(r"\$\{?([A-Za-z_]\w*)", source)))
    # the keys the shell took the double quotes from, quoted again (values are kept as written)
    shaped = re.sub(r"([{,]\s*)([A-Za-z_][\w.-]*)(\s*:)", r'\1"\2"\3', source)
    try:
        safe_json.loads(re.sub(r"\$(?:\{[A-Za-z_]\w*\}|[A-Za-z_]\w*)", "0", shaped) if names else shaped)
    except ValueError:
        shaped = ""
    count = f"{i - last + 1} words"
    if names:
        variables = ", ".join("$" + n for n in names)
        form = '"' + shaped.replace("\\", "\\\\").replace('"', '\\"') + '"' if shaped else None
        return (
            f"the shell split the JSON at its blanks ({count}) and removed its double quotes: write it as "
            f"one word, in double quotes with the inner ones escaped, since it holds {variables} (single "
            "quotes would keep it as written)" + (f": {form}" if form else "")
        )
    return (
        f"the shell split the JSON at its blanks ({count}) and removed its double quotes: write it as one "
        "word in single quotes" + (f": '{shaped}'" if shaped else "")
    )


def _python_literal(value: str) -> Any:
    """The dict or list a Python literal that is not JSON spells (single-quoted strings, True/None); None
    for anything else."""
    import ast

    if value[:1] not in ("{", "[") or len(value) > 100_000:
        return None
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    try:
        safe_json.loads(value)
    except ValueError:
        return parsed if isinstance(parsed, (dict, list)) else None
    return None


def json_value_fix(text: str, message: str = "") -> str | None:
    """How to repair a value a JSON flag refused, read from what the value shows (and the refusal);
    None when it shows nothing particular (the rule's fix, single quotes that keep the double quotes,
    applies then)."""
    value = text.strip()
    refused = re.search(r"validation error for (\w+) Input should be an object", message)
    if refused:
        # valid JSON, but not an object: the config class's validator wants its fields by name
        # (gateway-api-inference-extension#2243: `--compilation-config 3`)
        return (
            f"give {refused.group(1)} a JSON object of its fields in single quotes ('{{\"field\": value}}'), "
            f"not {value!r}"
        )
    level = re.fullmatch(r"-?O(\d)", value)
    if level and "--compilation-config" in message:
        # `--compilation-config O1`: a launcher split vLLM's `-O1` into a flag and a word
        # (auto-tuning-vllm#76); the shorthand is one word, the long flag takes a JSON object
        return (
            f"write -O{level.group(1)} as one word (vLLM's shorthand for the compilation level), not "
            f"--compilation-config {value}: the long flag takes a JSON object"
        )
    if '\\"' in value:
        # `'{\"a\":1}'`: a backslash escapes only inside double quotes; single quotes (and YAML or JSON list
        # items) hand it to the parser as written
        return (
            "remove the backslashes before the double quotes: they reach the parser as written (inside "
            "single quotes the shell keeps them)"
        )
    if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"" and value[1:2] in ("{", "["):
        # quoted twice (`"'{...}'"`) or quotes an expansion made (`$(printf "'{...}'")`, a variable): the
        # shell removes only the quotes written on the command line, so advising single quotes would not help
        return (
            f"remove the {value[0]} characters around the value where it is made: they reach the server (the "
            "shell removes only the quotes written on the command line, not those written twice or produced "
            "by an expansion such as $(printf ...) or a variable)"
        )
    if value.startswith("{{") and value.endswith("}}"):
        # a template's escaped braces (Python format strings, Jinja) that reached the command line as written
        return "write single braces: the doubled braces are a template's escape that reached the command line"
    broken = _malformed_with_quotes(value)
    if broken:
        return broken
    literal = _python_literal(value)
    if literal is not None:
        # `{'k': [1, 2]}`: a Python literal (what str(dict) prints, or vLLM 0.6-0.8's docs for
        # --compilation-config, which ast.literal_eval read there): the same object written as JSON
        return (
            "write it as JSON, double quotes inside and single quotes around: "
            f"'{json.dumps(literal, separators=(', ', ': '))}'"
        )
    if value and value[0] not in '{["' and re.fullmatch(r"[\w.-]+=[^,]*(?:,[\w.-]+=[^,]*)*", value):
        return (
            "this release takes JSON here, not key=value pairs: write them as one JSON object in single "
            "quotes"
        )
    return None


_BARE_KEY = re.compile(r"([{,]\s*)([A-Za-z_][\w.-]*)(\s*:)")
_BARE_WORD = re.compile(r"(:\s*)([A-Za-z_][\w.-]*)(\s*[,}])")


def bare_keys_json(value: str) -> str | None:
    """The JSON object a ``{key: value, ...}`` without double quotes means (its keys and word values quoted;
    true, false and null kept), or None when the value is not such an object. ``check`` knows what the
    script wrote (PA011's own fix, single quotes, stands there); ``why`` sees only what reached the server
    (why_fixes.converter_fix)."""
    if not (value.startswith("{") and value.endswith("}")) or '"' in value or "'" in value:
        return None
    if _BARE_KEY.search(value) is None:
        return None
    keyed = _BARE_KEY.sub(r'\1"\2"\3', value)

    def word(m: re.Match[str]) -> str:
        w = m.group(2)
        return m.group(0) if w in ("true", "false", "null") else f'{m.group(1)}"{w}"{m.group(3)}'

    quoted = _BARE_WORD.sub(word, keyed)
    try:
        safe_json.loads(quoted)  # the user's value: depth-limited like every other reading of it
    except ValueError:
        return None
    return quoted
