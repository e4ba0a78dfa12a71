"""pydantic's ValidationError on one of vLLM's config classes: the field it names is a flag's.

vLLM's configuration classes (``CacheConfig``, ``LoRAConfig``, ``ModelConfig``, ...) are pydantic dataclasses,
and since 2025 their fields carry constraints pydantic checks itself (``Field(gt=0)``, a ``Literal`` of
allowed values). A refused value then prints pydantic's words, not vLLM's::

    pydantic_core._pydantic_core.ValidationError: 1 validation error for LoRAConfig
    max_lora_rank
      Input should be 1, 8, 16, 32, 64, 128, 256, 320 or 512 [type=literal_error, input_value=48, ...]

No vLLM raise site holds those words, so ``why`` found nothing (vllm-omni PR#1397) or a site sharing "greater
than 0" (vllm PR#44233's ``num_gpu_blocks_override``, matched to a LoRA id check). The class and the field
are named in the text, and vLLM's parser builds its options from those classes: each bundled schema option
records the class (its argument group) and the field (its dest). So the field is tied to its flag, the
releases whose parser has it, the value refused (``input_value``) and the rule (pydantic's own sentence);
the fix is that rule applied to that flag (for a list of allowed values, the smallest one that holds the
value). A model-level validator's "Value error, ..." (no field line) is vLLM's own message: the message
index matches it, not this reading.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_HEADER = re.compile(r"\b(?P<count>\d+) validation errors? for (?P<cls>[A-Za-z_]\w{0,100})\b")
# one error: the field's location (dotted for a nested model), then pydantic's sentence and its details
_FIELD = re.compile(r"^(?P<loc>[A-Za-z_][\w.]{0,200})$")
_RULE = re.compile(
    r"^(?P<rule>[A-Z][^\[]{0,300}?)\s*\[type=(?P<type>\w+)(?:,\s*input_value=(?P<value>.*?))?(?:,\s*input_type=\w+)?"
    r"(?:,\s*\.\.\.)?\]?$"
)
_MODEL_LEVEL = frozenset({"value_error", "assertion_error"})  # a validator's own message: the index's
_PREFIX = re.compile(r"^(?:E\s+|\(\w+(?: [\w]+=[\w.]+)*\)\s+)")
_NAME = {"vllm": "vLLM", "sglang": "SGLang"}


def _lines(text: str) -> list[str]:
    from argtrace.layers.log.messages import strip_prefixes

    out = []
    for raw in text.splitlines():
        line = _PREFIX.sub("", raw.strip()).strip()
        # the header line keeps its own words (strip_prefixes would drop "ValidationError: ")
        out.append(line if _HEADER.search(line) else strip_prefixes(line))
    return out


def field_errors(text: str) -> list[dict[str, str]]:
    """Each field error of pydantic ValidationErrors in ``text``: the class, the field (its location), the
    rule (pydantic's sentence), the error type and the refused value as printed."""
    lines = _lines(text)
    found: list[dict[str, str]] = []
    cls = None
    for n, line in enumerate(lines):
        header = _HEADER.search(line)
        if header:
            cls = header.group("cls")
            continue
        if cls is None or not _FIELD.match(line) or n + 1 >= len(lines):
            continue
        rule = _RULE.match(lines[n + 1])
        if rule is None or rule.group("type") in _MODEL_LEVEL:
            continue
        value = (rule.group("value") or "").strip()
        found.append(
            {
                "class": cls,
                "field": line,
                "rule": rule.group("rule").strip().rstrip(","),
                "type": rule.group("type"),
                "value": value[1:-1] if len(value) > 1 and value[0] == value[-1] == "'" else value,
            }
        )
    return found


def _flag_of(framework: str, cls: str, field: str) -> tuple[str | None, list[str], tuple[str, ...]]:
    """The flag whose option is ``cls``'s field ``field`` (the parser's group and dest), the bundled
    releases whose parser has it, and all bundled releases."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    releases = tuple(bundled_versions(framework, include_user=False))
    dest = field.split(".", 1)[0]  # a nested location (``a.b``) is the top-level field's option
    flag, knowing = None, []
    for version in releases:
        for option in load_schema(framework, version).options:
            long = [o for o in option.option_strings if o.startswith("--")]
            if long and option.dest == dest and getattr(option, "group", None) == cls:
                knowing.append(version)
                flag = long[0]
                break
    return flag, knowing, releases


_ALLOWED = re.compile(r"^Input should be (?P<items>.+?)$")


def _allowed(rule: str) -> list[str]:
    """The values a ``literal_error``'s sentence lists ("Input should be 1, 8, 16 or 512")."""
    m = _ALLOWED.match(rule)
    if m is None:
        return []
    items = re.split(r",\s*|\s+or\s+", m.group("items"))
    return [i.strip().strip("'\"") for i in items if i.strip()]


def _number(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def _change(flag: str, error: Mapping[str, str]) -> str:
    """The fix: pydantic's rule applied to the flag."""
    value, rule = error["value"], error["rule"]
    was = f" (it was {value})" if value else ""
    allowed = _allowed(rule) if error["type"] == "literal_error" else []
    if allowed:
        wanted = _number(value)
        numbers = [(_number(a), a) for a in allowed]
        above = sorted((n, a) for n, a in numbers if n is not None and wanted is not None and n >= wanted)
        pick = f"; the smallest that holds {value} is {above[0][1]}" if above else ""
        return f"set {flag} to one of {', '.join(allowed)}{was}{pick}"
    bound = rule[len("Input should be ") :] if rule.startswith("Input should be ") else rule
    return f"give {flag} a value that is {bound}{was}, or leave {flag} unset for its default"


def validation_error(text: str, framework: str | None = None) -> dict[str, Any] | None:
    """The first field error of a pydantic ValidationError in ``text``, tied to its flag when the class is
    one of the frameworks' config classes: ``class``, ``field``, ``rule``, ``value``, ``meaning``, ``fix``
    and, with a flag, ``framework``, ``flag``, ``releases``; None without a field error."""
    errors = field_errors(text)
    if not errors:
        return None
    error = errors[0]
    cls, field = error["class"], error["field"]
    head = (
        f"pydantic's ValidationError: {cls}.{field} refused {error['value'] or 'the value'} "
        f"({error['rule']}, type {error['type']})"
    )
    for fw in (framework,) if framework in _NAME else ("vllm", "sglang"):
        flag, knowing, releases = _flag_of(fw, cls, field)
        if flag is None:
            continue
        from argtrace.commands.why_call import _spans

        return {
            **error,
            "framework": fw,
            "flag": flag,
            "releases": knowing,
            "meaning": f"{head}; {_NAME[fw]} {_spans(releases, knowing)} set {cls}.{field} from {flag}",
            "fix": _change(flag, error),
            "basis": "schema",
        }
    return {
        **error,
        "meaning": f"{head}; no bundled SGLang or vLLM release's parser has an option for {cls}.{field}: not "
        "a flag of theirs (another program's class, or a value its code or a file sets)",
        "fix": f"give {cls}.{field} a value that satisfies the rule where the program sets it",
        "basis": "schema",
    }


def keep_own_sites(groups: Sequence[dict[str, Any]], strong_chars: int) -> list[dict[str, Any]]:
    """With a field error read: a site sharing a few of pydantic's words ("greater than 0") is not it."""
    return [g for g in groups if int(g.get("specificity") or 0) >= strong_chars and g.get("how") == "full"]


def render_validation(section: Mapping[str, Any]) -> list[str]:
    found = section.get("validation")
    if not found:
        return []
    return [f"pydantic: {found['meaning']}", f"  fix: {found['fix']}"]
