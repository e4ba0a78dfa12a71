"""Values as the parser layer holds them: the Python equivalent of each schema ``type=`` converter
(SGLang's and vLLM's own converters live in ``frameworks/``), the lenient wrapper that turns a rejected
value into :class:`Invalid` instead of stopping, the placeholder for a word that cannot be known
statically, and the JSON form every value is reported in.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Mapping

from argtrace import safe_json
from argtrace.deferred_dataclass import dataclass as deferred
from argtrace.frameworks.argv import UNKNOWN_PREFIX
from argtrace.frameworks.schema import OptionSpec, Schema

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class _Unknown:
    """The value of a word that cannot be known statically."""

    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN = _Unknown()


@deferred(frozen=True)
class Invalid:
    """A value the real converter would reject (argparse: exit 2)."""

    raw: str
    message: str


def _python_converter(type_name: str | None, schema: Schema) -> tuple[Callable[[str], Any] | None, bool]:
    """(converter, known): the Python equivalent of a schema ``type`` name; unknown ones keep the string."""
    if type_name is None:
        return None, True
    simple: dict[str, Callable[[str], Any]] = {
        "int": int,
        "float": float,
        "str": str,
        "json.loads": safe_json.loads,
    }
    if type_name in simple:
        return simple[type_name], True
    m = re.fullmatch(r"(?P<outer>[^()]+?)\((?P<inner>.*)\)", type_name)
    if m:  # "pkg.optional_type.<locals>._optional_type(inner)" (closures, see gen_schemas)
        outer, inner_name = m.group("outer"), m.group("inner").split(", ")[0]
        inner, known = _python_converter(inner_name, schema)
        if outer.startswith("functools.partial"):
            return inner, known
        if outer.endswith(("._optional_type", "._parse_type", ".parse_dataclass")):
            from argtrace.frameworks import vllm

            if outer.endswith("._optional_type"):
                return vllm.optional_type(inner or str, schema.version), known
            if outer.endswith("._parse_type"):
                return vllm.parse_type(inner or str, schema.version), known
            return vllm.parse_dataclass_json, True
        return None, False
    if type_name.endswith(".parse_dataclass"):
        from argtrace.frameworks import vllm

        return vllm.parse_dataclass_json, True
    if schema.framework == "vllm" and type_name.endswith(".from_cli"):
        from argtrace.frameworks.vllm_from_cli import from_cli_converter

        found = from_cli_converter(type_name, schema.version)
        if found is not None:
            return found, True
    # the launched framework's converters first, then the other's; the other framework's module is
    # imported only when its converters are asked (an SGLang check never needs vLLM's: issue 18)
    first, second = ("sglang", "vllm") if schema.framework == "sglang" else ("vllm", "sglang")
    conv = _framework_converter(first, type_name) or _framework_converter(second, type_name)
    if conv is not None:
        return conv, True
    return None, False


def _framework_converter(framework: str, type_name: str) -> Callable[[str], Any] | None:
    if framework == "sglang":
        from argtrace.frameworks import sglang

        return sglang.converter(type_name)
    from argtrace.frameworks import vllm

    return vllm.converter(type_name)


def _infer_closure(spec: OptionSpec, schema: Schema) -> tuple[Callable[[str], Any] | None, bool]:
    """A converter for a vLLM closure the schema names without its inner type (``optional_type``,
    ``parse_type``), from what the schema does say: vLLM appends the converter's docstring or a JSON tip to
    the help text, choices are strings, and a default shows the field's type. Otherwise unknown."""
    from argtrace.frameworks import vllm

    t = spec.type or ""
    if t.endswith(".parse_dataclass"):
        return vllm.parse_dataclass_json, True
    help_text = spec.help or ""
    default = spec.default_value
    inner: Callable[[str], Any]
    if "Parse human-readable integers" in help_text:
        auto = "'auto'" in help_text or "-1 or" in help_text
        inner = vllm.human_readable_int_or_auto if auto else vllm.human_readable_int
    elif "API docs: https://docs.vllm.ai" in help_text and "/config/" in help_text:
        inner = vllm.parse_dataclass_json
    elif spec.dest in schema.json_flags or "valid JSON string" in help_text:
        inner = safe_json.loads
    elif spec.choices or isinstance(default, (bool, str)):
        inner = str
    elif isinstance(default, int):
        inner = int
    elif isinstance(default, float):
        inner = float
    else:
        return None, False
    if t.endswith("._optional_type"):
        return vllm.optional_type(inner, schema.version), True
    if t.endswith("._parse_type"):
        return vllm.parse_type(inner, schema.version), True
    return None, False


def _type_label(type_name: str | None) -> str:
    if not type_name:
        return "str"
    base = type_name.split("(", 1)[0].rsplit(".", 1)[-1]
    return {"loads": "json.loads"}.get(base, base)


@deferred(frozen=True)
class _ReprDefault:
    """A default the schema records only as its ``repr`` (an object no JSON holds), shown as that text."""

    data: Any

    def __repr__(self) -> str:
        return str(self.data.get("repr"))


# The sample of each JSON kind the converter generator tried on the real converter
# (scripts/gen_converter_types.py, ``non_object``).
_NON_OBJECT_SAMPLES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (bool, "true"),
    (int, "3"),
    (float, "1.5"),
    (type(None), "null"),
    (list, "[]"),
    (str, '"x"'),
)


def _non_object_refusal(value: Any, refusals: Any) -> str | None:
    """What the real converter said when the generator gave it a JSON value of ``value``'s kind (a number,
    a list...), first lines only (pydantic's own; vLLM 0.33.0: "Input should be an object"), or None when
    it took it or the generator did not try (a release whose converter data predates the probe)."""
    if not isinstance(refusals, Mapping):
        return None
    for kind, sample in _NON_OBJECT_SAMPLES:
        if isinstance(value, kind):
            said = refusals.get(sample)
            if not isinstance(said, str):
                return None
            lines = [line.strip() for line in said.splitlines() if line.strip()]
            kept = [line for line in lines if not line.startswith("For further information")]
            return " ".join(kept).replace(f"input_value={value_repr(sample)}", f"input_value={value!r}")
    return None


def value_repr(sample: str) -> str:
    """The ``input_value=`` pydantic printed for the generator's sample."""
    return repr(safe_json.loads(sample))


def _checked_fields(conv: Callable[[str], Any], dataclass: Mapping[str, Any]) -> Callable[[str], Any]:
    """A config-dataclass converter that treats unknown keys as pydantic does for that class: dropped
    (``extra="ignore"``) or rejected (``extra="forbid"``, the parser exits 2)."""
    fields = set(dataclass.get("fields") or ())
    extra = dataclass.get("extra") or "ignore"
    cls = str(dataclass.get("class") or "the config class").rsplit(".", 1)[-1]
    refusals = dataclass.get("non_object")

    def convert(text: str) -> Any:
        value = conv(text)
        if not isinstance(value, dict):
            refused = _non_object_refusal(value, refusals)
            if refused is not None:
                raise argparse.ArgumentTypeError(refused)
            return value
        unknown = sorted(k for k in value if k not in fields)
        if not unknown:
            return value
        if extra == "forbid":
            raise argparse.ArgumentTypeError(
                f"{cls} has no field {', '.join(map(repr, unknown))} (Extra inputs are not permitted)"
            )
        if extra == "ignore":
            return {k: v for k, v in value.items() if k in fields}
        return value

    return convert


def _lenient(conv: Callable[[str], Any] | None, spec: OptionSpec) -> Callable[[str], Any]:
    label = _type_label(spec.type)

    def convert(text: str) -> Any:
        if text.startswith(UNKNOWN_PREFIX):
            return UNKNOWN
        if conv is None:
            return str(text)
        try:
            return conv(str(text))
        except argparse.ArgumentTypeError as exc:
            return Invalid(str(text), str(exc))
        except (TypeError, ValueError) as exc:
            if isinstance(exc, json.JSONDecodeError) or label == "json.loads":
                return Invalid(str(text), f"invalid {label} value: {str(text)!r} ({exc})")
            return Invalid(str(text), f"invalid {label} value: {str(text)!r}")

    convert.__name__ = label
    return convert


def _jsonable(value: Any) -> Any:
    if value is UNKNOWN:
        return None
    if isinstance(value, Invalid):
        return value.raw
    if isinstance(value, _ReprDefault):
        return value.data.get("repr")
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def _contains_unknown(value: Any) -> bool:
    if value is UNKNOWN:
        return True
    if isinstance(value, (list, tuple)):
        return any(_contains_unknown(v) for v in value)
    if isinstance(value, dict):
        return any(_contains_unknown(v) for v in value.values())
    if isinstance(value, str) and UNKNOWN_PREFIX in value:
        return True
    return False
