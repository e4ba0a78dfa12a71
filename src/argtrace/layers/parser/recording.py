"""The argparse pieces that record what the real parser does: a parser subclass that raises instead of
exiting and remembers which token each option string came from (:class:`_Tok`), and the actions that do
what the framework's own action does while logging every occurrence as an :class:`Event` (which option
string matched, what was typed, which argv words were consumed, what was stored, what would be rejected).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from argtrace import safe_json
from argtrace.frameworks.schema import OptionSpec
from argtrace.layers.parser.values import UNKNOWN, Invalid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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

    def set_defaults(self, **kwargs: Any) -> None:
        super().set_defaults(**kwargs)
        self.__dict__.pop("_defaults_kept", None)  # it may change actions' defaults: read them again

    def fresh_namespace(self) -> argparse.Namespace:
        """A namespace already holding what ``parse_known_args`` puts in a new one before parsing: each
        action's default (the first action of a dest wins; a SUPPRESS default is left out), then the parser's
        ``set_defaults`` values. Given this namespace, argparse finds every dest set and parses the same way
        (its end-of-parse default conversion compares ``action.default is`` the stored value: the very same
        objects). The values are read once per parser, and read again if an action was added since
        (argparse only appends actions) or ``set_defaults`` ran; nothing here reassigns an action's default.
        A new namespace cost each parse ~500 failed ``hasattr`` (an ``AttributeError`` each), ~0.7 M
        instructions (issue 18)."""
        kept = self.__dict__.get("_defaults_kept")
        if kept is None or kept[0] != len(self._actions):
            values: dict[str, Any] = {}
            for action in self._actions:
                if action.dest is not argparse.SUPPRESS and action.default is not argparse.SUPPRESS:
                    values.setdefault(action.dest, action.default)
            for dest, value in self._defaults.items():
                values.setdefault(dest, value)
            kept = self.__dict__["_defaults_kept"] = (len(self._actions), values)
        namespace = argparse.Namespace()
        namespace.__dict__.update(kept[1])
        return namespace

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
        converter: Callable[[], tuple[Any, bool]] | None = None,
        **kwargs: Any,
    ):
        super().__init__(option_strings, dest, **kwargs)
        self._exact = exact
        # (type, exact) made when first read: a check reads the converters of the few options its argv
        # names (and of those whose default is a string, which argparse converts), of ~500 (issue 18)
        self._converter = converter
        self.spec = spec
        self.kind = kind
        self.real_choices = real_choices
        self.negatives = negatives

    def _made(self) -> None:
        assert self._converter is not None
        self._type, self._exact = self._converter()
        self._converter = None

    @property
    def type(self) -> Any:
        if self._converter is not None:
            self._made()
        return self._type

    @type.setter
    def type(self, value: Any) -> None:  # argparse.Action.__init__ sets it
        self._type = value

    @property
    def exact(self) -> bool:
        """Whether the value converter is the framework's own (else a choice refusal is only probable)."""
        if self._converter is not None:
            self._made()
        return self._exact

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
            raised = self.spec.raw.get("removed")
            if message:
                errors.append(("retired", str(message)))
            elif raised:
                # the generator's probe saw the action raise (SGLang 0.4-0.5.3's DeprecatedAction:
                # ``raise ValueError(self.help)``): not argparse's exit 2 but a traceback, the launch stops
                errors.append(("raised", str(raised)))
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
                    out.append(safe_json.loads(text))
                    continue
                except json.JSONDecodeError:
                    pass
            out.append(text)
        else:
            out.append(item)
    return out
