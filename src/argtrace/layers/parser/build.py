"""Building a real ``argparse.ArgumentParser`` from a schema: one recording action per option, with the
schema's option strings, nargs, choices, defaults and constants, and the Python converter of its ``type=``
(cached per schema: a parser is built once per release and reused).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from argtrace.frameworks.actions import registered_options
from argtrace.frameworks.schema import OptionSpec, Schema
from argtrace.layers.parser.recording import _AnyChoices, _HelpExit, _Parser, _Recorder
from argtrace.layers.parser.values import (
    _checked_fields,
    _infer_closure,
    _lenient,
    _python_converter,
    _ReprDefault,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _negatives(spec: OptionSpec, strings: Sequence[str] | None = None) -> frozenset[str]:
    attrs = spec.raw.get("action_attrs") or {}
    recorded = attrs.get("negative_option_strings")
    if isinstance(recorded, list):
        return frozenset(str(s) for s in recorded)
    if isinstance(recorded, dict) and isinstance(recorded.get("repr"), str):
        return frozenset(re.findall(r"'(-[^']+)'", recorded["repr"]))
    strings = tuple(strings if strings is not None else spec.option_strings)
    neg = {s for s in strings if s.startswith("--no-")}
    if strings:
        first = strings[0]
        for pos, inv in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
            if first.startswith(pos):
                neg |= {s for s in strings if s.startswith(inv)}
    return frozenset(neg)


def _const_for(spec: OptionSpec, kind: str) -> Any:
    if kind == "store_true":
        return True
    if kind == "store_false":
        return False
    if kind == "store_const" and spec.action == "DeprecatedStoreTrueAction":
        return True
    if kind == "store_const":
        attrs = spec.raw.get("action_attrs") or {}
        if "const_value" in attrs:
            return attrs["const_value"]
        probe = spec.raw.get("probe") or {}
        if "stored" in probe and spec.const is None:
            return probe["stored"]
    return spec.const


@dataclass(frozen=True)
class BuiltParser:
    """A release's argument parser rebuilt from its schema, and the destinations whose value converter is
    not reproduced (their values stay strings)."""

    parser: _Parser
    unknown: frozenset[str]  # the positionals' dests whose converter is not reproduced (made at once)

    @property
    def unknown_converters(self) -> frozenset[str]:
        """Dests whose converter is not reproduced (value kept as a string): every option's converter is
        made here, as a parse makes those of the options it meets."""
        options = {a.dest for a in self.parser._actions if isinstance(a, _Recorder) and not a.exact}
        return self.unknown | options


def option_converter(spec: OptionSpec, schema: Schema) -> tuple[Any, bool, str | None]:
    """The converter the parser gives the option's values, whether it reproduces the framework's, and the
    type's name with the inner converter a generator recorded beside it (``parse_type(loads)``); for a vLLM
    closure named without one, the converter inferred from its help text and default."""
    type_name = spec.type
    inner = spec.raw.get("type_inner") or spec.raw.get("type_closure") or spec.raw.get("type_args")
    if type_name and "(" not in type_name and inner:
        inner_names = [inner] if isinstance(inner, str) else [str(i) for i in inner if i]
        type_name = f"{type_name}({', '.join(inner_names)})"
    conv, known = _python_converter(type_name, schema)
    if not known and spec.type:
        conv, known = _infer_closure(spec, schema)
    return conv, known, type_name


@functools.lru_cache(maxsize=16)
def build_parser(schema: Schema, without: tuple[str, ...] = ()) -> BuiltParser:
    """A real argparse parser with the schema's options (help text suppressed: it is not needed), less
    the positionals (by dest) and options (by first option string) ``without`` names: an entry point
    whose parser lacks them (``PreparedArgv.without``)."""
    from argtrace.help_format import HelpFormatter  # argparse's, without importing shutil (issue 18)

    parser = _Parser(
        prog=str(schema.parser_info.get("prog") or schema.framework),
        allow_abbrev=schema.allow_abbrev,
        prefix_chars=schema.prefix_chars,
        add_help=False,
        formatter_class=HelpFormatter,
    )
    unknown: set[str] = set()
    for spec, kind, registered in registered_options(schema):
        if (spec.option_strings[0] if spec.option_strings else spec.dest) in without:
            continue
        strings = list(registered)
        if kind in ("help", "version"):
            parser.add_argument(*strings, action=_HelpExit, spec=spec, dest=spec.dest)
            continue
        kwargs: dict[str, Any] = {
            "action": _Recorder,
            "spec": spec,
            "kind": kind,
            "real_choices": list(spec.choices) if spec.choices is not None else None,
            "negatives": _negatives(spec, strings) if kind == "BooleanOptionalAction" else frozenset(),
            "default": _ReprDefault(spec.default) if spec.default_is_repr else spec.default_value,
        }
        if kind in ("store", "append", "extend", "lora", "store_fixed"):
            kwargs["nargs"] = spec.nargs
            if spec.nargs == "?":
                kwargs["const"] = spec.const
        elif kind == "BooleanOptionalAction":
            kwargs["nargs"] = 0
        else:
            kwargs["nargs"] = 0 if spec.nargs in (None, 0) else spec.nargs
            kwargs["const"] = _const_for(spec, kind)
        takes_values = kwargs.get("nargs") != 0
        if takes_values and spec.choices is not None:
            kwargs["choices"] = _AnyChoices(spec.choices)
        if kwargs.get("nargs") is None:
            kwargs.pop("nargs")
        if spec.option_strings:
            # What add_argument does, minus its per-call help-formatter check (a third of the build time).
            kwargs.pop("action")
            kwargs["converter"] = functools.partial(_converter, spec, schema, takes_values)
            parser._add_action(_Recorder(strings, spec.dest, **kwargs))
        else:
            conv, known = _converter(spec, schema, takes_values)
            if not known:
                unknown.add(spec.dest)
            kwargs["exact"] = known
            if takes_values:
                kwargs["type"] = conv
            kwargs.pop("const", None) if kwargs.get("nargs") != "?" else None
            parser.add_argument(spec.dest, **kwargs)
    return BuiltParser(parser, frozenset(unknown))


def _converter(spec: OptionSpec, schema: Schema, takes_values: bool) -> tuple[Any, bool]:
    """(the ``type=`` argparse gets for the option, None when it takes no value; whether the converter is
    the framework's own)."""
    conv, known, _ = option_converter(spec, schema)
    dataclass = schema.config_dataclass(spec.dest)
    if conv is not None and dataclass is not None:
        conv = _checked_fields(conv, dataclass)
    return (_lenient(conv, spec) if takes_values else None), known
