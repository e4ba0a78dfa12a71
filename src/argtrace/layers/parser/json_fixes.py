"""The fix a JSON-valued flag's refusal names: the shell split an unquoted JSON at its blanks, a Python
literal or key=value pairs where JSON is wanted, keys without double quotes, the quotes kept yet the JSON
broken, a YAML mapping vLLM's config reader turned into its repr. Apart from ``json_values.py`` (the
findings on JSON values that parse), so a check whose values all parse does not load them (code35).
"""

from __future__ import annotations

import json
import re

from argtrace import safe_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.parser.context import ParseContext
    from argtrace.layers.parser.recording import Event


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
