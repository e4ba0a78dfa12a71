"""A safe reader for the Python reprs that servers print as their configuration. Never ``eval``.

Shapes it reads:

- SGLang <= 0.5.18: ``ServerArgs(model_path='x', tp_size=8, cuda_graph_bs=[1, 2], ...)`` (a dataclass repr);
- SGLang >= 0.5.19: ``{'model_path': 'x', 'cuda_graph_config': {'decode': {...}}, ...}`` (a dict);
- vLLM ``non-default args: {...}`` (a dict) and ``with config: model='x', dtype=torch.bfloat16,
  served_model_name=my-model, compilation_config={'mode': <CompilationMode.NONE: 0>, ...}`` (keyword pairs
  whose values are sometimes bare text).

Non-literals are kept as text rather than rejected: enum reprs (``<CompilationMode.NONE: 0>`` becomes
``"CompilationMode.NONE"``), dotted names (``torch.bfloat16``), ``<class 'x.Y'>``, and calls: a path type
(``PosixPath('/m')``) becomes its string, any other record (``StructuredOutputsConfig(backend='auto')``)
a dict with its class under ``"__class__"``. A dump cut short (a truncated log line) yields every pair that
was complete and ``truncated=True``.

A server restarted in a loop appends the same arguments line at every start (thousands in a day's log):
the last few texts read are remembered, and each call still gets a dump of its own to change.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace

from argtrace.layers.log.lazyre import LazyPattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PATH_TYPES = frozenset({"PosixPath", "WindowsPath", "Path", "PurePosixPath", "PureWindowsPath"})
_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_MAX_DEPTH = 64
# Runs taken in one match instead of a character at a time (issue 18: vLLM's 2.8 kB ``with config:`` line
# cost 5.7 M instructions): a name's characters (``\w`` is ``str.isalnum()`` or "_", sre's own test) and
# dots; a string's characters that can neither close it (its quote) nor start an escape (a backslash, unless
# the string is raw). tests/log/test_pyrepr.py compares both with the character loops they replace.
# Compiled on first use: a log without a configuration dump reads none.
_IDENT = LazyPattern(r"[\w.]*")
_STRING_RUN = {
    (quote, raw): LazyPattern(f"[^{quote}]*" if raw else f"[^{quote}\\\\]*")
    for quote in "'\""
    for raw in (False, True)
}


class _Truncated(Exception):
    """The text ended inside a value."""


class _Unparsable(Exception):
    """The text at this position is not a value this reader knows."""


@dataclass
class ParsedDump:
    """One configuration dump: its pairs in order, what it was, and how complete it is."""

    values: dict[str, Any]
    kind: str  # "sglang-repr", "sglang-dict", "vllm-args", "vllm-config", "dict", "record"
    class_name: str | None = None
    truncated: bool = False
    # Keys whose value could not be read as a literal and were kept as raw text.
    raw_keys: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class _Reader:
    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.depth = 0

    # -- low level -------------------------------------------------------------------------------
    def ws(self) -> None:
        s, n, i = self.s, self.n, self.i
        while i < n and s[i] in " \t\r\n":
            i += 1
        self.i = i

    def peek(self) -> str:
        self.ws()
        if self.i >= self.n:
            raise _Truncated
        return self.s[self.i]

    def at_end(self) -> bool:
        self.ws()
        return self.i >= self.n

    def ident(self) -> str:
        start = self.i
        self.i = _IDENT.match(self.s, start).end()  # type: ignore[union-attr]  # it matches ""
        return self.s[start : self.i]

    # -- values ----------------------------------------------------------------------------------
    def value(self) -> Any:
        c = self.peek()
        if c in "'\"" or (c in "rbuRBUf" and self._string_prefix()):
            return self.string()
        if c.isdigit() or (c in "-+." and self.i + 1 < self.n and (self.s[self.i + 1].isdigit())):
            return self.number()
        if c in "([{":
            return self.container(c)
        if c == "<":
            return self.angle()
        if c.isalpha() or c == "_":
            return self.name_or_call()
        if c == "-" and self.s.startswith("-inf", self.i):
            self.i += 4
            return -math.inf
        raise _Unparsable(f"unexpected {c!r} at {self.i}")

    def _string_prefix(self) -> bool:
        j = self.i
        while j < self.n and j - self.i < 2 and self.s[j] in "rbuRBUf":
            j += 1
        return j < self.n and self.s[j] in "'\""

    def string(self) -> str:
        raw = False
        while self.s[self.i] in "rbuRBUf":
            raw = raw or self.s[self.i] in "rR"
            self.i += 1
        quote = self.s[self.i]
        triple = self.s.startswith(quote * 3, self.i)
        delim = quote * 3 if triple else quote
        self.i += len(delim)
        out: list[str] = []
        s, n = self.s, self.n
        run = _STRING_RUN[quote, raw]
        while True:
            if self.i >= n:
                raise _Truncated
            if s.startswith(delim, self.i):
                self.i += len(delim)
                return "".join(out)
            ch = s[self.i]
            if ch == "\\" and not raw:
                if self.i + 1 >= n:
                    raise _Truncated
                out.append(self._escape())
                continue
            # this character (a lone quote inside a triple-quoted string, too) and the run after it
            end = run.match(s, self.i + 1).end()  # type: ignore[union-attr]  # it matches ""
            out.append(s[self.i : end])
            self.i = end

    def _escape(self) -> str:
        s = self.s
        nxt = s[self.i + 1]
        simple = {
            "n": "\n",
            "t": "\t",
            "r": "\r",
            "\\": "\\",
            "'": "'",
            '"': '"',
            "0": "\0",
            "a": "\a",
            "b": "\b",
            "f": "\f",
            "v": "\v",
        }
        if nxt in simple:
            self.i += 2
            return simple[nxt]
        width = {"x": 2, "u": 4, "U": 8}.get(nxt)
        if width:
            digits = s[self.i + 2 : self.i + 2 + width]
            if len(digits) < width:
                raise _Truncated
            try:
                ch = chr(int(digits, 16))
            except ValueError:
                ch = "\\" + nxt + digits
            self.i += 2 + width
            return ch
        self.i += 2
        return "\\" + nxt

    def number(self) -> Any:
        s, n, start = self.s, self.n, self.i
        i = start
        if s[i] in "+-":
            i += 1
        while i < n and (s[i].isalnum() or s[i] in "._+-"):
            # stop at a sign that is not an exponent sign
            if s[i] in "+-" and s[i - 1] not in "eE":
                break
            i += 1
        text = s[start:i]
        self.i = i
        try:
            return int(text.replace("_", ""), 0) if not any(ch in text for ch in ".eEn") else float(text)
        except ValueError:
            try:
                return float(text)
            except ValueError:
                if i >= n:
                    raise _Truncated from None
                return text

    def container(self, opener: str) -> Any:
        closer = _CLOSERS[opener]
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _Unparsable("nested too deeply")
        self.i += 1
        items: list[Any] = []
        pairs: dict[Any, Any] = {}
        is_dict = False
        trailing_comma = False
        while True:
            c = self.peek()
            if c == closer:
                self.i += 1
                break
            item = self.value()
            if self.peek() == ":" and opener == "{":
                self.i += 1
                is_dict = True
                key = item if isinstance(item, (str, int, float, bool)) or item is None else str(item)
                pairs[key] = self.value()
            else:
                items.append(item)
            c = self.peek()
            if c == ",":
                self.i += 1
                trailing_comma = True
                continue
            if c == closer:
                self.i += 1
                trailing_comma = False
                break
            raise _Unparsable(f"expected ',' or {closer!r} at {self.i}")
        self.depth -= 1
        if opener == "{":
            return pairs if (is_dict or not items) else items  # a set becomes a list
        if opener == "(" and len(items) == 1 and not trailing_comma:
            return items[0]
        return items

    def angle(self) -> str:
        """``<CompilationMode.NONE: 0>`` -> ``CompilationMode.NONE``; ``<class 'a.B'>`` -> ``a.B``."""
        start = self.i
        depth = 0
        s, n = self.s, self.n
        i = start
        while i < n:
            ch = s[i]
            if ch == "<":
                depth += 1
            elif ch == ">":
                depth -= 1
                if depth == 0:
                    break
            elif ch in "'\"":
                j = s.find(ch, i + 1)
                if j < 0:
                    raise _Truncated
                i = j
            i += 1
        if i >= n:
            raise _Truncated
        self.i = i + 1
        inner = s[start + 1 : i].strip()
        if inner.startswith(("class ", "enum ")) and "'" in inner:
            return inner.split("'")[1]
        head = inner.split(":", 1)[0].strip() if ":" in inner else inner
        if " object at 0x" in head:
            return head.split(" object at 0x", 1)[0]
        if head.startswith(("function ", "bound method ", "built-in function ")):
            return head.split(" ")[1] if head.split(" ")[0] != "bound" else head.split(" ")[2]
        return head

    def name_or_call(self) -> Any:
        start = self.i
        name = self.ident()
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        if name in ("inf", "nan"):
            return float(name)
        if self.i < self.n and self.s[self.i] == "(":
            return self.call(name)
        if not name:
            self.i = start
            raise _Unparsable(f"unexpected text at {start}")
        return name

    def call(self, name: str) -> Any:
        self.i += 1
        self.depth += 1
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        while True:
            c = self.peek()
            if c == ")":
                self.i += 1
                break
            save = self.i
            key = self.ident() if (c.isalpha() or c == "_") else ""
            if key and self.peek() == "=" and not self.s.startswith("==", self.i):
                self.i += 1
                kwargs[key] = self.value()
            else:
                self.i = save
                args.append(self.value())
            c = self.peek()
            if c == ",":
                self.i += 1
                continue
            if c == ")":
                self.i += 1
                break
            raise _Unparsable(f"expected ',' or ')' at {self.i}")
        self.depth -= 1
        short = name.rsplit(".", 1)[-1]
        if short in _PATH_TYPES and len(args) == 1 and not kwargs:
            return str(args[0])
        if not args and kwargs:
            return {"__class__": name, **kwargs}
        if args and not kwargs and len(args) == 1:
            return {"__class__": name, "args": args}
        return {"__class__": name, "args": args, **kwargs}


def parse_value(text: str) -> Any:
    """One Python-repr value; raises ``ValueError`` when it is not one."""
    reader = _Reader(text)
    try:
        value = reader.value()
    except (_Truncated, _Unparsable, RecursionError, IndexError) as exc:
        raise ValueError(f"not a Python repr value: {exc or 'truncated'}") from None
    if not reader.at_end():
        raise ValueError(f"trailing text at {reader.i}")
    return value


def _own_copy(dump: ParsedDump) -> ParsedDump:
    # the pairs' values are shared: nothing downstream changes a value in place, only the dump's fields
    return replace(dump, values=dict(dump.values), raw_keys=list(dump.raw_keys), errors=list(dump.errors))


def parse_record(text: str, kind: str = "record") -> ParsedDump:
    """``Name(k=v, ...)`` or ``{k: v, ...}``, tolerating truncation; pairs read so far are kept."""
    return _own_copy(_parse_record(text, kind))


@functools.lru_cache(maxsize=8)
def _parse_record(text: str, kind: str) -> ParsedDump:
    reader = _Reader(text)
    reader.ws()
    if reader.at_end():
        return ParsedDump({}, kind, truncated=True, errors=["empty dump"])
    if reader.s[reader.i] == "{":
        return _parse_dict_pairs(reader, kind)
    name = reader.ident()
    if not name or reader.i >= reader.n or reader.s[reader.i] != "(":
        return ParsedDump({}, kind, errors=[f"not a record at {reader.i}"])
    reader.i += 1
    dump = _parse_kw_pairs(reader, kind, closer=")", loose=True)
    dump.class_name = name
    return dump


def parse_kw_list(text: str, kind: str = "vllm-config") -> ParsedDump:
    """``k=v, k=v`` pairs as in vLLM's ``with config:`` line; bare values are read up to the next pair."""
    return _own_copy(_parse_kw_list(text, kind))


@functools.lru_cache(maxsize=8)
def _parse_kw_list(text: str, kind: str) -> ParsedDump:
    reader = _Reader(text)
    return _parse_kw_pairs(reader, kind, closer=None, loose=True)


def _parse_dict_pairs(reader: _Reader, kind: str) -> ParsedDump:
    dump = ParsedDump({}, kind)
    reader.i += 1  # "{"
    while True:
        try:
            c = reader.peek()
            if c == "}":
                reader.i += 1
                return dump
            key = reader.value()
            if reader.peek() != ":":
                dump.errors.append(f"expected ':' at {reader.i}")
                return dump
            reader.i += 1
            value = reader.value()
            dump.values[str(key)] = value
            c = reader.peek()
            if c == ",":
                reader.i += 1
                continue
            if c == "}":
                reader.i += 1
                return dump
            dump.errors.append(f"expected ',' or '}}' at {reader.i}")
            return dump
        except _Truncated:
            dump.truncated = True
            return dump
        except (_Unparsable, RecursionError, IndexError) as exc:
            dump.errors.append(str(exc))
            return dump


def _parse_kw_pairs(reader: _Reader, kind: str, closer: str | None, loose: bool) -> ParsedDump:
    dump = ParsedDump({}, kind)
    while True:
        try:
            if reader.at_end():
                dump.truncated = closer is not None
                return dump
            c = reader.peek()
            if closer is not None and c == closer:
                reader.i += 1
                return dump
            key = reader.ident()
            if not key or reader.peek() != "=":
                dump.errors.append(f"expected 'name=' at {reader.i}")
                return dump
            reader.i += 1
            start = reader.i
            try:
                value = reader.value()
                ok = (
                    reader.at_end()
                    or reader.peek() == ","
                    or (closer is not None and reader.peek() == closer)
                )
            except _Unparsable:
                ok = False
                value = None
            if not ok:
                if not loose:
                    dump.errors.append(f"unreadable value for {key!r} at {start}")
                    return dump
                reader.i = start
                value = _bare_text(reader)
                dump.raw_keys.append(key)
            dump.values[key] = value
            if reader.at_end():
                dump.truncated = closer is not None
                return dump
            c = reader.peek()
            if c == ",":
                reader.i += 1
                continue
            if closer is not None and c == closer:
                reader.i += 1
                return dump
            dump.errors.append(f"expected ',' at {reader.i}")
            return dump
        except _Truncated:
            dump.truncated = True
            return dump
        except (RecursionError, IndexError) as exc:
            dump.errors.append(str(exc) or type(exc).__name__)
            return dump


def _bare_text(reader: _Reader) -> str:
    """Text up to the next top-level ``, name=`` (vLLM prints some values unquoted)."""
    s, n = reader.s, reader.n
    i = reader.i
    depth = 0
    while i < n:
        ch = s[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            j = i + 1
            while j < n and s[j] == " ":
                j += 1
            k = j
            while k < n and (s[k].isalnum() or s[k] == "_"):
                k += 1
            if k > j and k < n and s[k] == "=":
                break
        i += 1
    text = s[reader.i : i].strip()
    reader.i = i
    return text
