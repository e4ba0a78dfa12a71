"""The parser layer: what the framework's argument parser makes of the server's argv.

A real ``argparse.ArgumentParser`` is rebuilt from the bundled schema of the analysed release (same option
strings, nargs, choices, ``allow_abbrev``, prefix chars), after the framework's own argv rewrites
(``frameworks/sglang.py``, ``frameworks/vllm.py``). Its actions record which option string matched, what
the user typed and which argv words were consumed; type conversion and choices are checked leniently so
that one bad value does not hide the next, and argparse's own hard errors (a missing value, an ambiguous
abbreviation) are turned into findings before parsing again without the offending word.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from argtrace.frameworks.argv import UNKNOWN_PREFIX, ArgToken, PreparedArgv
from argtrace.frameworks.schema import OptionSpec, Schema, schemas_for, version_key
from argtrace.model import Evidence, LayerResult, Observation, ServerCommand, Word
from argtrace.redact import is_secret_flag, mask, redact_argv, redact_text

# --------------------------------------------------------------------------------------- conversions


class _Unknown:
    """The value of a word that cannot be known statically."""

    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN = _Unknown()


@dataclass(frozen=True)
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
        "json.loads": json.loads,
    }
    if type_name in simple:
        return simple[type_name], True
    from argtrace.frameworks import sglang, vllm

    m = re.fullmatch(r"(?P<outer>[^()]+?)\((?P<inner>.*)\)", type_name)
    if m:  # "pkg.optional_type.<locals>._optional_type(inner)" (closures, see gen_schemas)
        outer, inner_name = m.group("outer"), m.group("inner").split(", ")[0]
        inner, known = _python_converter(inner_name, schema)
        if outer.startswith("functools.partial"):
            return inner, known
        if outer.endswith("._optional_type"):
            return vllm.optional_type(inner or str), known
        if outer.endswith("._parse_type"):
            return vllm.parse_type(inner or str), known
        if outer.endswith(".parse_dataclass"):
            return vllm.parse_dataclass_json, True
        return None, False
    if type_name.endswith(".parse_dataclass"):
        return vllm.parse_dataclass_json, True
    adapter = sglang if schema.framework == "sglang" else vllm
    conv = adapter.converter(type_name) or (vllm if adapter is sglang else sglang).converter(type_name)
    if conv is not None:
        return conv, True
    return None, False


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
        inner = json.loads
    elif spec.choices or isinstance(default, (bool, str)):
        inner = str
    elif isinstance(default, int):
        inner = int
    elif isinstance(default, float):
        inner = float
    else:
        return None, False
    if t.endswith("._optional_type"):
        return vllm.optional_type(inner), True
    if t.endswith("._parse_type"):
        return vllm.parse_type(inner), True
    return None, False


def _type_label(type_name: str | None) -> str:
    if not type_name:
        return "str"
    base = type_name.split("(", 1)[0].rsplit(".", 1)[-1]
    return {"loads": "json.loads"}.get(base, base)


# ------------------------------------------------------------------------------------ argparse pieces


class _Tok(str):
    """An argv string that remembers its token index through argparse's ``split``/slicing."""

    idx: int
    typed: str

    def __new__(cls, text: str, idx: int, typed: str | None = None) -> _Tok:
        obj = str.__new__(cls, text)
        obj.idx = idx
        obj.typed = typed if typed is not None else text
        return obj

    def split(self, sep: str | None = None, maxsplit: int = -1) -> list[str]:  # type: ignore[override]
        return [_Tok(p, self.idx) for p in str.split(self, sep, maxsplit)]

    def __getitem__(self, key: Any) -> str:
        return _Tok(str.__getitem__(self, key), self.idx)


class _ParseError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _ParseExit(Exception):
    def __init__(self, status: int, message: str | None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _AnyChoices(list):
    """Choices that accept anything (the action checks the real choices itself, leniently)."""

    def __contains__(self, item: object) -> bool:
        return True


@dataclass
class Event:
    """One action call: an occurrence of a flag (or positional) in argv."""

    spec: OptionSpec
    kind: str
    option: str | None  # the registered option string that matched (None for positionals)
    typed: str | None  # what the argv word said (abbreviations, ``--x=v`` forms)
    option_tok: int | None  # token index of the option word
    value_toks: list[int]  # token indices of the value words
    raw: list[str]  # value strings before conversion
    value: Any  # the converted value this occurrence stored
    stored: bool = True  # False for actions that store nothing (retired no-op flags)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (kind, message)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.events: list[Event] = []
        self.classified: list[tuple[int, argparse.Action | None]] = []
        self.pending: tuple[list[int], list[str]] = ([], [])

    def reset(self) -> None:
        self.events = []
        self.classified = []
        self.pending = ([], [])

    def error(self, message: str) -> Any:
        raise _ParseError(message)

    def exit(self, status: int = 0, message: str | None = None) -> Any:
        raise _ParseExit(status, message)

    def print_help(self, file: Any = None) -> None:
        return None

    def print_usage(self, file: Any = None) -> None:
        return None

    def _print_message(self, message: str, file: Any = None) -> None:
        return None

    def _parse_optional(self, arg_string: str) -> Any:
        result = super()._parse_optional(arg_string)
        idx = getattr(arg_string, "idx", None)
        if idx is None or result is None:
            return result
        typed = str(arg_string)

        def tag(t: Any) -> Any:
            if isinstance(t, tuple) and len(t) >= 2 and isinstance(t[1], str):
                self.classified.append((idx, t[0]))
                return (t[0], _Tok(t[1], idx, typed), *t[2:])
            return t

        if isinstance(result, list):
            return [tag(t) for t in result]
        return tag(result)

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        self.pending = (
            [getattr(s, "idx", -1) for s in arg_strings],
            [str(s) for s in arg_strings if s != "--"],
        )
        return super()._get_values(action, arg_strings)


class _Recorder(argparse.Action):
    """Every option of the rebuilt parser: does what the real action does, and records the occurrence."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str,
        *,
        spec: OptionSpec,
        kind: str,
        real_choices: Sequence[Any] | None,
        negatives: frozenset[str] = frozenset(),
        exact: bool = True,
        **kwargs: Any,
    ):
        super().__init__(option_strings, dest, **kwargs)
        self.exact = exact
        self.spec = spec
        self.kind = kind
        self.real_choices = real_choices
        self.negatives = negatives

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        assert isinstance(parser, _Parser)
        idxs, raw = parser.pending
        parser.pending = ([], [])
        opt_idx = getattr(option_string, "idx", None)
        typed = getattr(option_string, "typed", option_string)
        errors: list[tuple[str, str]] = []
        name = "/".join(self.option_strings) if self.option_strings else self.metavar or self.dest
        values = _plain(values)
        for v in values if isinstance(values, list) else [values]:
            if isinstance(v, Invalid):
                errors.append(("invalid", f"argument {name}: {v.message}"))
            elif (
                self.real_choices is not None
                and v is not UNKNOWN
                and v not in self.real_choices
                and not (self.nargs == "?" and v == self.const and not raw)
            ):
                choices = ", ".join(map(repr, self.real_choices))
                # With a converter argtrace cannot reproduce, the real one may normalise the value first.
                kind_ = "choice" if self.exact else "choice?"
                errors.append((kind_, f"argument {name}: invalid choice: {v!r} (choose from {choices})"))
        kind = self.kind
        stored = True
        current = getattr(namespace, self.dest, None)
        if kind in ("store_const", "store_true", "store_false"):
            value = self.const
        elif kind == "BooleanOptionalAction":
            value = (option_string not in self.negatives) if option_string else True
        elif kind == "append":
            value = [*(list(current) if isinstance(current, list) else []), values]
        elif kind == "append_const":
            value = [*(list(current) if isinstance(current, list) else []), self.const]
        elif kind == "extend":
            value = [*(list(current) if isinstance(current, list) else []), *values]
        elif kind == "count":
            value = (current or 0) + 1
        elif kind == "noop":
            stored = False
            value = current
            message = (self.spec.raw.get("action_attrs") or {}).get("error_message")
            if message:
                errors.append(("retired", str(message)))
        elif kind == "lora":
            value = _lora_paths(values)
        elif kind == "store_fixed":
            value = (self.spec.raw.get("action_attrs") or {}).get("const_value", self.const)
        else:
            value = values
        if stored:
            setattr(namespace, self.dest, value)
        option = str(option_string) if option_string is not None else None
        parser.events.append(
            Event(
                self.spec,
                kind,
                option,
                typed if typed is None else str(typed),
                opt_idx,
                [i for i in idxs if i >= 0],
                raw,
                value,
                stored,
                errors,
            )
        )


class _HelpExit(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, *, spec: OptionSpec, **kwargs: Any):
        kwargs.pop("default", None)
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.spec = spec

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        assert isinstance(parser, _Parser)
        parser.events.append(
            Event(
                self.spec,
                self.spec.action,
                str(option_string),
                getattr(option_string, "typed", option_string),
                getattr(option_string, "idx", None),
                [],
                [],
                None,
                False,
            )
        )
        parser.exit(0, None)


def _plain(value: Any) -> Any:
    if isinstance(value, _Tok):
        return str(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _lora_paths(values: Any) -> Any:
    out: list[Any] = []
    for item in values or []:
        if isinstance(item, str):
            text = item.strip()
            if text.startswith("{") and text.endswith("}"):
                try:
                    out.append(json.loads(text))
                    continue
                except json.JSONDecodeError:
                    pass
            out.append(text)
        else:
            out.append(item)
    return out


_STANDARD = {
    "store",
    "store_const",
    "store_true",
    "store_false",
    "append",
    "append_const",
    "extend",
    "count",
    "BooleanOptionalAction",
}


def _action_kind(spec: OptionSpec) -> str:
    """What the real action does, by its class: argparse's own, the frameworks' custom actions by name
    (their code is read once, see the module docstring of frameworks/sglang.py), else the generator's
    probe (``probe.stored``) and ``behaves_like``."""
    action = spec.action
    if action in _STANDARD or action in ("help", "version"):
        return action
    known = {
        "LoRAPathAction": "lora",  # SGLang: list of paths, JSON-looking items decoded
        "EnableDisableAction": "BooleanOptionalAction",  # vLLM: --enable-x / --disable-x / --no-enable-x
        "DeprecatedAction": "noop",  # SGLang: warns (or errors with error_message), stores nothing
        "DeprecatedStoreTrueAction": "store_const",  # SGLang: warns, stores True
        "DeprecatedAliasStoreAction": "store",  # SGLang: warns, stores the value under the new dest
        "DeprecatedLogConfigFileAction": "store",  # vLLM: warns, stores the value
    }
    if action in known:
        return known[action]
    if action == "DeprecatedStoreConstAction":  # SGLang: stores const_value, with or without a value
        return "store_const" if spec.nargs in (0, None) and not spec.choices else "store_fixed"
    like = spec.raw.get("behaves_like")
    probe = spec.raw.get("probe") or {}
    if like == "BooleanOptionalAction":
        return "BooleanOptionalAction"
    if spec.nargs == 0:
        if probe and "stored" not in probe:
            return "noop"
        return "store_const"
    return "store"


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
    parser: _Parser
    unknown_converters: frozenset[str]  # dests whose converter is not reproduced (value kept as a string)


@functools.lru_cache(maxsize=16)
def build_parser(schema: Schema) -> BuiltParser:
    """A real argparse parser with the schema's options (help text suppressed: it is not needed)."""
    parser = _Parser(
        prog=str(schema.parser_info.get("prog") or schema.framework),
        allow_abbrev=schema.allow_abbrev,
        prefix_chars=schema.prefix_chars,
        add_help=False,
    )
    registered: set[str] = set()
    unknown: set[str] = set()
    for spec in (*schema.options, *schema.positionals):
        kind = _action_kind(spec)
        strings = [s for s in spec.option_strings if s not in registered]
        if spec.option_strings and not strings:
            continue
        if kind == "BooleanOptionalAction" and spec.action != "BooleanOptionalAction":
            # EnableDisableAction registers --no-X for every --X but hides it from action.option_strings.
            for s in list(strings):
                if s.startswith("--") and not s.startswith("--no-"):
                    extra = "--no-" + s[2:]
                    if extra not in registered and extra not in strings and schema.option(extra) is None:
                        strings.append(extra)
        registered.update(strings)
        if kind in ("help", "version"):
            parser.add_argument(*strings, action=_HelpExit, spec=spec, dest=spec.dest)
            continue
        type_name = spec.type
        inner = spec.raw.get("type_inner") or spec.raw.get("type_closure") or spec.raw.get("type_args")
        if type_name and "(" not in type_name and inner:
            # A generator that records a closure's inner converter beside the name.
            inner_names = [inner] if isinstance(inner, str) else [str(i) for i in inner if i]
            type_name = f"{type_name}({', '.join(inner_names)})"
        conv, known = _python_converter(type_name, schema)
        if not known and spec.type:
            conv, known = _infer_closure(spec, schema)
        if not known:
            unknown.add(spec.dest)
        kwargs: dict[str, Any] = {
            "action": _Recorder,
            "spec": spec,
            "kind": kind,
            "real_choices": list(spec.choices) if spec.choices is not None else None,
            "negatives": _negatives(spec, strings) if kind == "BooleanOptionalAction" else frozenset(),
            "exact": known,
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
        dataclass = schema.config_dataclass(spec.dest)
        if conv is not None and dataclass is not None:
            conv = _checked_fields(conv, dataclass)
        if kwargs.get("nargs") != 0:
            kwargs["type"] = _lenient(conv, spec)
            if spec.choices is not None:
                kwargs["choices"] = _AnyChoices(spec.choices)
        if kwargs.get("nargs") is None:
            kwargs.pop("nargs")
        if spec.option_strings:
            # What add_argument does, minus its per-call help-formatter check (a third of the build time).
            kwargs.pop("action")
            parser._add_action(_Recorder(strings, spec.dest, **kwargs))
        else:
            kwargs.pop("const", None) if kwargs.get("nargs") != "?" else None
            parser.add_argument(spec.dest, **kwargs)
    return BuiltParser(parser, frozenset(unknown))


@dataclass(frozen=True)
class _ReprDefault:
    data: Any

    def __repr__(self) -> str:
        return str(self.data.get("repr"))


def _checked_fields(conv: Callable[[str], Any], dataclass: Mapping[str, Any]) -> Callable[[str], Any]:
    """A config-dataclass converter that treats unknown keys as pydantic does for that class: dropped
    (``extra="ignore"``) or rejected (``extra="forbid"``, the parser exits 2)."""
    fields = set(dataclass.get("fields") or ())
    extra = dataclass.get("extra") or "ignore"
    cls = str(dataclass.get("class") or "the config class").rsplit(".", 1)[-1]

    def convert(text: str) -> Any:
        value = conv(text)
        if not isinstance(value, dict):
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


# ------------------------------------------------------------------------------------------ parsing


@dataclass
class ParseOutcome:
    tokens: list[ArgToken]
    events: list[Event]
    namespace: dict[str, Any]
    extras: list[int]  # token indices argparse could not place
    exit_status: int  # what the real parser would do: 0 parses, 2 argparse error, 1 launcher error
    first_error: str | None
    hard_errors: list[tuple[str, int | None, str]]  # (kind, token index, message)
    help_exit: bool = False


def run_parser(prepared: PreparedArgv, schema: Schema) -> ParseOutcome:
    """Parse the prepared tokens; recover from argparse's hard errors by dropping the offending word."""
    built = build_parser(schema)
    parser = built.parser
    tokens = list(prepared.tokens)
    strings = [
        _Tok(t.text if t.text is not None else f"{UNKNOWN_PREFIX}{i}", i) for i, t in enumerate(tokens)
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
            ns, rest = parser.parse_known_args(current)
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
        namespace = {k: _plain(v) for k, v in vars(ns).items()}
        extras = [getattr(r, "idx", -1) for r in rest]
        if schema.framework == "sglang":
            from argtrace.frameworks.sglang import post_parse

            post_parse(tokens, namespace, schema)
        break
    # Errors argparse would raise on the first of them (in argv order): lenient values, then leftovers.
    soft: list[tuple[int, str]] = []
    for ev in events:
        for _kind, message in ev.errors:
            if _kind == "choice?":
                continue  # not certain: the real converter may normalise the value
            pos = ev.option_tok if ev.option_tok is not None else (ev.value_toks[0] if ev.value_toks else 0)
            soft.append((pos, message))
    required = [
        s
        for s in (*schema.options, *schema.positionals)
        if s.required and not any(ev.spec.dest == s.dest for ev in events)
    ]
    status = 0
    if first_error is None and soft:
        first_error = min(soft)[1]
    if first_error is None and required and not help_exit:
        names = ", ".join(s.flag or s.dest for s in required)
        first_error = f"the following arguments are required: {names}"
    if first_error is None and extras and not help_exit:
        shown = redact_argv([str(x) for x in strings])  # a stray credential after --api-key stays masked
        words = [shown[i] or "?" if i >= 0 else "?" for i in extras]
        first_error = "unrecognized arguments: " + " ".join(map(str, words))
    if first_error is not None:
        status = 2
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


# ------------------------------------------------------------------------------------------ analysis


def _word(server: ServerCommand, tok: ArgToken | None) -> Word | None:
    if tok is None or not tok.src:
        return None
    i = tok.src[0]
    return server.argv[i] if 0 <= i < len(server.argv) else None


def _at(server: ServerCommand, tok: ArgToken | None) -> str | None:
    if tok is not None and tok.via == "config":
        return tok.at
    word = _word(server, tok)
    return word.origin.at if word is not None and word.origin.at else server.at


def _from_caller(word: Word | None) -> bool:
    exp = (word.origin.expansion or "") if word is not None else ""
    return bool(re.search(r"\$\{?[@*]|\$\{?@:", exp))


def _show(flag: str | None, value: Any) -> str:
    """A value as a finding message may quote it (secrets masked)."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    if flag and is_secret_flag(flag) and isinstance(value, str) and value:
        return mask(value)
    return redact_text(text)


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


@dataclass(frozen=True)
class FlagHome:
    """Where a flag is known across the bundled schemas."""

    versions: tuple[str, ...]  # versions of the analysed framework that know it, oldest first
    dest: str | None  # its dest in the newest of those
    framework: str | None  # the framework whose schema knows it (the analysed one, else the other)
    other_dest: str | None = None


def _known_in(schemas: Sequence[Schema], flag: str) -> list[tuple[Schema, OptionSpec]]:
    out = []
    for s in schemas:
        spec = s.option(flag)
        if spec is not None:
            out.append((s, spec))
    return out


def _replacement(flag: str, schema: Schema, history: Sequence[Schema]) -> str | None:
    """The analysed release's spelling of a flag it does not know, from the schema diff: an option with the
    same dest, a deprecated alias's ``new_flag``, or one sharing a dest with the flag in some release."""
    dests: set[str] = set()
    for s in history:
        spec = s.option(flag)
        if spec is None:
            continue
        dests.add(spec.dest)
        new = (spec.raw.get("action_attrs") or {}).get("new_flag")
        if isinstance(new, str) and schema.option(new) is not None:
            return new
        for ref in re.findall(r"(--[a-z0-9][a-z0-9-]+)", spec.help or ""):
            if (
                ref != flag
                and schema.option(ref) is not None
                and re.search(r"(?i)deprecat|renamed|alias|use\s+" + re.escape(ref), spec.help or "")
            ):
                return ref
    for dest in sorted(dests):
        cur = schema.flag_for_dest(dest)
        if cur and cur != flag:
            return cur
    # A release where the flag shares its dest with another flag that the analysed release knows.
    for s in history:
        spec = s.option(flag)
        if spec is None:
            continue
        for other in s.options_for_dest(spec.dest):
            for o in other.option_strings:
                if o != flag and o.startswith("--") and schema.option(o) is not None:
                    return o
    return None


def _nearest(flag: str, schema: Schema) -> str | None:
    longs = [s for s in schema.option_strings if s.startswith("--")]
    base = flag.split("=", 1)[0]
    match = difflib.get_close_matches(base, longs, n=1, cutoff=0.6)
    return match[0] if match else None


def _dest_guess(flag: str) -> str:
    return flag.split("=", 1)[0].lstrip("-").replace("-", "_").replace(".", "_") or flag


def _equivalents(schema: Schema, other: Sequence[Schema]) -> dict[str, str]:
    from argtrace.frameworks.equivalents import equivalent_flags

    return equivalent_flags(schema, other)


_RECENT: list[tuple[ServerCommand, Schema, PreparedArgv, ParseOutcome]] = []


def parse_prepared(server: ServerCommand, schema: Schema) -> tuple[PreparedArgv, ParseOutcome]:
    """The framework's argv rewrites and the parse, for one server start (the process layer asks for the
    parallel sizes first; the result is reused for the same server object and schema)."""
    for srv, sch, prepared, outcome in _RECENT:
        if srv is server and sch is schema:
            return prepared, outcome
    from argtrace.frameworks import sglang, vllm

    adapter = sglang if schema.framework == "sglang" else vllm
    prepared = adapter.prepare_argv(server, schema)
    _bound_words(prepared, server)
    outcome = run_parser(prepared, schema)
    _RECENT.insert(0, (server, schema, prepared, outcome))
    del _RECENT[4:]
    return prepared, outcome


# Words handed to argparse at most. The stdlib parser is quadratic in the number of options (each one
# rescans the option indices after it): 4,000 words take about 1 s, 10^5 over 300 s, 1,024 about 0.06 s.
# Real launch commands have a few hundred words at most.
MAX_PARSED_WORDS = 1024
# Hard argparse errors recovered from (each costs a whole new parse): `--port --port ...` 5,000 times took
# 275 s before this bound.
MAX_HARD_ERRORS = 32


def _bound_words(prepared: PreparedArgv, server: ServerCommand) -> None:
    """Keep at most MAX_PARSED_WORDS words for argparse, cut before an option so that no flag loses its
    value to the cut, and say so (PA027)."""
    tokens = prepared.tokens
    if len(tokens) <= MAX_PARSED_WORDS:
        return
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
    ctx = _Context(server, schema, prepared, outcome, all_schemas, result, rules)
    ctx.analyse()
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
    """Every dest of the parser with its default (for ``--all-settings``)."""
    out: dict[str, Any] = {}
    for spec in (*schema.options, *schema.positionals):
        if spec.action in ("help", "version") or spec.dest in out:
            continue
        if spec.default == argparse.SUPPRESS:
            continue
        out[spec.dest] = spec.default_value
    return out


class _Context:
    def __init__(
        self,
        server: ServerCommand,
        schema: Schema,
        prepared: PreparedArgv,
        outcome: ParseOutcome,
        all_schemas: Sequence[Schema] | None,
        result: LayerResult,
        rules: Any,
    ) -> None:
        self.server = server
        self.schema = schema
        self.prepared = prepared
        self.outcome = outcome
        self.all_schemas = all_schemas
        self.result = result
        self.rules = rules
        self.tokens = outcome.tokens
        self.fatal = prepared.fatal is not None

    # -- the other releases, loaded only when a finding needs them (schema files are large)
    @functools.cached_property
    def history(self) -> list[Schema]:
        """Every known release of the analysed framework, oldest first (the analysed one included)."""
        name = self.schema.framework
        given = [s for s in self.all_schemas or () if s.framework == name]
        schemas = schemas_for(name, given)
        if not any(s.version == self.schema.version for s in schemas):
            schemas = sorted([*schemas, self.schema], key=lambda s: version_key(s.version))
        return schemas

    @functools.cached_property
    def newer(self) -> list[Schema]:
        """Releases newer than the analysed one (without loading the older ones)."""
        from argtrace.frameworks.schema import bundled_versions, load_schema

        key = version_key(self.schema.version)
        given = {s.version: s for s in self.all_schemas or () if s.framework == self.schema.framework}
        names = sorted({*bundled_versions(self.schema.framework), *given}, key=version_key)
        return [given.get(v) or load_schema(self.schema.framework, v) for v in names if version_key(v) > key]

    @functools.cached_property
    def others(self) -> list[Schema]:
        name = "vllm" if self.schema.framework == "sglang" else "sglang"
        given = [s for s in self.all_schemas or () if s.framework == name]
        return schemas_for(name, given)

    # -- helpers
    def tok(self, i: int | None) -> ArgToken | None:
        return self.tokens[i] if i is not None and 0 <= i < len(self.tokens) else None

    def _secret_word(self, i: int | None) -> bool:
        """True when the word at token ``i`` is a credential: the value after --api-key and the like."""
        prev = self.tok(i - 1) if i is not None and i > 0 else None
        return bool(prev is not None and prev.text and is_secret_flag(prev.text) and "=" not in prev.text)

    def _display(self, i: int | None, text: str) -> str:
        """A word as a message may quote it: masked when it is a credential, else scrubbed."""
        if self._secret_word(i):
            return mask(text)
        return redact_text(text)

    def _src(self, i: int | None) -> tuple[int, ...]:
        tok = self.tok(i)
        return tok.src if tok is not None else ()

    def via(self, i: int | None) -> str | None:
        tok = self.tok(i)
        return tok.via if tok is not None else None

    def at(self, i: int | None) -> str | None:
        return _at(self.server, self.tok(i))

    def add(
        self,
        rule: Any,
        message: str,
        *,
        at: str | None = None,
        setting: str | None = None,
        fix: str | None = None,
        severity: str | None = None,
        evidence: Iterable[Evidence] = (),
    ) -> None:
        kwargs: dict[str, Any] = {"at": at, "setting": setting, "evidence": tuple(evidence)}
        if fix is not None:
            kwargs["fix"] = fix
        if severity is not None:
            kwargs["severity"] = severity
        self.result.findings.append(rule.finding(message, **kwargs))

    def analyse(self) -> None:
        self._hard_errors()
        self._occurrences()
        self._extras()
        self._unknown_words()
        self._required()
        self._dotted_overrides()
        if self.outcome.help_exit:
            ev = next((e for e in self.outcome.events if e.spec.action in ("help", "version")), None)
            if ev is not None:
                self.add(
                    self.rules.PA_EXITS,
                    f"{ev.typed or ev.option} makes the server print {ev.spec.action} and exit without "
                    "starting",
                    at=self.at(ev.option_tok),
                )

    # -- argparse hard errors
    def _hard_errors(self) -> None:
        rules = self.rules
        for kind, idx, message in self.outcome.hard_errors:
            tok = self.tok(idx)
            typed = tok.text if tok is not None else None
            if kind == "ambiguous":
                m = re.search(r"could match (.*)", message)
                self.add(
                    rules.PA_AMBIGUOUS,
                    f"{typed} is an abbreviation that matches several {self.schema.label} flags "
                    f"({m.group(1) if m else '?'}); argparse stops with exit status 2",
                    at=self.at(idx),
                    setting=_dest_guess(typed or ""),
                    fix="spell the flag out in full",
                )
            elif kind == "missing_value":
                nxt = self.tok(idx + 1) if idx is not None else None
                shown_next = (
                    mask(nxt.text)
                    if nxt is not None and nxt.text and typed and is_secret_flag(typed)
                    else (redact_text(nxt.text) if nxt is not None and nxt.text else "")
                )
                after = (
                    f", and the next word {shown_next!r} looks like a flag"
                    if nxt is not None and (nxt.text or "").startswith("-")
                    else ""
                )
                spec = self._spec_of(typed)
                nxt_text = nxt.text if nxt is not None else None
                is_flag = bool(nxt_text) and (
                    self._spec_of((nxt_text or "").split("=", 1)[0]) is not None
                    or (nxt_text or "").startswith("--")
                )
                fix = None
                if nxt_text and nxt_text.startswith("-") and not is_flag:
                    # a value that really starts with a dash must be attached with '='
                    fix = f"write {typed}={shown_next} (a value starting with '-' must be attached with '=')"
                self.add(
                    rules.PA_MISSING_VALUE,
                    f"{typed} needs a value but gets none{after}; argparse stops with "
                    f'"{message}" (exit status 2)',
                    at=self.at(idx),
                    setting=spec.dest if spec else _dest_guess(typed or ""),
                    fix=fix,
                )
            elif kind == "explicit_arg":
                spec = self._spec_of((typed or "").split("=", 1)[0])
                self.add(
                    rules.PA_NO_VALUE_EXPECTED,
                    f'{typed}: the flag takes no value, so argparse stops with "{message}" (exit 2)',
                    at=self.at(idx),
                    setting=spec.dest if spec else None,
                    fix=f"write {(typed or '').split('=', 1)[0]} alone",
                )
            else:
                self.add(
                    rules.PA_UNRECOGNIZED,
                    f'argparse stops with "{redact_text(message)}" (exit 2)',
                    at=self.at(idx),
                )

    def _spec_of(self, typed: str | None) -> OptionSpec | None:
        if not typed:
            return None
        spec = self.schema.option(typed)
        if spec is not None:
            return spec
        cands = [s for s in self.schema.option_strings if s.startswith(typed)]
        return self.schema.option(cands[0]) if len(cands) == 1 else None

    # -- what each flag did
    def _occurrences(self) -> None:
        by_dest: dict[str, list[Event]] = {}
        for ev in self.outcome.events:
            if ev.spec.action in ("help", "version"):
                continue
            by_dest.setdefault(ev.spec.dest, []).append(ev)
        for dest, events in by_dest.items():
            self._flag_findings(events)
            self._setting(dest, events)
        self._duplicates(by_dest)

    def _flag_findings(self, events: list[Event]) -> None:
        rules = self.rules
        schema = self.schema
        for ev in events:
            spec = ev.spec
            at = self.at(
                ev.option_tok if ev.option_tok is not None else (ev.value_toks[0] if ev.value_toks else None)
            )
            typed = (ev.typed or "").split("=", 1)[0] if ev.typed else None
            tok = self.tok(ev.option_tok)
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
                newer = self._ambiguous_elsewhere(typed)
                more = f"; in {newer} it is ambiguous and the server refuses to start" if newer else ""
                self.add(
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
                    self.add(
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
                self.add(
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
                if retired:
                    self.add(
                        rules.PA_IGNORED,
                        f"{ev.option} is retired in {schema.label}: {retired} (argparse exit 2)",
                        at=at,
                        setting=spec.dest,
                    )
                else:
                    repl = self._help_replacement(spec)
                    self.add(
                        rules.PA_IGNORED,
                        f"{ev.option} is accepted but ignored by {schema.label} ({msg}); nothing is stored"
                        + (f"; use {repl}" if repl else ""),
                        at=at,
                        setting=spec.dest,
                        fix=f"use {repl}" if repl else None,
                    )
            elif spec.deprecation_message:
                new = (spec.raw.get("action_attrs") or {}).get("new_flag") or self._help_replacement(spec)
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
                    self.add(
                        rules.PA_IGNORED,
                        f"{ev.option} is accepted but has no effect in {schema.label}: {msg}",
                        at=at,
                        setting=spec.dest,
                        fix="remove the flag" + (f" (see {new})" if new else ""),
                    )
                else:
                    self.add(
                        rules.PA_DEPRECATED,
                        f"{ev.option} is deprecated in {schema.label}: {msg}"
                        + (f" (the current spelling is {new})" if new and new not in msg else ""),
                        at=at,
                        setting=spec.dest,
                        fix=f"use {new}" if new else None,
                    )
            else:
                removed = self._removed_later(ev.option)
                if removed:
                    self.add(rules.PA_REMOVED_LATER, removed, at=at, setting=spec.dest)
            for kind, message in ev.errors:
                if kind == "choice":
                    valid_in = self._choice_valid_in(spec, ev.value)
                    extra = f"; {ev.value!r} is valid in {valid_in}" if valid_in else ""
                    self.add(
                        rules.PA_INVALID_CHOICE,
                        f"{redact_text(message)}{extra} (argparse exit 2)",
                        at=at,
                        setting=spec.dest,
                    )
                elif kind == "choice?":
                    self.add(
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
                    hints = self._key_hints(spec.dest, keys, fields)
                    self.add(
                        rules.PA_UNKNOWN_JSON_KEY,
                        f"{redact_text(message)} (argparse exit 2)" + (f"; {hints}" if hints else ""),
                        at=at,
                        setting=spec.dest,
                    )
                elif kind == "invalid":
                    rule = (
                        rules.PA_INVALID_JSON
                        if (_json_valued(spec, schema) or "json" in message.lower())
                        else rules.PA_INVALID_VALUE
                    )
                    self.add(
                        rule, f"{self._scrub(spec, message)} (argparse exit 2)", at=at, setting=spec.dest
                    )
                elif kind == "retired":
                    pass
            self._dropped_keys(spec, ev, at)
            if _json_valued(spec, schema) and ev.raw:
                self._json_duplicates(spec, ev, at)
                if not ev.errors and isinstance(ev.value, str) and ev.kind == "store":
                    self._json_string(spec, ev, at)

    def _dropped_keys(self, spec: OptionSpec, ev: Event, at: str | None) -> None:
        """Keys of a JSON config flag that its config class does not have and silently drops."""
        dataclass = self.schema.config_dataclass(spec.dest)
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
            hints = self._key_hints(spec.dest, unknown, fields)
            self.add(
                self.rules.PA_UNKNOWN_JSON_KEY,
                f"{ev.option}: {cls} in {self.schema.label} has no field {', '.join(map(repr, unknown))}; "
                "the key is dropped without a word" + (f" ({hints})" if hints else ""),
                at=at,
                setting=spec.dest,
            )

    def _key_hints(self, dest: str, unknown: Sequence[str], fields: set[str]) -> str:
        """For unknown config keys: the nearest field of this release, or the releases that have it."""
        hints = []
        for key in unknown:
            near = difflib.get_close_matches(key, sorted(fields), n=1)
            elsewhere = [
                s.version
                for s in self.history
                if s.version != self.schema.version
                and key in ((s.config_dataclass(dest) or {}).get("fields") or ())
            ]
            if elsewhere:
                hints.append(f"{key!r} is a field in {self.schema.framework} {', '.join(elsewhere)}")
            elif near:
                hints.append(f"{key!r}: did you mean {near[0]!r}?")
        return "; ".join(hints)

    def _json_string(self, spec: OptionSpec, ev: Event, at: str | None) -> None:
        """A JSON flag the parser keeps as a string (SGLang's --json-model-override-args): the server
        decodes it later, after parsing, and stops there if it is not JSON."""
        text = ev.value
        if not text.strip() or UNKNOWN_PREFIX in text:
            return
        try:
            json.loads(text)
        except ValueError as exc:
            self.add(
                self.rules.PA_INVALID_JSON,
                f"{ev.option} {_show(ev.option, text)!r} is not valid JSON ({exc.msg} at column {exc.pos + 1}"
                if isinstance(exc, json.JSONDecodeError)
                else f"{ev.option} {_show(ev.option, text)!r} is not valid JSON ({exc}",
                at=at,
                setting=spec.dest,
            )
            # The message above is completed here so that both branches read the same.
            last = self.result.findings[-1]
            from dataclasses import replace

            self.result.findings[-1] = replace(
                last,
                message=last.message
                + "); the parser keeps the string and the server fails when it decodes it",
            )

    def _scrub(self, spec: OptionSpec, message: str) -> str:
        flag = spec.flag
        if flag and is_secret_flag(flag):
            return f"argument {flag}: invalid value (secret, not shown)"
        return redact_text(message)

    def _help_replacement(self, spec: OptionSpec) -> str | None:
        """The flag a deprecated option's own words point to ("Use --x instead", "renamed to --x")."""
        text = " ".join(str(t) for t in (spec.deprecation_message, spec.help) if isinstance(t, str))
        pattern = (
            r"(?i)(?:use|instead|renamed to|replaced by|in favou?r of|alias (?:of|for))\s+'?"
            r"(--[a-z0-9][a-z0-9._-]*)"
        )
        for ref in re.findall(pattern, text):
            ref = ref.rstrip(".")
            base = ref.split(".", 1)[0]
            if ref not in spec.option_strings and self.schema.option(base) is not None:
                return ref
        return None

    def _ambiguous_elsewhere(self, typed: str) -> str | None:
        for s in reversed(self.history):
            if s.version == self.schema.version:
                continue
            if s.option(typed) is None and len([o for o in s.option_strings if o.startswith(typed)]) > 1:
                return s.label
        return None

    def _removed_later(self, option: str | None) -> str | None:
        if not option:
            return None
        gone = [s for s in self.newer if s.option(option) is None]
        if not gone:
            return None
        first = gone[0]
        repl = _replacement(option, first, [self.schema, *self.newer])
        return (
            f"{option} works in {self.schema.label} but {first.label} no longer accepts it"
            + (f" (use {repl})" if repl else "")
            + "; the script breaks on upgrade"
        )

    def _choice_valid_in(self, spec: OptionSpec, value: Any) -> str | None:
        vals = value if isinstance(value, list) else [value]
        hits = []
        for s in self.history:
            if s.version == self.schema.version:
                continue
            other = s.option(spec.flag or "") if spec.flag else None
            if other is not None and other.choices is not None and all(v in other.choices for v in vals):
                hits.append(s.version)
        return ", ".join(hits) if hits else None

    def _json_duplicates(self, spec: OptionSpec, ev: Event, at: str | None) -> None:
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
                json.loads(raw, object_pairs_hook=hook)
            except (ValueError, TypeError):
                continue
            if dups:
                self.add(
                    self.rules.PA_JSON_OVERRIDE,
                    f"{ev.option}: key(s) {', '.join(sorted(set(dups)))} appear twice in the JSON value; "
                    "the last one silently wins",
                    at=at,
                    setting=spec.dest,
                )

    def _setting(self, dest: str, events: list[Event]) -> None:
        stored = [e for e in events if e.stored]
        winner = stored[-1] if stored else events[-1]
        observations: list[Observation] = []
        shells: list[Observation] = []
        procs: list[Observation] = []
        # Every occurrence's shell words (an overridden one marked), then what the process and the parser
        # hold for the one that wins: a later occurrence shows as a change at the shell layer, where it
        # was written, not as a flip-flop between layers. Accumulating actions (append, count) keep all.
        accumulate = winner.kind in ("append", "append_const", "extend", "count")
        for ev in events:
            overridden = ev is not winner and not accumulate and ev.stored
            for obs_shell, obs_proc in self._word_observations(ev):
                if obs_shell is not None:
                    if overridden:
                        obs_shell = Observation(
                            **{**obs_shell.__dict__, "detail": {**obs_shell.detail, "overridden": True}}
                        )
                    shells.append(obs_shell)
                if accumulate or ev is winner or not ev.stored:
                    procs.append(obs_proc)
        observations.extend(shells)
        observations.extend(procs)
        value = self.outcome.namespace.get(dest, winner.value) if not self.fatal else winner.value
        known = not _contains_unknown(value)
        parser_obs = Observation(
            layer="parser",
            value=_jsonable(value),
            at=self.at(
                winner.option_tok
                if winner.option_tok is not None
                else (winner.value_toks[0] if winner.value_toks else None)
            ),
            known=known,
            reason=None if known else "built from a word that cannot be known statically",
            by=winner.option or dest,
            detail={"option": winner.typed or winner.option, "default": False},
        )
        invalid = any(err for ev in events for err in ev.errors) or self.outcome.exit_status != 0
        if invalid:
            parser_obs = Observation(
                **{**parser_obs.__dict__, "detail": {**parser_obs.detail, "rejected": True}}
            )
        observations.append(parser_obs)
        # the long option the user matched (in full), else the canonical one (for -tp and positionals)
        long = winner.option if winner.option and winner.option.startswith("--") else None
        flag = long or winner.spec.flag or winner.option or self.schema.flag_for_dest(dest)
        self.result.observations[dest] = (flag, observations)
        self.result.intended[dest] = self._intended(winner)
        if _json_valued(winner.spec, self.schema) or _is_config_json(winner):
            if isinstance(value, str) and value.lstrip().startswith("{"):
                try:
                    value = json.loads(value)
                except ValueError:
                    return
            self._inner_settings(dest, flag, winner, value)

    def _word_observations(self, ev: Event) -> list[tuple[Observation | None, Observation]]:
        server = self.server
        out: list[tuple[Observation | None, Observation]] = []
        idxs = list(ev.value_toks) or ([ev.option_tok] if ev.option_tok is not None else [])
        seen_src: set[int] = set()
        for i in idxs:
            tok = self.tok(i)
            if tok is None:
                continue
            text = tok.text
            if tok.via == "config":
                proc = Observation("process", text, at=tok.at, detail={"via": "config", "file": tok.at})
                out.append((None, proc))
                continue
            if tok.via == "dotted":
                # vLLM merged --flag.key words into this JSON; each key's words are in its own setting.
                proc = Observation(
                    "process", text, at=server.at, detail={"via": "dotted keys merged by vLLM"}
                )
                out.append((None, proc))
                continue
            for src in tok.src:
                if src in seen_src or not 0 <= src < len(server.argv):
                    continue
                seen_src.add(src)
                word = server.argv[src]
                wtext = word.text
                value = wtext
                if wtext is not None and i == ev.option_tok and "=" in wtext and ev.value_toks == [i]:
                    value = wtext.split("=", 1)[1]
                elif (
                    wtext is not None
                    and i != ev.option_tok
                    and ev.option_tok is not None
                    and src in self._src(ev.option_tok)
                    and "=" in wtext
                ):
                    value = wtext.split("=", 1)[1]
                shell = Observation(
                    "shell",
                    value,
                    at=word.origin.at,
                    known=word.known,
                    reason=None if word.known else (word.origin.reason or "cannot be known statically"),
                    detail={
                        "expansion": word.origin.expansion,
                        **({"word": wtext} if value != wtext else {}),
                        # a switch: the word is the flag itself, its value is the parser's
                        **({"flag_only": True} if not ev.value_toks else {}),
                    },
                )
                proc = Observation(
                    "process",
                    value,
                    at=server.at,
                    known=word.known,
                    reason=None if word.known else (word.origin.reason or "cannot be known statically"),
                    detail={"argv_index": src, **({"flag_only": True} if not ev.value_toks else {})},
                )
                out.append((shell, proc))
        return out

    def _intended(self, ev: Event) -> Any:
        if ev.kind in ("store_const", "store_true", "store_false", "BooleanOptionalAction", "count", "noop"):
            return ev.value if ev.stored else True
        raw: list[str | None] = []
        for i in ev.value_toks:
            tok = self.tok(i)
            if tok is None:
                continue
            if tok.text is None:
                raw.append(None)
            elif i == ev.option_tok and "=" in tok.text:
                raw.append(tok.text.split("=", 1)[1])
            else:
                raw.append(tok.text)
        if not raw:
            return ev.raw[0] if len(ev.raw) == 1 else (list(ev.raw) if ev.raw else None)
        if ev.spec.nargs in (None, "?") and len(raw) == 1:
            return raw[0]
        return raw

    def _inner_settings(self, dest: str, flag: str | None, winner: Event, value: Any) -> None:
        if not isinstance(value, dict):
            return
        dotted = {p.keys: p for p in self.prepared.dotted if p.flag == (winner.option or "")}
        for path, inner in _flatten(value):
            name = dest + "." + ".".join(path)
            part = dotted.get(tuple(path))
            obs: list[Observation] = []
            text = inner if isinstance(inner, str) else json.dumps(_jsonable(inner))
            if part is not None and part.src:
                word = self.server.argv[part.src[-1]] if part.src[-1] < len(self.server.argv) else None
                obs.append(
                    Observation(
                        "shell",
                        part.raw,
                        at=word.origin.at if word else None,
                        detail={"expansion": word.origin.expansion if word else None, "dotted": True},
                    )
                )
                obs.append(Observation("process", part.raw, at=self.server.at))
            else:
                wtok = self.tok(winner.value_toks[-1]) if winner.value_toks else None
                obs.append(
                    Observation(
                        "process",
                        text,
                        at=_at(self.server, wtok) if wtok and wtok.via == "config" else self.server.at,
                        detail={"from": flag},
                    )
                )
            obs.append(
                Observation(
                    "parser",
                    _jsonable(inner),
                    at=self.at(winner.option_tok),
                    by=flag,
                    detail={
                        "option": winner.typed or winner.option,
                        "default": False,
                        "json_key": ".".join(path),
                    },
                )
            )
            self.result.observations[name] = (f"{flag}.{'.'.join(path)}" if flag else None, obs)
            self.result.intended[name] = _jsonable(inner)

    def _duplicates(self, by_dest: dict[str, list[Event]]) -> None:
        rules = self.rules
        for dest, events in by_dest.items():
            stored = [
                e for e in events if e.stored and e.kind not in ("append", "append_const", "extend", "count")
            ]
            if len(stored) < 2:
                continue
            # vLLM's merged dotted keys are reported separately (PA021).
            if all(self.via(e.option_tok) == "dotted" for e in stored[1:]):
                continue
            winner = stored[-1]
            values = [self._intended(e) for e in stored]
            flag = winner.option or dest
            win_word = _word(self.server, self.tok(winner.option_tok))
            lost = stored[:-1]
            shown = ", ".join(
                f"{(e.typed or e.option)} {_show(flag, self._intended(e))}"
                if e.kind == "store"
                else (e.typed or "")
                for e in stored
            )
            same = all(v == values[-1] for v in values)
            caller = _from_caller(win_word) and not any(
                _from_caller(_word(self.server, self.tok(e.option_tok))) for e in lost
            )
            config = [e for e in stored if self.via(e.option_tok) == "config"]
            if caller:
                msg = (
                    f"{flag} is set by the script and again by the caller's arguments "
                    f"({win_word.origin.expansion if win_word else '$@'}): "
                    f"{shown}; the caller's {_show(flag, values[-1])} wins and the script's own value "
                    "is overridden"
                )
            elif not _from_caller(win_word) and any(
                _from_caller(_word(self.server, self.tok(e.option_tok))) for e in lost
            ):
                msg = (
                    f"{flag} comes from the caller's arguments and again from the script after them "
                    f"({shown}): the script's own {_show(flag, values[-1])} wins, so the caller cannot "
                    "override it"
                )
            elif config and len(config) < len(stored):
                msg = (
                    f"{flag} is set in the --config file and on the command line ({shown}); "
                    "the command line wins"
                )
            else:
                msg = (
                    f"{flag} is given {len(stored)} times ({shown}); argparse keeps the last, "
                    f"{_show(flag, values[-1])}"
                )
            severity = "info" if (same or (config and len(config) < len(stored))) else None
            self.add(
                rules.PA_DUPLICATE,
                msg,
                at=self.at(winner.option_tok),
                setting=dest,
                severity=severity,
                evidence=[
                    Evidence("shell", self.at(e.option_tok), e.typed or e.option or "") for e in stored
                ],
            )

    # -- leftovers: unrecognized words
    def _extras(self) -> None:
        extras = [i for i in self.outcome.extras if i >= 0]
        if not extras:
            return
        rules = self.rules
        i = 0
        consumed: set[int] = set()
        while i < len(extras):
            idx = extras[i]
            tok = self.tok(idx)
            if tok is None or tok.text is None or idx in consumed:
                i += 1
                continue
            text = tok.text
            if text.startswith("-") and len(text) > 1 and not _is_number(text):
                values = []
                j = i + 1
                while j < len(extras) and extras[j] == extras[j - 1] + 1:
                    nt = self.tok(extras[j])
                    if nt is None or ((nt.text or "x").startswith("-") and not _is_number(nt.text or "")):
                        break
                    values.append(extras[j])
                    consumed.add(extras[j])
                    j += 1
                self._unknown_flag(idx, values)
                i = j
                continue
            prev = self.tok(idx - 1)
            prev_ev = next((e for e in self.outcome.events if e.option_tok == idx - 1), None)
            if prev_ev is not None and prev_ev.kind in (
                "store_true",
                "store_false",
                "store_const",
                "BooleanOptionalAction",
                "noop",
            ):
                self.add(
                    rules.PA_NO_VALUE_EXPECTED,
                    f"{prev_ev.typed or prev_ev.option} takes no value, so {self._display(idx, text)!r} "
                    'is left over and argparse stops with "unrecognized arguments" (exit 2)',
                    at=self.at(idx),
                    setting=prev_ev.spec.dest,
                    fix=(
                        f"drop {self._display(idx, text)!r}"
                        + (
                            f" (to turn it off use {self._negative(prev_ev)})"
                            if text.lower() in ("false", "0", "no") and self._negative(prev_ev)
                            else ""
                        )
                    ),
                )
            else:
                what = f"after {prev.text}" if prev is not None and prev.text else "at the start"
                self.add(
                    rules.PA_UNRECOGNIZED,
                    f"{self._display(idx, text)!r} ({what}) is not a value of any flag: {self.schema.label} "
                    "rejects it "
                    'with "unrecognized arguments" (exit 2)',
                    at=self.at(idx),
                    setting=None,
                    fix="quote the value with the flag before it, or remove the stray word",
                )
            i += 1

    def _negative(self, ev: Event) -> str | None:
        if ev.kind == "BooleanOptionalAction":
            return next(iter(sorted(_negatives(ev.spec))), None)
        return None

    def _unknown_flag(self, idx: int, value_idxs: list[int]) -> None:
        rules = self.rules
        tok = self.tok(idx)
        assert tok is not None and tok.text is not None
        typed = tok.text
        flag = typed.split("=", 1)[0]
        shown_flag = (tok.original or typed).split("=", 1)[0]
        if self._secret_word(idx):
            # a credential that argparse could not take as --api-key's value: report it, never name a
            # setting after it
            self.add(
                rules.PA_UNRECOGNIZED,
                f"{mask(shown_flag)} (the word after a credential flag) is left over: the server refuses "
                'to start ("unrecognized arguments", exit 2)',
                at=self.at(idx),
                fix="attach a value that starts with '-' with '=' (--api-key=VALUE)",
            )
            return
        at = self.at(idx)
        schema = self.schema
        same = _known_in(self.history, flag)
        other = _known_in(self.others, flag)
        older = [s for s, _ in same if version_key(s.version) < version_key(schema.version)]
        newer = [s for s, _ in same if version_key(s.version) > version_key(schema.version)]
        if same:
            setting = same[-1][1].dest
        elif other:
            setting = other[-1][1].dest
        else:
            setting = _dest_guess(flag)
        repl = _replacement(flag, schema, self.history) if same else None
        # A single-dash spelling of a long option
        dashed = None
        if flag.startswith("-") and not flag.startswith("--"):
            cand = "-" + flag
            if schema.option(cand) is not None:
                dashed = cand
        underscored = None
        if "_" in flag and flag.startswith("--") and schema.option(flag.replace("_", "-")) is not None:
            underscored = flag.replace("_", "-")
        if dashed:
            self.add(
                rules.PA_SINGLE_DASH,
                f"{shown_flag} has a single hyphen; {schema.label} knows {dashed} and rejects {shown_flag} "
                'with "unrecognized arguments" (exit 2)',
                at=at,
                setting=schema.option(dashed).dest,  # type: ignore[union-attr]
                fix=f"write {dashed}",
            )
            setting = schema.option(dashed).dest  # type: ignore[union-attr]
        elif underscored:
            self.add(
                rules.PA_UNDERSCORE,
                f"{shown_flag}: {schema.framework} does not turn underscores into dashes; {schema.label} "
                f'rejects it with "unrecognized arguments" (exit 2); the flag is {underscored}',
                at=at,
                setting=schema.option(underscored).dest,  # type: ignore[union-attr]
                fix=f"write {underscored}",
            )
            setting = schema.option(underscored).dest  # type: ignore[union-attr]
        elif older and not newer:
            last = older[-1]
            msg = (
                f"{shown_flag} was accepted up to {last.label} but {schema.label} does not know it: "
                "the server "
                'refuses to start ("unrecognized arguments", exit 2)'
            )
            if repl:
                msg += f"; in {schema.label} the setting is {repl}"
            self.add(
                rules.PA_REMOVED,
                msg,
                at=at,
                setting=setting,
                fix=f"use {repl}" if repl else "remove the flag, or pin the older release",
            )
        elif newer:
            first = newer[0]
            msg = (
                f"{shown_flag} only exists from {first.label} on; {schema.label} rejects it with "
                '"unrecognized arguments" (exit 2)'
            )
            if repl:
                msg += f"; this release spells it {repl}"
            self.add(
                rules.PA_NOT_YET,
                msg,
                at=at,
                setting=setting,
                fix=f"use {repl}" if repl else f"upgrade to {first.version} or drop the flag",
            )
        elif other:
            equivalents = _equivalents(schema, self.others)
            eq = equivalents.get(flag)
            if eq == "--model" and self.server.entrypoint == "vllm serve":
                eq = "put the model as the first word after `vllm serve`"
            other_fw = other[-1][0].framework
            msg = (
                f"{shown_flag} is {_a(_fw_name(other_fw))} flag; {_fw_name(schema.framework)} rejects it "
                'with "unrecognized arguments" (exit 2)'
            )
            if eq and eq.startswith("-"):
                msg += f"; the {_fw_name(schema.framework)} equivalent is {eq}"
                fix = f"use {eq}"
            elif eq:
                msg += f"; in {_fw_name(schema.framework)}, {eq}"
                fix = eq if not eq.startswith("nothing") else "remove the flag"
            else:
                fix = f"find the {_fw_name(schema.framework)} setting for it"
            self.add(rules.PA_OTHER_FRAMEWORK, msg, at=at, setting=setting, fix=fix)
        else:
            near = _nearest(flag, schema)
            msg = (
                f"{shown_flag} is not a {schema.label} flag: the server refuses to start "
                '("unrecognized arguments", exit 2)'
            )
            if near:
                msg += f"; did you mean {near}?"
            self.add(rules.PA_UNRECOGNIZED, msg, at=at, setting=setting, fix=f"use {near}" if near else None)
        self.result.unknown_settings.add(setting)
        obs: list[Observation] = []
        value_words: list[tuple[int, str | None]] = []
        if "=" in typed:
            value_words.append((idx, typed.split("=", 1)[1]))
        for v in value_idxs:
            vt = self.tok(v)
            value_words.append((v, vt.text if vt is not None else None))
        src_tokens = [idx] if not value_idxs else value_idxs
        for t in src_tokens:
            word = _word(self.server, self.tok(t))
            if word is None:
                continue
            value = word.text
            if t == idx and "=" in (word.text or ""):
                value = (word.text or "").split("=", 1)[1]
            obs.append(
                Observation(
                    "shell",
                    value,
                    at=word.origin.at,
                    known=word.known,
                    reason=None if word.known else word.origin.reason,
                    detail={"expansion": word.origin.expansion},
                )
            )
        for t in src_tokens:
            word = _word(self.server, self.tok(t))
            if word is None:
                continue
            value = word.text
            if t == idx and "=" in (word.text or ""):
                value = (word.text or "").split("=", 1)[1]
            obs.append(
                Observation(
                    "process",
                    value,
                    at=self.server.at,
                    known=word.known,
                    detail={"rejected_by": schema.label},
                )
            )
        if setting not in self.result.observations:
            self.result.observations[setting] = (shown_flag, obs)
            vals = [v for _, v in value_words]
            self.result.intended[setting] = (vals[0] if len(vals) == 1 else vals) if vals else True

    # -- unknown words
    def _unknown_words(self) -> None:
        rules = self.rules
        for ev in self.outcome.events:
            for i in ev.value_toks:
                tok = self.tok(i)
                if tok is not None and tok.text is None:
                    word = _word(self.server, tok)
                    reason = (
                        word.origin.reason
                        if word is not None and word.origin.reason
                        else "cannot be known statically"
                    )
                    exp = word.origin.expansion if word is not None else None
                    self.add(
                        rules.PA_UNKNOWN_VALUE,
                        f"the value of {ev.option or ev.spec.dest} comes from {exp or 'a word'} "
                        f"({reason}): {ev.spec.dest} cannot be known before the server runs",
                        at=self.at(i),
                        setting=ev.spec.dest,
                    )
        for i in self.outcome.extras:
            tok = self.tok(i)
            if tok is not None and tok.text is None:
                word = _word(self.server, tok)
                exp = word.origin.expansion if word is not None else None
                self.add(
                    rules.PA_UNKNOWN_VALUE,
                    f"argv word {exp or ''} cannot be known statically and is not the value of a flag; "
                    "it may add flags this analysis cannot see",
                    at=self.at(i),
                )

    def _required(self) -> None:
        if self.outcome.help_exit or self.fatal:
            return
        unknown_words = any(
            (tok := self.tok(i)) is not None and tok.text is None for i in self.outcome.extras
        )
        for spec in (*self.schema.options, *self.schema.positionals):
            if spec.required and not any(ev.spec.dest == spec.dest for ev in self.outcome.events):
                name = spec.flag or spec.dest
                if unknown_words:
                    self.add(
                        self.rules.PA_REQUIRED,
                        f"{name} is required by {self.schema.label} and is not among the known words; "
                        "only a word that cannot be known statically could still provide it",
                        at=self.server.at,
                        setting=spec.dest,
                        severity="info",
                    )
                    continue
                self.add(
                    self.rules.PA_REQUIRED,
                    f"{name} is required by {self.schema.label} and is not given: argparse "
                    'stops with "the following arguments are required" (exit 2)',
                    at=self.server.at,
                    setting=spec.dest,
                    fix=f"add {name} VALUE",
                )

    def _dotted_overrides(self) -> None:
        """vLLM appends merged dotted keys at the end: an earlier whole-JSON value of the flag is replaced."""
        if not self.prepared.dotted:
            return
        flags = {p.flag for p in self.prepared.dotted}
        for flag in flags:
            events = [e for e in self.outcome.events if e.option == flag or (e.spec.flag == flag)]
            whole = [e for e in events if self.via(e.option_tok) != "dotted"]
            if whole and events and events[-1] not in whole:
                lost = whole[-1]
                self.add(
                    self.rules.PA_JSON_OVERRIDE,
                    f"{flag} is given as a whole JSON value and as dotted keys ({flag}.KEY): vLLM merges the "
                    f"dotted keys into a new JSON value appended at the end of argv, which replaces "
                    f"{_show(flag, lost.raw[0] if lost.raw else '')} entirely",
                    at=self.at(lost.option_tok),
                    setting=lost.spec.dest,
                    fix=f"put every key in one place: either the JSON value or {flag}.KEY words",
                )


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


_NO_EFFECT = re.compile(
    r"(?i)\b(?:has no effect|no longer has any effect|is ignored|is a no-op|does nothing)\b"
)


def _deprecation_sentence(help_text: str | None) -> str | None:
    """The sentence of a flag's help that says it is deprecated (quoted in PA005)."""
    for sentence in re.split(r"(?<=[.!])\s+", " ".join((help_text or "").split())):
        if re.search(r"(?i)deprecat", sentence):
            return sentence[:240]
    return None


def _a(word: str) -> str:
    """ "an SGLang", "a vLLM" (SGLang is read letter by letter)."""
    return ("an " if word[:1].lower() in "aeios" else "a ") + word


def _fw_name(name: str) -> str:
    return {"sglang": "SGLang", "vllm": "vLLM"}.get(name, name)


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


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
