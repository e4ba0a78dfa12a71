"""The static evaluator: walks the tree-sitter structure, re-reads each simple command with bash's word rules
(``lexer.py``) and computes what every command would receive, without executing anything.

What cannot be known statically (command substitution, ``read``, a branch on run-time state, arithmetic on
unknown values) is carried as ``None`` with a reason. Branches whose condition is unknown are evaluated on
copies of the state and merged: a variable that differs between them becomes unknown, and server commands
found inside them are still reported (as conditional).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from argtrace.frameworks.detect import Detection, detect_server, unwrap_command
from argtrace.layers.shell import hostfs  # the files of the host the script runs on (--host)
from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.arith import ArithError
from argtrace.layers.shell.arith import Evaluator as ArithEvaluator
from argtrace.layers.shell.state import Snapshot, Var

# Evaluation steps (a command or compound command, a command substitution) for the whole script, sourced
# files and evals included: MAX_STEPS plus one per STEP_BYTES bytes of the script, so that a long script
# without loops (about 3 steps per 40-byte line) is always evaluated to its end while loops and nesting get
# at most MAX_STEPS more. Counted, not timed, so a result never depends on the machine: real launch scripts
# take at most 50 steps (the corpus in tests/data/shell); 30,000 take 3-12 s on a 2-core machine.
MAX_STEPS = 30_000
STEP_BYTES = 8
MAX_LOOP = 10_000
# distinct servers one command inside a loop may start before the rest are folded into the last one
MAX_LOOP_SERVERS = 64
MAX_DEPTH = 100


# -------------------------------------------------------------------------- sources


class Source:
    """One piece of script text: the main script, a sourced file, or an ``eval``'d string."""

    def __init__(self, label: str, text: str, path: str | None, fixed_at: str | None = None) -> None:
        self.label = label
        self.text = text  # latin-1, placeholders substituted
        self.path = path
        self.fixed_at = fixed_at
        self._line_starts: list[int] | None = None
        self._ascii_cache: dict[int, bool] = {}
        self.tree: Any = None

    @property
    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            starts = [0]
            find = self.text.find
            i = find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self._line_starts = starts
        return self._line_starts

    _last_line = 0

    def line_col(self, offset: int) -> tuple[int, int]:
        ls = self.line_starts
        line = self._last_line
        # scripts are read in order: try the line of the previous lookup first
        if not (ls[line] <= offset and (line + 1 >= len(ls) or offset < ls[line + 1])):
            line = bisect.bisect_right(ls, offset) - 1
            self._last_line = line
        start = ls[line]
        if self._ascii_line(line):
            return line + 1, offset - start + 1
        prefix = self.text[start:offset]
        return line + 1, len(prefix.encode("latin-1").decode("utf-8", "replace")) + 1

    def _ascii_line(self, line: int) -> bool:
        cache = self._ascii_cache
        hit = cache.get(line)
        if hit is None:
            ls = self.line_starts
            end = ls[line + 1] if line + 1 < len(ls) else len(self.text)
            hit = self.text[ls[line] : end].isascii()
            if len(cache) > 4096:
                cache.clear()
            cache[line] = hit
        return hit

    def at(self, offset: int) -> str:
        if self.fixed_at is not None:
            return self.fixed_at
        line, col = self.line_col(offset)
        return f"{self.label}:{line}:{col}"

    def line_at(self, offset: int) -> str:
        if self.fixed_at is not None:
            return self.fixed_at.rsplit(":", 1)[0]
        line, _ = self.line_col(offset)
        return f"{self.label}:{line}"

    def line_text(self, line: int) -> str:
        ls = self.line_starts
        start = ls[line - 1]
        end = ls[line] - 1 if line < len(ls) else len(self.text)
        return self.text[start:end]


def to_str(text: str) -> str:
    """latin-1 internal text -> the real (UTF-8 decoded) string, placeholders restored."""
    text = L.restore(text)
    if text.isascii():
        return text
    return text.encode("latin-1").decode("utf-8", "replace")


def from_str(text: str) -> str:
    """A real string -> latin-1 internal text."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("latin-1")


# -------------------------------------------------------------------------- results


@dataclass
class ExpWord:
    """One field produced by expanding a word."""

    text: str | None  # latin-1; None: unknown
    at: str
    expansion: str  # "literal" or the word's source text
    reason: str | None = None
    quoted_expansion: bool = False  # the word is one quoted expansion ("$x", "${@:3}")
    split_from: str | None = None  # set when an unquoted expansion split into several fields
    offset: int = 0


@dataclass
class Vanished:
    """An expansion in the server's argv that produced no word at all."""

    index: int  # argv index where the word would have been
    raw: str
    at: str
    state: str  # "unset" | "empty"
    name: str | None


@dataclass
class FoundServer:
    detection: Detection
    argv: list[ExpWord]
    env: dict[str, tuple[str | None, str | None, str, str | None]]  # name -> (value, at, expansion, reason)
    at: str
    line: int
    cwd: str | None
    backgrounded: bool
    conditional: str | None
    redirects: list[tuple[str | None, str, str | None, str]]  # (fd, op, target, at)
    inherited_redirects: list[tuple[str | None, str, str | None, str]]
    in_pipeline: bool
    vanished: list[Vanished]
    source_label: str
    offset: int
    nohup: bool
    index: int = 0
    # "FILE:LINE" of the loop that starts this server again and again (a restart loop, `for i in $(seq N)`,
    # or the same command with the same words in several iterations): reported once, marked repeated
    loop: str | None = None


@dataclass
class _Loop:
    """A loop being evaluated: where it is and which servers were recorded since it started."""

    at: str  # FILE:LINE
    first_server: int  # index into ShellEvaluator.servers
    unbounded: bool = False  # the number of iterations is unknown (or infinite): every start inside repeats
    stop: bool = False  # set when further iterations could only fold more servers into one (MAX_LOOP_SERVERS)


@dataclass
class Event:
    """Something the rules turn into a finding (kept neutral so evaluate.py does not format messages)."""

    kind: str
    at: str | None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class PredictedCommand:
    at: str
    argv: list[str | None]
    conditional: str | None


# -------------------------------------------------------------------------- control flow


class _Exit(Exception):
    def __init__(self, status: int | None, reason: str | None = None) -> None:
        self.status = status
        self.reason = reason


class _Return(Exception):
    def __init__(self, status: int | None) -> None:
        self.status = status


class _Break(Exception):
    def __init__(self, n: int) -> None:
        self.n = n


class _Continue(Exception):
    def __init__(self, n: int) -> None:
        self.n = n


class _Budget(Exception):
    pass


@dataclass
class _Chunk:
    text: str | None
    quoted: bool
    split: bool  # an unquoted expansion result: subject to IFS splitting and globbing
    reason: str | None = None


_BREAK = _Chunk("", True, False, "BREAK")
_QUIET_BUILTINS = {"echo", "printf", ":", "true"}
# words whose expansion has no side effect: no $(...), backquotes, ${x:=...}, $((...)), $!, printf -v
_NO_SIDE_EFFECTS = re.compile(r"(?![\s\S]*(?:\$\(|`|:?=|\$!|^-v$))[\s\S]*")
# a word with nothing for bash to expand, quote-remove, split or glob
_PLAIN = re.compile(r"[^\s$`'\"\\~{*?\[\x01\x02\x03]*")

_SUCCESS_COMMANDS = {
    "echo",
    "printf",
    "mkdir",
    "touch",
    "sleep",
    "true",
    ":",
    "rm",
    "ln",
    "cp",
    "mv",
    "chmod",
    "tee",
    "date",
    "ulimit",
    "umask",
    "trap",
    "shopt",
    "hash",
    "set",
    "sync",
    "clear",
    "nvidia-smi",
    "hostname",
    "whoami",
}
_CLEAN_SPECIAL = {"export", "readonly", "declare", "typeset", "local", "unset"}


def _glob_to_regex(chunks: Sequence[tuple[str, bool]], extglob: bool = True) -> str:
    """Translate a bash pattern (pieces with a quoted flag) into a Python regex."""
    out: list[str] = []
    for text, quoted in chunks:
        if quoted:
            out.append(re.escape(text))
            continue
        i = 0
        n = len(text)
        while i < n:
            c = text[i]
            if c == "\\" and i + 1 < n:
                out.append(re.escape(text[i + 1]))
                i += 2
            elif c == "*":
                out.append("[\\s\\S]*")
                i += 1
            elif c == "?":
                out.append("[\\s\\S]")
                i += 1
            elif c == "[":
                j = i + 1
                if j < n and text[j] in "!^":
                    j += 1
                if j < n and text[j] == "]":
                    j += 1
                while j < n and text[j] != "]":
                    if text.startswith("[:", j):
                        k = text.find(":]", j + 2)
                        j = k + 2 if k > 0 else j + 1
                    else:
                        j += 1
                if j >= n:
                    out.append("\\[")
                    i += 1
                    continue
                body = text[i + 1 : j]
                neg = body[:1] in ("!", "^")
                if neg:
                    body = body[1:]
                classes = {
                    "alpha": "a-zA-Z",
                    "digit": "0-9",
                    "alnum": "a-zA-Z0-9",
                    "upper": "A-Z",
                    "lower": "a-z",
                    "space": "\\s",
                    "xdigit": "0-9a-fA-F",
                    "punct": "!-/:-@\\[-`{-~",
                    "word": "\\w",
                    "blank": " \\t",
                }
                body = re.sub(r"\[:(\w+):\]", functools.partial(_posix_class, classes), body)
                body = body.replace("\\", "\\\\").replace("]", "\\]") if body else body
                out.append("[" + ("^" if neg else "") + body + "]")
                i = j + 1
            elif extglob and c in "@?*+!" and i + 1 < n and text[i + 1] == "(":
                j = text.find(")", i)
                if j < 0:
                    out.append(re.escape(c))
                    i += 1
                    continue
                alts = "|".join(re.escape(a) for a in text[i + 2 : j].split("|"))
                out.append(
                    {
                        "@": f"(?:{alts})",
                        "?": f"(?:{alts})?",
                        "*": f"(?:{alts})*",
                        "+": f"(?:{alts})+",
                        "!": f"(?!(?:{alts})$)[\\s\\S]*",
                    }[c]
                )
                i = j + 1
            else:
                out.append(re.escape(c))
                i += 1
    return "".join(out)


def _has_glob(text: str) -> bool:
    if "*" in text or "?" in text:
        return True
    i = text.find("[")
    return i >= 0 and text.find("]", i + 1) > 0


def _posix_class(classes: dict[str, str], m: re.Match[str]) -> str:
    return classes.get(m.group(1), "")


BRACE_LIMIT = 10_000


class BraceLimit(Exception):
    pass


def brace_expand(raw: str) -> list[str]:
    """Bash brace expansion of one raw word (quotes respected); returns [raw] when nothing expands.

    Raises BraceLimit when the word would expand to more than BRACE_LIMIT words."""
    out = _brace_expand(raw)
    if len(out) > BRACE_LIMIT:
        raise BraceLimit()
    return out


def _brace_expand(raw: str) -> list[str]:
    n = len(raw)
    i = 0
    while i < n:
        skipped = L.skip_quoted(raw, i, n, ansi=True, backtick=True)
        if skipped != i:
            i = skipped
            continue
        c = raw[i]
        if c == "{":
            j, commas = _brace_close(raw, i + 1)
            if j > 0:
                inner = raw[i + 1 : j]
                pre, post = raw[:i], raw[j + 1 :]
                if commas:
                    alts: list[str] = []
                    last = i + 1
                    for k in commas:
                        alts.append(raw[last:k])
                        last = k + 1
                    alts.append(raw[last:j])
                    out: list[str] = []
                    for alt in alts:
                        out.extend(_brace_expand(pre + alt + post))
                        if len(out) > BRACE_LIMIT:
                            return out
                    return out
                m = re.fullmatch(
                    r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([a-zA-Z])\.\.([a-zA-Z])(?:\.\.(-?\d+))?", inner
                )
                if m:
                    seq: list[str]
                    if m.group(1) is not None:
                        a, b_ = int(m.group(1)), int(m.group(2))
                        step = abs(int(m.group(3))) if m.group(3) else 1
                        step = step or 1
                        width = (
                            max(len(m.group(1)), len(m.group(2)))
                            if (
                                (m.group(1).lstrip("-").startswith("0") and len(m.group(1).lstrip("-")) > 1)
                                or (
                                    m.group(2).lstrip("-").startswith("0") and len(m.group(2).lstrip("-")) > 1
                                )
                            )
                            else 0
                        )
                        rng = range(a, b_ + 1, step) if a <= b_ else range(a, b_ - 1, -step)
                        seq = [str(v).zfill(width) if width else str(v) for v in rng]
                    else:
                        a2, b2 = ord(m.group(4)), ord(m.group(5))
                        step = abs(int(m.group(6))) if m.group(6) else 1
                        step = step or 1
                        rng = range(a2, b2 + 1, step) if a2 <= b2 else range(a2, b2 - 1, -step)
                        seq = [chr(v) for v in rng]
                    if len(seq) > 10000:
                        return [raw]
                    out = []
                    for s in seq:
                        out.extend(_brace_expand(pre + s + post))
                        if len(out) > BRACE_LIMIT:
                            return out
                    return out
                # not an expansion: keep looking after this brace
            i += 1
            continue
        i += 1
    return [raw]


def _brace_close(raw: str, i: int) -> tuple[int, list[int]]:
    depth = 1
    commas: list[int] = []
    n = len(raw)
    while i < n:
        skipped = L.skip_quoted(raw, i, n, ansi=False, backtick=False)
        if skipped != i:
            i = skipped
            continue
        c = raw[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i, commas
        elif c == "," and depth == 1:
            commas.append(i)
        i += 1
    return -1, []


# -------------------------------------------------------------------------- evaluator


class ShellEvaluator:
    def __init__(
        self,
        source: Source,
        args: Sequence[str],
        env: Mapping[str, str],
        *,
        arg0: str,
        cwd: str | None,
        parse: Callable[[str], Any],
    ) -> None:
        self.main = source
        self.src = source
        self.parse = parse
        self.events: list[Event] = []
        self._event_keys: set[tuple[str, str | None, str]] = set()
        self.servers: list[FoundServer] = []
        self.commands: list[PredictedCommand] = []
        self.steps = 0
        self.max_steps = MAX_STEPS + len(source.text) // STEP_BYTES
        self.depth = 0
        self.spec: list[str] = []  # reasons of the unknown branches we are inside
        self.source_stack: list[str] = []
        self.redirect_stack: list[list[tuple[str | None, str, str | None, str]]] = []
        self.pipeline_depth = 0
        self.pid_kept = False
        self.waited = False
        self.bg_servers: list[int] = []
        self.last_status: int | None = 0
        self.arg0 = from_str(arg0)
        self.log_writes: list[tuple[str, str, str]] = []  # (file, op, at)
        self.bash_source: list[str] = [from_str(source.label)]
        self.captures: list[dict[str, Any]] = []  # command substitutions being evaluated (innermost last)
        self.exec_fds: dict[str, tuple[str | None, str, str | None, str]] = {}  # `exec > log` so far
        self.loops: list[_Loop] = []  # the loops being evaluated, innermost last
        # state
        scope: dict[str, Var] = {}
        for k, v in env.items():
            scope[from_str(k)] = Var(value=from_str(v), exported=True, at=None, expansion="environment")
        try:
            lvl = int(env.get("SHLVL", "0").strip() or "0") + 1
        except ValueError:
            lvl = 1
        scope["SHLVL"] = Var(value=str(max(lvl, 0)), exported=True, expansion="bash")
        self.cwd: str | None = cwd
        self.cwd_reason: str | None = None if cwd else "the directory the script is started from is unknown"
        if cwd:
            scope["PWD"] = Var(value=from_str(cwd), exported=True, expansion="bash")
        elif "PWD" in scope:
            scope["PWD"] = scope["PWD"].with_(exported=True)
        if "OLDPWD" in scope:
            # bash keeps an inherited OLDPWD only if it names a directory; we cannot tell: keep it
            pass
        scope.pop("IFS", None)  # bash ignores IFS from the environment
        self.scopes: list[dict[str, Var]] = [scope]
        self.positional: list[str] | None = [from_str(a) for a in args]
        self.positional_reason: str | None = None
        self.funcs: dict[str, tuple[Any, Source]] = {}
        self.options: set[str] = set()

    # ---------------------------------------------------------------------- helpers

    def brace_events(self) -> list[Event]:
        """The brace-expansion events (computed once: every server looks at them)."""
        cached: list[Event] | None = getattr(self, "_brace_events", None)
        if cached is None:
            cached = [e for e in self.events if e.kind == "brace"]
            self._brace_events = cached
        return cached

    def emit(self, kind: str, at: str | None, **data: Any) -> None:
        key = (kind, at, repr(sorted((k, str(v)) for k, v in data.items())))
        if key in self._event_keys:
            return
        self._event_keys.add(key)
        if self.spec and "conditional" not in data:
            data["conditional"] = self.spec[-1]
        self.events.append(Event(kind, at, data))

    def step(self, where: int | str) -> None:
        """Count one evaluation step at ``where`` (an offset in the current source, or a location)."""
        self.steps += 1
        if self.steps > self.max_steps:
            self.budget_at = where if isinstance(where, str) else self.src.at(where)
            raise _Budget()

    budget_at: str | None = None  # where the step budget ran out

    def node_text(self, node: Any) -> str:
        return self.src.text[node.start_byte : node.end_byte]

    def lookup(self, name: str) -> Var | None:
        for scope in reversed(self.scopes):
            v = scope.get(name)
            if v is not None:
                return v
        return None

    def set_var(
        self,
        name: str,
        value: str | None,
        *,
        at: str | None,
        expansion: str | None,
        reason: str | None = None,
        append: bool = False,
        local: bool = False,
        **attrs: Any,
    ) -> None:
        scope = self.scopes[-1] if local else self._scope_of(name)
        old = scope.get(name)
        if old is not None and old.readonly:
            self.emit("readonly", at, name=name)
            return
        if ((old is not None and old.integer) or attrs.get("integer")) and value is not None:
            try:
                base_text = (old.scalar if old is not None else None) or "0"
                value = str(self.arith(value if not append else f"{base_text}+({value})"))
                append = False
            except ArithError:
                value = None
                reason = reason or "arithmetic on a value that is not known statically"
        if append and old is not None:
            if old.array is not None and value is not None:
                arr = dict(old.array)
                k = 0 if not old.assoc else "0"
                cur = arr.get(k, "")
                arr[k] = None if cur is None else cur + value
                scope[name] = old.with_(array=tuple(arr.items()), at=at, expansion=expansion)
                return
            base = old.scalar if old.is_set else ""
            value = None if (base is None or value is None) else base + value
            if value is None and reason is None:
                reason = old.reason or "appended to a value that is not known statically"
        known = value is not None
        if old is None and not attrs and "allexport" not in self.options:
            # the common case, without dataclasses.replace
            scope[name] = Var(
                value=value, known=known, reason=None if known else reason, at=at, expansion=expansion
            )
            return
        base_var = old if old is not None else Var()
        new = base_var.with_(
            value=value,
            array=None,
            known=known,
            reason=None if known else reason,
            at=at,
            expansion=expansion,
            is_set=True,
            **attrs,
        )
        if "export" in self.options or "allexport" in self.options:
            new = new.with_(exported=True)
        scope[name] = new

    def _scope_of(self, name: str) -> dict[str, Var]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope
        return self.scopes[0]

    def set_array(
        self,
        name: str,
        items: list[tuple[Any, str | None]] | None,
        *,
        at: str,
        expansion: str,
        append: bool = False,
        reason: str | None = None,
        local: bool = False,
        assoc: bool | None = None,
    ) -> None:
        scope = self.scopes[-1] if local else self._scope_of(name)
        old = scope.get(name)
        if old is not None and old.readonly:
            self.emit("readonly", at, name=name)
            return
        is_assoc = assoc if assoc is not None else bool(old and old.assoc)
        if items is None:
            scope[name] = (old or Var()).with_(
                value=None,
                array=None,
                known=False,
                reason=reason,
                at=at,
                expansion=expansion,
                is_set=True,
                assoc=is_assoc,
            )
            return
        if append and old is not None:
            if not old.known:
                scope[name] = old.with_(at=at, expansion=expansion)
                return
            base = dict(old.array) if old.array is not None else ({0: old.value} if old.is_set else {})
            nxt = (max((k for k in base if isinstance(k, int)), default=-1) + 1) if not is_assoc else 0
            for k, v in items:
                if k is None:
                    base[nxt] = v
                    nxt += 1
                else:
                    base[k] = v
                    if isinstance(k, int):
                        nxt = k + 1
            arr = base
        else:
            arr = {}
            nxt = 0
            for k, v in items:
                if k is None:
                    arr[nxt] = v
                    nxt += 1
                else:
                    arr[k] = v
                    if isinstance(k, int):
                        nxt = k + 1
        if not is_assoc:
            arr = dict(sorted(arr.items(), key=lambda kv: kv[0] if isinstance(kv[0], int) else 0))
        scope[name] = (old or Var()).with_(
            value=None,
            array=tuple(arr.items()),
            known=True,
            reason=None,
            at=at,
            expansion=expansion,
            is_set=True,
            assoc=is_assoc,
        )

    def arith(self, expr: str) -> int:
        """Evaluate arithmetic text (after ``$`` expansions); raises ArithError when unknown or invalid."""

        def lookup(name: str) -> str | None:
            idx = None
            if "[" in name:
                name, idx = name[:-1].split("[", 1)
            v = self.lookup(name)
            if v is None or not v.is_set:
                return None
            if not v.known:
                raise ArithError(f"${name} is not known statically" + (f" ({v.reason})" if v.reason else ""))
            if idx is not None and v.array is not None:
                try:
                    key: Any = self.arith(idx) if not v.assoc else idx
                except ArithError:
                    raise
                return dict(v.array).get(key)
            return v.scalar

        def assign(name: str, value: int) -> None:
            if "[" in name:
                base, idx = name[:-1].split("[", 1)
                self.set_array(
                    base, [(self.arith(idx), str(value))], at=self.cur_at, expansion="arithmetic", append=True
                )
                return
            self.set_var(name, str(value), at=self.cur_at, expansion="arithmetic")

        return ArithEvaluator(lookup, assign).evaluate(expr)

    cur_at: str = ""

    # ---------------------------------------------------------------------- snapshots

    def snapshot(self) -> Snapshot:
        return Snapshot(
            scopes=[dict(s) for s in self.scopes],
            positional=None if self.positional is None else list(self.positional),
            positional_reason=self.positional_reason,
            funcs=dict(self.funcs),
            cwd=self.cwd,
            cwd_reason=self.cwd_reason,
            options=set(self.options),
            extra={"exec_fds": dict(self.exec_fds)} if self.exec_fds else {},
        )

    def restore(self, s: Snapshot) -> None:
        self.scopes = [dict(x) for x in s.scopes]
        self.positional = None if s.positional is None else list(s.positional)
        self.positional_reason = s.positional_reason
        self.funcs = dict(s.funcs)
        self.cwd = s.cwd
        self.cwd_reason = s.cwd_reason
        self.options = set(s.options)
        self.exec_fds = dict(s.extra.get("exec_fds", {}))

    def fork(self, alternatives: Sequence[Callable[[], int | None]], reason: str) -> int | None:
        """Run each alternative on a copy of the state and merge the results."""
        base = self.snapshot()
        results: list[Snapshot] = []
        statuses: list[int | None] = []
        exits: list[_Exit] = []
        ctl: BaseException | None = None
        for alt in alternatives:
            self.restore(base)
            self.spec.append(reason)
            try:
                statuses.append(alt())
                results.append(self.snapshot())
            except _Exit as e:
                exits.append(e)
            except (_Return, _Break, _Continue) as e:
                # control leaves the construct on this path only: treat as the path ending here
                ctl = e
                results.append(self.snapshot())
            finally:
                self.spec.pop()
        if not results:
            self.restore(base)
            raise _Exit(None, reason)
        self._merge(results, reason)
        if ctl is not None and len(results) == 1 and not statuses:
            raise ctl
        if len(set(statuses)) == 1 and len(statuses) == len(results):
            return statuses[0]
        return None

    def _merge(self, snaps: list[Snapshot], reason: str) -> None:
        first = snaps[0]
        if len(snaps) == 1:
            self.restore(first)
            return
        depth = min(len(s.scopes) for s in snaps)
        scopes: list[dict[str, Var]] = []
        for level in range(depth):
            names: set[str] = set()
            for s in snaps:
                names.update(s.scopes[level])
            merged: dict[str, Var] = {}
            for name in names:
                vals = [s.scopes[level].get(name) for s in snaps]
                v0 = vals[0]
                if all(v == v0 for v in vals):
                    if v0 is not None:
                        merged[name] = v0
                    continue
                present = [v for v in vals if v is not None]
                if all(
                    v is not None
                    and v.known == present[0].known
                    and v.value == present[0].value
                    and v.array == present[0].array
                    for v in vals
                ):
                    merged[name] = present[0].with_(exported=any(v.exported for v in present))
                    continue
                cands: list[str] = []
                for v in vals:
                    shown = (
                        "unset"
                        if v is None or not v.is_set
                        else (f"`{to_str(v.scalar or '')}`" if v.known and v.array is None else "unknown")
                    )
                    if shown not in cands:
                        cands.append(shown)
                why = f"its value depends on {reason}"
                if len(cands) <= 4:
                    why += " (" + " or ".join(cands) + ")"
                merged[name] = Var(
                    value=None,
                    known=False,
                    exported=any(v.exported for v in present),
                    reason=why,
                    at=present[-1].at,
                    expansion=present[-1].expansion,
                )
            scopes.append(merged)
        self.scopes = scopes
        pos = [s.positional for s in snaps]
        if all(p == pos[0] for p in pos):
            self.positional = None if pos[0] is None else list(pos[0])
            self.positional_reason = first.positional_reason
        else:
            self.positional = None
            self.positional_reason = f"the positional parameters depend on {reason}"
        self.funcs = {}
        for s in snaps:
            self.funcs.update(s.funcs)
        cwds = {s.cwd for s in snaps}
        if len(cwds) == 1:
            self.cwd = first.cwd
            self.cwd_reason = first.cwd_reason
        else:
            self.cwd = None
            self.cwd_reason = f"the working directory depends on {reason}"
        self.options = set().union(*(s.options for s in snaps))

    # ---------------------------------------------------------------------- running

    # Set by ``run`` when the script ends at an ``exit`` (or a top-level ``return``): (where, status).
    ended_by: tuple[str | None, int | None] | None = None

    def run(self) -> int | None:
        tree = self.src.tree
        try:
            status = self.run_block(tree.root_node.children)
        except _Exit as e:
            status = e.status
            self.ended_by = (e.reason, status)
        except (_Return, _Break, _Continue):
            status = self.last_status
        except _Budget:
            self.emit("budget", self.budget_at, steps=self.max_steps)
            status = None
        except RecursionError:
            self.emit("recursion", self.cur_at or None, name="Python's recursion limit")
            status = None
        return status

    def run_block(self, children: Iterable[Any]) -> int | None:
        status: int | None = 0
        items = list(children)
        for i, node in enumerate(items):
            if not node.is_named or node.type in ("comment", "heredoc_body", "heredoc_end"):
                continue
            bg = False
            j = i + 1
            while j < len(items) and items[j].type == "heredoc_body":
                j += 1
            if j < len(items) and items[j].type == "&":
                bg = True
            status = self.run_node(node, bg)
            self.last_status = status
            if (
                status
                and "errexit" in self.options
                and self.cond_depth == 0
                and not bg
                and (self._is_simple(node) or node.type == "test_command")
            ):
                at = self.src.at(node.start_byte)
                self.emit("errexit", at, status=status, command=self._short(node))
                raise _Exit(status, f"`set -e`: `{self._short(node)}` fails at {at}")
        return status

    cond_depth = 0  # > 0 while running an if/while condition, the left side of && / ||, or `! cmd`

    def run_condition(self, nodes: Iterable[Any]) -> int | None:
        self.cond_depth += 1
        try:
            return self.run_block(nodes)
        finally:
            self.cond_depth -= 1

    def run_node(self, node: Any, bg: bool = False) -> int | None:
        self.step(node.start_byte)
        t = node.type
        if t == "ERROR":
            # a region tree-sitter could not parse: run the pieces it recognised
            return self.run_block(node.children)
        if bg:
            return self.run_background(node)
        if t in (
            "command",
            "declaration_command",
            "unset_command",
            "variable_assignment",
            "variable_assignments",
            "test_command",
        ):
            return self.run_simple(node.start_byte, node.end_byte, node)
        if t == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is None or body.type in (
                "command",
                "declaration_command",
                "unset_command",
                "variable_assignment",
                "variable_assignments",
                "test_command",
            ):
                return self.run_simple(node.start_byte, node.end_byte, node)
            redirs = self.compound_redirects(node, body)
            self.redirect_stack.append(redirs)
            try:
                return self.run_node(body)
            finally:
                self.redirect_stack.pop()
        if t == "program":
            return self.run_block(node.children)
        if t == "compound_statement":
            if node.child_count and node.children[0].type == "((":
                return self.run_arith_command(node)
            return self.run_block(node.children)
        if t == "subshell":

            def sub() -> int | None:
                self._last_direct(node)
                return self.run_block(node.children)

            return self.in_subshell(sub)
        if t == "list":
            return self.run_list(node)
        if t == "pipeline":
            return self.run_pipeline(node)
        if t == "negated_command":
            st = self.run_condition(node.children)
            return None if st is None else int(st == 0)
        if t == "if_statement":
            return self.run_if(node)
        if t == "case_statement":
            return self.run_case(node)
        if t == "for_statement":
            return self.run_for(node)
        if t == "c_style_for_statement":
            return self.run_c_for(node)
        if t == "while_statement":
            return self.run_while(node)
        if t == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None:
                self.funcs[from_str(self.node_text(name))] = (body, self.src)
            return 0
        if t in ("comment",):
            return self.last_status
        if t in ("arithmetic_expansion",):
            return self.run_arith_command(node)
        # anything else (heredoc bodies, unknown node kinds): look inside for commands
        return self.run_block(node.children)

    def in_subshell(self, fn: Callable[[], int | None]) -> int | None:
        snap = self.snapshot()
        saved_pid, saved_wait = self.pid_kept, self.waited
        try:
            return fn()
        except _Exit as e:
            return e.status
        except (_Return, _Break, _Continue):
            return self.last_status
        finally:
            self.restore(snap)
            self.pid_kept, self.waited = self.pid_kept or saved_pid, self.waited or saved_wait

    def run_background(self, node: Any) -> int | None:
        self.bg_mark = True
        if self._is_simple(node):
            self.direct = (node.start_byte, node.end_byte)
        try:
            self.in_subshell(lambda: self.run_node(node))
        finally:
            self.bg_mark = False
        return 0

    bg_mark = False
    direct: tuple[int, int] | None = None  # the simple command bash would exec without forking (SHLVL - 1)
    direct_exec = False

    @staticmethod
    def _is_simple(node: Any) -> bool:
        t = node.type
        if t == "redirected_statement":
            body = node.child_by_field_name("body")
            return body is None or body.type in (
                "command",
                "declaration_command",
                "unset_command",
                "variable_assignment",
                "variable_assignments",
                "test_command",
            )
        return t in ("command",)

    def _last_direct(self, node: Any) -> None:
        """Mark the command a subshell would exec directly: its last simple command (or the end of a list)."""
        named = [c for c in node.children if c.is_named and c.type != "comment"]
        if not named:
            return
        last = named[-1]
        while last.type == "list":
            parts = [c for c in last.children if c.is_named and c.type != "comment"]
            if not parts:
                return
            last = parts[-1]
        if self._is_simple(last):
            self.direct = (last.start_byte, last.end_byte)

    def compound_redirects(self, node: Any, body: Any) -> list[tuple[str | None, str, str | None, str]]:
        toks = L.tokenize_command(self.src.text, body.end_byte, node.end_byte)
        out: list[tuple[str | None, str, str | None, str]] = []
        for r in toks.redirs:
            tgt = self.expand_single(r.target) if r.target is not None else None
            out.append((r.fd, r.op, tgt, self.src.at(r.start)))
        return out

    def run_list(self, node: Any) -> int | None:
        named = [c for c in node.children if c.is_named and c.type != "comment"]
        ops = [c.type for c in node.children if not c.is_named]
        if len(named) != 2 or not ops:
            return self.run_block(node.children)
        left, right = named
        op = ops[0]
        self.cond_depth += 1
        try:
            st = self.run_node(left)
        finally:
            self.cond_depth -= 1
        if op == "&&":
            if st == 0:
                return self.run_node(right)
            if st is None:
                return self.fork(
                    [lambda: self.run_node(right), lambda: None],
                    f"whether `{self._short(left)}` succeeds ({self.src.line_at(left.start_byte)})",
                )
            return st
        if op == "||":
            if st == 0:
                return 0
            if st is None:
                return self.fork(
                    [lambda: self.run_node(right), lambda: 0],
                    f"whether `{self._short(left)}` fails ({self.src.line_at(left.start_byte)})",
                )
            return self.run_node(right)
        return self.run_block(node.children)

    def _short(self, node: Any) -> str:
        text = to_str(self.node_text(node)).replace("\n", " ")
        return text if len(text) <= 60 else text[:57] + "..."

    def run_pipeline(self, node: Any) -> int | None:
        parts = [c for c in node.children if c.is_named and c.type != "comment"]
        status: int | None = None
        self.pipeline_depth += 1
        try:
            for p in parts:
                status = self.in_subshell(functools.partial(self.run_node, p))
        finally:
            self.pipeline_depth -= 1
        return status

    def run_arith_command(self, node: Any) -> int | None:
        text = self.node_text(node)
        inner = text.strip()
        if inner.startswith("(("):
            inner = inner[2:]
        elif inner.startswith("$(("):
            inner = inner[3:]
        if inner.endswith("))"):
            inner = inner[:-2]
        self.cur_at = self.src.at(node.start_byte)
        expanded = self.expand_arith_text(inner)
        if expanded is None:
            self.mark_arith_unknown(inner)
            return None
        try:
            v = self.arith(expanded)
        except ArithError:
            self.mark_arith_unknown(inner)
            return None
        return 0 if v != 0 else 1

    def mark_arith_unknown(self, expr: str) -> None:
        for m in re.finditer(
            r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:[-+*/%&|^]|<<|>>|\*\*)?=(?!=)|"
            r"(?:\+\+|--)\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*(?:\+\+|--)",
            expr,
        ):
            name = m.group(1) or m.group(2) or m.group(3)
            self.set_var(
                name,
                None,
                at=self.cur_at,
                expansion=f"(({expr}))",
                reason="arithmetic on a value that is not known statically",
            )

    def expand_arith_text(self, expr: str) -> str | None:
        """Expand ``$`` expansions inside arithmetic text (quotes are removed as bash does)."""
        if "$" not in expr and "`" not in expr and '"' not in expr and "'" not in expr:
            return expr
        parts = L.parse_word(expr, in_dq=True)
        chunks = self.expand_parts(parts, self.cur_at, assignment=True)
        out: list[str] = []
        for c in chunks:
            if c.text is None:
                return None
            out.append(c.text)
        return "".join(out)

    # ---------------------------------------------------------------------- if / case / loops

    def _segments(self, node: Any, keywords: set[str]) -> list[tuple[str, list[Any]]]:
        segs: list[tuple[str, list[Any]]] = []
        cur: list[Any] = []
        kw = ""
        for c in node.children:
            if not c.is_named and c.type in keywords:
                segs.append((kw, cur))
                kw, cur = c.type, []
            else:
                cur.append(c)
        segs.append((kw, cur))
        return segs

    def run_if(self, node: Any) -> int | None:
        clauses: list[tuple[list[Any] | None, list[Any], int]] = []
        cond: list[Any] | None = None
        for kw, items in self._segments(node, {"if", "then", "fi", "elif", "else"}):
            if kw == "if":
                cond = items
            elif kw == "then":
                body: list[Any] = []
                for it in items:
                    if it.type == "elif_clause":
                        self._flush_clause(clauses, cond, body, node)
                        ec = self._segments(it, {"elif", "then"})
                        cond = dict(ec).get("elif", [])
                        body = dict(ec).get("then", [])
                    elif it.type == "else_clause":
                        self._flush_clause(clauses, cond, body, node)
                        cond = None
                        body = [c for c in it.children if not (not c.is_named and c.type == "else")]
                        clauses.append((None, body, it.start_byte))
                        body = []
                        cond = []
                    else:
                        body.append(it)
                if cond:
                    self._flush_clause(clauses, cond, body, node)
        return self._run_clauses(clauses, 0)

    def _flush_clause(
        self,
        clauses: list[tuple[list[Any] | None, list[Any], int]],
        cond: list[Any] | None,
        body: list[Any],
        node: Any,
    ) -> None:
        if cond is not None:
            start = next((c.start_byte for c in cond if c.is_named), node.start_byte)
            clauses.append((cond, body, start))

    def _run_clauses(self, clauses: list[tuple[list[Any] | None, list[Any], int]], idx: int) -> int | None:
        if idx >= len(clauses):
            return 0
        cond, body, start = clauses[idx]
        if cond is None:
            return self.run_block(body)
        st = self.run_condition(cond)
        if st == 0:
            return self.run_block(body)
        if st is not None:
            return self._run_clauses(clauses, idx + 1)
        text = " ".join(self._short(c) for c in cond if c.is_named)
        reason = f"the condition `{text}` ({self.src.line_at(start)}), which is not known statically"
        return self.fork([lambda: self.run_block(body), lambda: self._run_clauses(clauses, idx + 1)], reason)

    def run_case(self, node: Any) -> int | None:
        value_node = node.child_by_field_name("value")
        if value_node is None:
            return 0
        self.cur_at = self.src.at(value_node.start_byte)
        word = self.expand_single(L.WordTok(self.node_text(value_node), value_node.start_byte))
        items = [c for c in node.children if c.type == "case_item"]
        parsed: list[tuple[list[str | None], list[Any], str]] = []
        for it in items:
            pats: list[str | None] = []
            body: list[Any] = []
            term = ";;"
            seen_paren = False
            for i, c in enumerate(it.children):
                fname = it.field_name_for_child(i)
                if not seen_paren:
                    if not c.is_named and c.type == ")":
                        seen_paren = True
                        # the patterns: the source text up to `)`, split on top-level `|`
                        for raw, off in _split_patterns(self.src.text, it.start_byte, c.start_byte):
                            pats.append(self.pattern_regex(raw, off))
                    continue
                if fname == "termination" or (not c.is_named and c.type in (";;", ";&", ";;&")):
                    term = c.type
                    continue
                body.append(c)
            parsed.append((pats, body, term))
        return self._run_case_from(word, parsed, 0, value_node)

    def _run_case_from(
        self,
        word: str | None,
        items: list[tuple[list[str | None], list[Any], str]],
        idx: int,
        value_node: Any,
    ) -> int | None:
        for k in range(idx, len(items)):
            pats, _body, _term = items[k]
            match: bool | None = False
            for p in pats:
                if p is None or word is None:
                    match = None
                    continue
                if re.fullmatch(p, word, re.DOTALL):
                    match = True
                    break
            if match is True:
                return self._run_case_body(word, items, k, value_node)
            if match is None:
                reason = (
                    f"`case {self._short(value_node)}` ({self.src.line_at(value_node.start_byte)}), "
                    "whose value is not known statically"
                )
                return self.fork(
                    [
                        functools.partial(self._run_case_body, word, items, k, value_node),
                        functools.partial(self._run_case_from, word, items, k + 1, value_node),
                    ],
                    reason,
                )
        return 0

    def _run_case_body(
        self, word: str | None, items: list[tuple[list[str | None], list[Any], str]], k: int, value_node: Any
    ) -> int | None:
        st = self.run_block(items[k][1])
        term = items[k][2]
        while term == ";&" and k + 1 < len(items):
            k += 1
            st = self.run_block(items[k][1])
            term = items[k][2]
        if term == ";;&":
            return self._run_case_from(word, items, k + 1, value_node)
        return st

    def pattern_regex(self, raw: str, offset: int) -> str | None:
        """A case/[[ == ]] pattern as a regex; None when part of it is unknown."""
        parts = L.parse_word(raw)
        chunks = self.expand_parts(parts, self.src.at(offset), assignment=True)
        pieces: list[tuple[str, bool]] = []
        for c in chunks:
            if c.text is None:
                return None
            pieces.append((c.text, c.quoted and not c.split))
        return _glob_to_regex(pieces)

    def _enter_loop(self, node: Any) -> _Loop:
        frame = _Loop(self.src.line_at(node.start_byte), len(self.servers))
        self.loops.append(frame)
        return frame

    def _leave_loop(self, frame: _Loop) -> None:
        """Close a loop: when its iterations are unknown or endless, each server start inside it repeats."""
        self.loops.remove(frame)
        if frame.unbounded:
            for srv in self.servers[frame.first_server :]:
                if srv.loop is None:
                    srv.loop = frame.at

    def _state_key(self) -> tuple[Any, ...]:
        """What the next loop iteration depends on: the same key twice in a row means the loop is in a
        fixed point (``while true; do server; sleep 5; done``) and every further iteration repeats."""
        return (self.snapshot(), self.last_status, self.pid_kept, self.waited)

    def run_for(self, node: Any) -> int | None:
        frame = self._enter_loop(node)
        try:
            return self._run_for(node, frame)
        finally:
            self._leave_loop(frame)

    def _run_for(self, node: Any, frame: _Loop) -> int | None:
        var_node = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        if var_node is None or body is None:
            return 0
        name = from_str(self.node_text(var_node))
        in_tok = next((c for c in node.children if not c.is_named and c.type == "in"), None)
        at = self.src.at(node.start_byte)
        self.cur_at = at
        words: list[ExpWord] | None
        if in_tok is None:
            words = self._positional_words(at)
        else:
            toks = L.tokenize_command(self.src.text, in_tok.end_byte, body.start_byte)
            words = []
            for w in toks.words:
                words.extend(self.expand_word(w))
        if words is None or any(w.text is None for w in words):
            reason = f"the list of `for {name}` ({self.src.line_at(node.start_byte)}) is not known statically"

            def once() -> int | None:
                self.set_var(name, None, at=at, expansion=f"for {name}", reason=reason)
                return self._loop_body(body)

            frame.unbounded = True
            return self.fork([once, lambda: 0], reason)
        status: int | None = 0
        for ew in words[:MAX_LOOP]:
            if frame.stop:
                return None
            self.set_var(name, ew.text, at=ew.at, expansion=f"for {name} in ...")
            try:
                status = self.run_node(body)
            except _Break as b:
                if b.n > 1:
                    raise _Break(b.n - 1) from None
                break
            except _Continue as c:
                if c.n > 1:
                    raise _Continue(c.n - 1) from None
                continue
        return status

    def _positional_words(self, at: str) -> list[ExpWord] | None:
        if self.positional is None:
            return None
        return [ExpWord(p, at, '"$@"') for p in self.positional]

    def _loop_body(self, body: Any) -> int | None:
        try:
            return self.run_node(body)
        except (_Break, _Continue):
            return None

    def run_c_for(self, node: Any) -> int | None:
        frame = self._enter_loop(node)
        try:
            return self._run_c_for(node, frame)
        finally:
            self._leave_loop(frame)

    def _run_c_for(self, node: Any, frame: _Loop) -> int | None:
        body = node.child_by_field_name("body")
        open_tok = next((c for c in node.children if c.type == "(("), None)
        close_tok = next((c for c in node.children if c.type == "))"), None)
        if open_tok is None or close_tok is None or body is None:
            return 0
        inner = self.src.text[open_tok.end_byte : close_tok.start_byte]
        parts = inner.split(";")
        if len(parts) != 3:
            return 0
        init, cond, upd = parts
        at = self.src.at(node.start_byte)
        self.cur_at = at
        reason = f"the loop `for (({inner}))` ({self.src.line_at(node.start_byte)}) is not known statically"
        try:
            if init.strip():
                e = self.expand_arith_text(init)
                if e is None:
                    raise ArithError("unknown")
                self.arith(e)
            n = 0
            status: int | None = 0
            previous: tuple[Any, ...] | None = None
            while n < MAX_LOOP:
                n += 1
                key = self._state_key()
                if key == previous or frame.stop:
                    frame.unbounded = True  # `for ((;;))`: the same iteration forever
                    return None
                previous = key
                if cond.strip():
                    e = self.expand_arith_text(cond)
                    if e is None:
                        raise ArithError("unknown")
                    if not self.arith(e):
                        break
                try:
                    status = self.run_node(body)
                except _Break as b:
                    if b.n > 1:
                        raise _Break(b.n - 1) from None
                    break
                except _Continue as c:
                    if c.n > 1:
                        raise _Continue(c.n - 1) from None
                if upd.strip():
                    e = self.expand_arith_text(upd)
                    if e is None:
                        raise ArithError("unknown")
                    self.arith(e)
            return status
        except ArithError:
            self.mark_arith_unknown(inner)
            frame.unbounded = True
            return self.fork([lambda: self._loop_body(body), lambda: 0], reason)

    def run_while(self, node: Any) -> int | None:
        frame = self._enter_loop(node)
        try:
            return self._run_while(node, frame)
        finally:
            self._leave_loop(frame)

    def _run_while(self, node: Any, frame: _Loop) -> int | None:
        body = node.child_by_field_name("body")
        kw = node.children[0].type if node.child_count else "while"
        cond = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "condition"]
        if body is None:
            return 0
        status: int | None = 0
        start = cond[0].start_byte if cond else node.start_byte
        reason = (
            f"the condition of `{kw} {' '.join(self._short(c) for c in cond if c.is_named)}` "
            f"({self.src.line_at(start)}), which is not known statically"
        )
        previous: tuple[Any, ...] | None = None
        for _ in range(MAX_LOOP):
            key = self._state_key()
            if key == previous or frame.stop:
                # a restart loop: the condition and the body see what they saw last time, forever
                frame.unbounded = True
                return None
            previous = key
            st = self.run_condition(cond)
            if st is None:
                frame.unbounded = True
                self.fork([lambda: self._loop_body(body), lambda: 0], reason)
                # after an unknown number of iterations, what the body assigns is unknown
                return None
            if (st == 0) != (kw == "while"):
                return status
            try:
                status = self.run_node(body)
            except _Break as b:
                if b.n > 1:
                    raise _Break(b.n - 1) from None
                return 0
            except _Continue as c:
                if c.n > 1:
                    raise _Continue(c.n - 1) from None
        frame.unbounded = True
        self.emit("loop_limit", self.src.at(node.start_byte), limit=MAX_LOOP)
        return None

    # ---------------------------------------------------------------------- expansion

    def get_param(self, name: str) -> tuple[str, str | None, str | None]:
        """(state, value, reason) for a scalar parameter: state is set|unset|unknown."""
        if name.isdigit():
            n = int(name)
            if n == 0:
                return "set", self.arg0, None
            if self.positional is None:
                return "unknown", None, self.positional_reason
            if n <= len(self.positional):
                return "set", self.positional[n - 1], None
            return "unset", None, None
        if name == "#":
            if self.positional is None:
                return "unknown", None, self.positional_reason
            return "set", str(len(self.positional)), None
        if name == "?":
            if self.last_status is None:
                return "unknown", None, "the exit status of the previous command is not known statically"
            return "set", str(self.last_status), None
        if name == "$":
            return "unknown", None, "the shell's process id is known only at run time"
        if name == "!":
            self.pid_kept = True
            return "unknown", None, "the process id of the background job is known only at run time"
        if name == "-":
            return (
                "set",
                "hB"
                + "".join(
                    f for f, o in (("e", "errexit"), ("u", "nounset"), ("x", "xtrace")) if o in self.options
                ),
                None,
            )
        if name == "RANDOM":
            return "unknown", None, "$RANDOM changes at every use"
        if (
            name
            in (
                "SECONDS",
                "EPOCHSECONDS",
                "EPOCHREALTIME",
                "BASHPID",
                "LINENO",
                "PPID",
                "HOSTNAME",
                "UID",
                "EUID",
            )
            and self.lookup(name) is None
        ):
            return "unknown", None, f"${name} is known only at run time"
        v = self.lookup(name)
        if v is None or not v.is_set:
            if name == "BASH_SOURCE":
                return "set", self.bash_source[-1], None
            return "unset", None, None
        if not v.known:
            return "unknown", None, v.reason
        return "set", v.scalar, None

    def get_list(
        self, name: str, index: str | None
    ) -> tuple[str, list[tuple[Any, str | None]] | None, str | None]:
        """Elements of ``$@``/``$*`` (index None) or an array ``name[@]``."""
        if name in ("@", "*"):
            if self.positional is None:
                return "unknown", None, self.positional_reason
            return "set", list(enumerate(self.positional, 1)), None
        v = self.lookup(name)
        if v is None or not v.is_set:
            if name == "BASH_SOURCE":
                return "set", list(enumerate(reversed(self.bash_source))), None
            return "unset", [], None
        if not v.known:
            return "unknown", None, v.reason
        if v.array is None:
            return "set", [(0, v.value)], None
        return "set", list(v.array), None

    def expand_parts(self, parts: Sequence[L.Part], at: str, assignment: bool = False) -> list[_Chunk]:
        out: list[_Chunk] = []
        for p in parts:
            if isinstance(p, L.Lit):
                out.append(_Chunk(p.text, p.quoted, False))
            elif isinstance(p, L.DQStart):
                out.append(_Chunk("", True, False, "DQ"))
            elif isinstance(p, L.DQEnd):
                out.append(_Chunk("", True, False, "DQEND"))
            elif isinstance(p, L.Param):
                out.extend(self.expand_param(p, at, assignment))
            elif isinstance(p, L.CmdSub):
                out.append(self.command_substitution(p, at))
            elif isinstance(p, L.Arith):
                self.cur_at = at
                expanded = self.expand_arith_text(p.expr)
                if expanded is None:
                    out.append(
                        _Chunk(
                            None,
                            p.quoted,
                            not p.quoted,
                            f"`{to_str(p.raw)}`: arithmetic on a value that is not known statically",
                        )
                    )
                    self.mark_arith_unknown(p.expr)
                    continue
                try:
                    out.append(_Chunk(str(self.arith(expanded)), p.quoted, not p.quoted))
                except ArithError as e:
                    out.append(_Chunk(None, p.quoted, not p.quoted, f"`{to_str(p.raw)}`: {e}"))
                    self.mark_arith_unknown(p.expr)
            elif isinstance(p, L.Tilde):
                if p.user:
                    out.append(
                        _Chunk(None, True, False, f"`~{p.user}` is that user's home directory at run time")
                    )
                else:
                    st, home, reason = self.get_param("HOME")
                    if st == "set":
                        out.append(_Chunk(home, True, False))
                    elif st == "unset":
                        out.append(_Chunk(None, True, False, "HOME is not set; bash uses the passwd entry"))
                    else:
                        out.append(_Chunk(None, True, False, reason))
            elif isinstance(p, L.ProcSub):
                out.append(
                    _Chunk(
                        None,
                        False,
                        False,
                        f"process substitution `{to_str(p.raw)}` becomes a /dev/fd path at run time",
                    )
                )
        return out

    def command_substitution(self, p: L.CmdSub, at: str) -> _Chunk:
        """``$(...)``: emulate a few pure ones (dirname, basename, pwd, echo, cd X && pwd); else unknown."""
        self.step(at)
        body = p.body.strip()
        decided, value = self._emulate(body, at)
        if not decided:
            # only when the emulation expanded nothing: evaluating the words a second time would double
            # the work at every nesting level ($(cat $(cat ...)) 18 deep took 38 s)
            value = self._capture(p.body, at)
        if value is not None:
            return _Chunk(value.rstrip("\n"), p.quoted, not p.quoted)
        shown = to_str(p.raw)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return _Chunk(None, p.quoted, not p.quoted, f"command substitution `{shown}` runs only at run time")

    def _capture(self, body: str, at: str) -> str | None:
        """Evaluate the body of ``$(...)`` in a subshell, collecting what ``echo``/``printf``/``pwd`` print.

        Any command whose output cannot be known (an external program, a branch not known statically)
        makes the whole substitution unknown."""
        if self.depth >= MAX_DEPTH or len(self.captures) > 8 or len(body) > 100_000:
            return None
        text = _prepare(body)
        try:
            tree = self.parse(text)
        except Exception:
            return None
        if tree.root_node.has_error:
            return None
        src = Source(self.src.label, text, None, fixed_at=at)
        src.tree = tree
        frame: dict[str, Any] = {"out": [], "ok": True, "spec": len(self.spec)}
        frame["redir"] = len(self.redirect_stack)
        self.captures.append(frame)
        saved_src, saved_last = self.src, self.last_status
        self.src = src
        self.depth += 1
        try:
            self.in_subshell(lambda: self.run_block(tree.root_node.children))
        finally:
            self.src = saved_src
            self.depth -= 1
            self.captures.pop()
            self.last_status = saved_last
        return "".join(frame["out"]) if frame["ok"] else None

    def _cap_write(self, text: str | None, redirs: Sequence[Any]) -> None:
        """Output of a command while a command substitution is being evaluated."""
        if not self.captures:
            return
        frame = self.captures[-1]
        for r in [*redirs, *(r for fr in self.redirect_stack[frame["redir"] :] for r in fr)]:
            fd, op = r[0], r[1]
            if (fd in (None, "1") and op in (">", ">>", ">|", ">&")) or op in ("&>", "&>>"):
                return  # stdout goes elsewhere
        if text is None or len(self.spec) > frame["spec"]:
            frame["ok"] = False
            return
        frame["out"].append(text)

    def _emulate(self, body: str, at: str) -> tuple[bool, str | None]:
        """The output of a one-line ``$(...)`` computed without a subshell: (decided, output).

        ``decided`` is False only when nothing was expanded yet (the body is not one of the emulated
        commands, read from its literal text): then ``_capture`` evaluates it. Once words were expanded the
        answer is final, because expanding them again in ``_capture`` is what made nesting exponential."""
        if all(not ln.strip() or ln.strip().startswith("#") for ln in body.split("\n")):
            return True, ""  # only comments: `# like this` inside backquotes expands to nothing
        if not body or "\n" in body or "|" in body or ";" in body:
            return False, None
        m = re.fullmatch(r"cd\s+(.+?)\s*(?:&&|;)\s*pwd(?:\s+-P)?", body) or re.fullmatch(
            r"cd\s+(.+?)\s*>\s*/dev/null(?:\s+2>&1)?\s*&&\s*pwd(?:\s+-P)?", body
        )
        if m:
            toks = L.tokenize_command(m.group(1), 0, len(m.group(1)))
            if len(toks.words) != 1 or toks.redirs:
                return False, None
            d = self.expand_single(toks.words[0], rebase=False)
            if d is None:
                return True, None  # `cd UNKNOWN && pwd` prints an unknown directory in _capture too
            base = self.cwd
            if not d.startswith("/") and base is None:
                return True, None
            path = posixpath.normpath(posixpath.join(base or "/", d))
            return True, path
        try:
            toks = L.tokenize_command(body, 0, len(body))
        except L.LexError:
            return False, None
        if toks.stopped_at or not toks.words or any(r.op not in (">", "2>") for r in toks.redirs):
            return False, None
        if any(r.target is None or r.target.raw != "/dev/null" for r in toks.redirs):
            return False, None
        if toks.words[0].raw not in _EMULATED or toks.words[0].assign or toks.words[0].raw in self.funcs:
            return False, None  # a function, a builtin with side effects, an expanded name: _capture
        words: list[str] = []
        for w in toks.words:
            for e in self.expand_word(w, rebase=False):
                if e.text is None:
                    return True, None  # an unknown argument makes the output unknown in _capture too
                words.append(e.text)
        if not words or words[0] != toks.words[0].raw:
            return True, None
        cmd, args = words[0], words[1:]
        if cmd == "echo":
            return True, _echo_output(args)
        if cmd == "printf":
            # what b_printf prints inside _capture (``-v`` assigns instead: nothing is printed)
            return True, ("" if not args or args[0] == "-v" else _printf(args[0], args[1:]))
        if cmd == "pwd" and args and args[0] not in ("-P", "-L"):
            # what b_pwd prints inside _capture (bash prints the directory for `pwd foo`)
            return True, None if args[0].startswith("-") or self.cwd is None else from_str(self.cwd) + "\n"
        return True, self._pure(cmd, args)

    def _pure(self, cmd: str, args: list[str]) -> str | None:
        """Output of a side-effect-free command on known arguments (None when not emulated)."""
        if cmd in ("readlink", "realpath") and args and args[-1] and not args[-1].startswith("-"):
            opts = args[:-1]
            if cmd == "readlink" and not any(o in ("-f", "-e", "-m", "--canonicalize") for o in opts):
                return None
            p = to_str(args[-1])
            base = self.cwd
            if not p.startswith("/") and base is None:
                return None
            full = posixpath.normpath(posixpath.join(base or "/", p))
            if hostfs.exists(full):
                full = hostfs.realpath(full)
            return from_str(full) + "\n"
        if cmd == "dirname" and len(args) == 1:
            return _dirname(args[0]) + "\n"
        if cmd == "basename" and 1 <= len(args) <= 2:
            b = _basename(args[0])
            if len(args) == 2 and b.endswith(args[1]) and b != args[1]:
                b = b[: -len(args[1])]
            return b + "\n"
        if (cmd == "pwd" and not args) or (cmd == "pwd" and args in (["-P"], ["-L"])):
            return (self.cwd + "\n") if self.cwd is not None else None
        if cmd == "echo":
            nl = True
            while args and args[0] in ("-n", "-e", "-E"):
                if args[0] == "-n":
                    nl = False
                if args[0] == "-e":
                    return None
                args = args[1:]
            return " ".join(args) + ("\n" if nl else "")
        if cmd == "printf" and len(args) == 2 and args[0] in ("%s", "%s\\n"):
            return args[1] + ("\n" if args[0].endswith("\\n") else "")
        return None

    def expand_param(self, p: L.Param, at: str, assignment: bool) -> list[_Chunk]:
        q = p.quoted
        raw = to_str(p.raw)
        name = p.name
        if p.op == "?bad" or (not name and not p.length):
            self.emit("bad_substitution", at, raw=raw)
            return [_Chunk(None, q, not q, f"`{raw}`: bad substitution")]
        if p.indirect:
            if p.op == "!prefix":
                names = sorted(
                    {n for s in self.scopes for n, v in s.items() if n.startswith(name) and v.is_set}
                )
                return [_Chunk(" ".join(names), q, not q)]
            if p.index in ("@", "*"):
                st0, items0, r0 = self.get_list(name, p.index)
                if st0 != "set" or items0 is None:
                    return [_Chunk(None, q, not q, r0)]
                keys = [str(k) for k, _ in items0]
                return self._emit_list(keys, q, p.index == "@")
            st, target, reason = self.get_param(name)
            if st == "unknown" or target is None:
                return [_Chunk(None, q, not q, reason or f"`{raw}`: indirection through an unset variable")]
            m = re.fullmatch(r"([A-Za-z_]\w*)(?:\[(.*)\])?|(\d+|[@*#?$!-])", target)
            if not m:
                return [_Chunk(None, q, not q, f"`{raw}`: invalid indirect name")]
            name = m.group(1) or m.group(3)
            p = L.Param(p.raw, name, q, index=m.group(2), op=p.op, arg=p.arg, arg2=p.arg2, length=p.length)
        is_list = name in ("@", "*") or p.index in ("@", "*")
        star = name == "*" or p.index == "*"
        if is_list:
            st, items, reason = self.get_list(name, p.index)
            if st == "unknown" or items is None:
                return [_Chunk(None, q, not q, reason)]
            if p.length:
                return [_Chunk(str(len(items)), q, not q)]
            values = [v for _, v in items]
            if any(v is None for v in values):
                return [_Chunk(None, q, not q, "an element is not known statically")]
            vals: list[str] = [v for v in values if v is not None]
            if p.op == ":":
                try:
                    off = self.arith(self._expand_operand(p.arg or "0", at) or "")
                    ln = None if p.arg2 is None else self.arith(self._expand_operand(p.arg2, at) or "")
                except ArithError as e:
                    return [_Chunk(None, q, not q, f"`{raw}`: {e}")]
                if name in ("@", "*"):
                    full = [self.arg0, *vals]
                    if off < 0:
                        off = len(full) + off
                        if off < 0:
                            return []
                    sel = full[off:] if ln is None else full[off : off + ln] if ln >= 0 else None
                else:
                    if off < 0:
                        off = len(vals) + off
                        if off < 0:
                            return []
                    sel = vals[off:] if ln is None else vals[off : off + ln] if ln >= 0 else None
                if sel is None:
                    return [_Chunk(None, q, not q, f"`{raw}`: negative length")]
                vals = sel
            elif p.op in (":-", "-", ":+", "+", ":=", "=", ":?", "?"):
                empty = not vals or (p.op.startswith(":") and "".join(vals) == "" and len(vals) <= 1)
                unset = not vals
                use_alt = empty if p.op.startswith(":") else unset
                if p.op in (":-", "-"):
                    if use_alt:
                        return self._operand_chunks(p.arg or "", q, at)
                elif p.op in (":+", "+"):
                    if use_alt:
                        return []
                    return self._operand_chunks(p.arg or "", q, at)
                elif p.op in (":?", "?") and use_alt:
                    self.emit(
                        "param_error", at, raw=raw, message=to_str(p.arg or "parameter null or not set")
                    )
                    raise _Exit(1, f"{raw} aborts the script")
            elif p.op is not None:
                newvals: list[str] = []
                for v in vals:
                    r = self._apply_op(p, v, at)
                    if r is None:
                        return [_Chunk(None, q, not q, f"`{raw}`: operand not known statically")]
                    newvals.append(r)
                vals = newvals
            if star or not q:
                ifs = self._ifs()
                if ifs is None:
                    return [_Chunk(None, q, not q, "IFS is not known statically")]
                if q:
                    return [_Chunk(ifs[:1].join(vals), True, False)]
                if ifs == "":
                    return self._emit_list([v for v in vals if v], False, True)
                # unquoted: bash joins with the first IFS character, then splits the result
                return [_Chunk(ifs[:1].join(vals), False, True)]
            return self._emit_list(vals, True, True)
        # scalar
        if p.index is not None:
            st, value, reason = self._get_element(name, p.index, at)
        else:
            st, value, reason = self.get_param(name)
        if st == "unknown":
            if p.op in (":-", "-", ":=", "=", ":+", "+") and p.arg is not None:
                reason = reason or "not known statically"
            return [_Chunk(None, q, not q, reason or f"`{raw}` is not known statically")]
        if p.length:
            if st == "unset":
                self._nounset(name, raw, at)
                return [_Chunk("0", q, not q)]
            assert value is not None
            return [_Chunk(str(len(to_str(value))), q, not q)]
        op = p.op
        if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
            use_alt = st == "unset" or (op.startswith(":") and value == "")
            if op in (":-", "-"):
                if use_alt:
                    return self._operand_chunks(p.arg or "", q, at)
            elif op in (":=", "="):
                if use_alt:
                    chunks = self._operand_chunks(p.arg or "", True, at)
                    text = (
                        None if any(c.text is None for c in chunks) else "".join(c.text or "" for c in chunks)
                    )
                    if name.isdigit() or name in "@*#?$!-":
                        self.emit("bad_assign", at, raw=raw)
                        raise _Exit(1, f"{raw}: cannot assign in this way")
                    self.set_var(name, text, at=at, expansion=raw, reason="default not known statically")
                    return [
                        _Chunk(text, q, not q, None if text is not None else "default not known statically")
                    ]
            elif op in (":+", "+"):
                if use_alt:
                    return [] if not q else [_Chunk("", True, False)]
                return self._operand_chunks(p.arg or "", q, at)
            elif op in (":?", "?") and use_alt:
                msg = to_str(p.arg) if p.arg else ("parameter null or not set")
                self.emit("param_error", at, raw=raw, message=msg, name=name)
                raise _Exit(1, f"`{raw}` aborts the script: {msg}")
            if st == "unset":
                return [] if not q else [_Chunk("", True, False)]
            return [_Chunk(value, q, not q)]
        if st == "unset":
            self._nounset(name, raw, at)
            return [_Chunk("", q, not q, "UNSET")]
        assert value is not None
        if op is None:
            return [_Chunk(value, q, not q, "EMPTY" if value == "" else None)]
        r = self._apply_op(p, value, at)
        if r is None:
            return [_Chunk(None, q, not q, f"`{raw}`: operand not known statically")]
        return [_Chunk(r, q, not q)]

    def _nounset(self, name: str, raw: str, at: str) -> None:
        if "nounset" in self.options and name not in ("@", "*"):
            self.emit(
                "nounset",
                at,
                name=name,
                raw=raw,
                positional=name.isdigit(),
                nargs=None if self.positional is None else len(self.positional),
            )
            raise _Exit(1, f"set -u: {name}: unbound variable")

    def _get_element(self, name: str, index: str, at: str) -> tuple[str, str | None, str | None]:
        v = self.lookup(name)
        if name == "BASH_SOURCE" and (v is None or not v.is_set):
            try:
                i = int(index)
            except ValueError:
                return "unknown", None, "BASH_SOURCE index not known"
            stack = list(reversed(self.bash_source))
            return ("set", stack[i], None) if 0 <= i < len(stack) else ("unset", None, None)
        if v is None or not v.is_set:
            return "unset", None, None
        if not v.known:
            return "unknown", None, v.reason
        if v.assoc:
            key = self._expand_operand(index, at)
            if key is None:
                return "unknown", None, "the array index is not known statically"
            items = dict(v.array or ())
            return ("set", items[key], None) if key in items else ("unset", None, None)
        expanded = self.expand_arith_text(index)
        try:
            idx: int | None = self.arith(expanded) if expanded is not None else None
        except ArithError:
            idx = None
        if idx is None:
            return "unknown", None, "the array index is not known statically"
        items = dict(v.array) if v.array is not None else {0: v.value}
        if idx < 0:
            keys = [k for k in items if isinstance(k, int)]
            idx = (max(keys) + 1 + idx) if keys else idx
        if idx in items:
            val = items[idx]
            return (
                ("set", val, None) if val is not None else ("unknown", None, "element not known statically")
            )
        return "unset", None, None

    def _ifs(self) -> str | None:
        v = self.lookup("IFS")
        if v is None or not v.is_set:
            return " \t\n"
        if not v.known:
            return None
        return v.scalar or ""

    def _emit_list(self, vals: list[str], quoted: bool, separate: bool) -> list[_Chunk]:
        out: list[_Chunk] = []
        for i, v in enumerate(vals):
            if i:
                out.append(_BREAK)
            out.append(_Chunk(v, quoted, not quoted))
        if not vals and quoted:
            out.append(_Chunk(None, True, False, "EMPTY_AT"))
        return out

    def _operand_chunks(self, raw: str, quoted: bool, at: str) -> list[_Chunk]:
        parts = L.parse_word(raw, in_dq=quoted)
        chunks = self.expand_parts(parts, at)
        if quoted:
            return [_Chunk(c.text, True, False, c.reason) if c is not _BREAK else c for c in chunks]
        # unquoted literal text inside ${x:-...} is subject to splitting too
        return [
            _Chunk(c.text, c.quoted, c.split or not c.quoted, c.reason) if c is not _BREAK else c
            for c in chunks
        ]

    def _expand_operand(self, raw: str, at: str) -> str | None:
        parts = L.parse_word(raw)
        chunks = self.expand_parts(parts, at, assignment=True)
        if any(c.text is None for c in chunks):
            return None
        return "".join(c.text or "" for c in chunks)

    def _pattern(self, raw: str, at: str) -> str | None:
        parts = L.parse_word(raw)
        chunks = self.expand_parts(parts, at, assignment=True)
        pieces: list[tuple[str, bool]] = []
        for c in chunks:
            if c.text is None:
                return None
            pieces.append((c.text, c.quoted and not c.split))
        return _glob_to_regex(pieces)

    def _apply_op(self, p: L.Param, value: str, at: str) -> str | None:
        op = p.op
        if op == ":":
            try:
                off = self.arith(self._expand_operand(p.arg or "0", at) or "0")
                ln = None if p.arg2 is None else self.arith(self._expand_operand(p.arg2, at) or "0")
            except ArithError:
                return None
            s = to_str(value)
            if off < 0:
                off = max(len(s) + off, 0) if len(s) + off >= 0 else len(s) + 1
            if ln is None:
                r = s[off:]
            elif ln < 0:
                r = s[off : len(s) + ln]
            else:
                r = s[off : off + ln]
            return from_str(r)
        if op in ("#", "##", "%", "%%"):
            pat = self._pattern(p.arg or "", at)
            if pat is None:
                return None
            s = to_str(value)
            rx = re.compile(from_str_regex(pat), re.DOTALL)
            if op in ("#", "##"):
                rng = range(0, len(s) + 1) if op == "#" else range(len(s), -1, -1)
                for k in rng:
                    if rx.fullmatch(s[:k]):
                        return from_str(s[k:])
                return value
            rng = range(len(s), -1, -1) if op == "%" else range(0, len(s) + 1)
            for k in rng:
                if rx.fullmatch(s[k:]):
                    return from_str(s[:k])
            return value
        if op in ("/", "//", "/#", "/%"):
            pat = self._pattern(p.arg or "", at)
            rep = self._expand_operand(p.arg2 or "", at) if p.arg2 is not None else ""
            if pat is None or rep is None:
                return None
            s = to_str(value)
            reps = to_str(rep)
            if pat == "":
                return value
            rxs = from_str_regex(pat)
            if op == "/#":
                m = _longest_match(rxs, s, anchored_start=True)
                return from_str(reps + s[m:]) if m is not None else value
            if op == "/%":
                for k in range(0, len(s) + 1):
                    if re.fullmatch(rxs, s[k:], re.DOTALL):
                        return from_str(s[:k] + reps)
                return value
            out: list[str] = []
            i = 0
            done = False
            while i <= len(s):
                m2 = None if done else _longest_match(rxs, s[i:], anchored_start=True)
                if m2 is not None and m2 > 0:
                    out.append(reps)
                    i += m2
                    if op == "/":
                        done = True
                    continue
                if i < len(s):
                    out.append(s[i])
                i += 1
            return from_str("".join(out))
        if op in ("^^", "^", ",,", ","):
            s = to_str(value)
            if p.arg:
                return None
            if op == "^^":
                return from_str(s.upper())
            if op == ",,":
                return from_str(s.lower())
            if op == "^":
                return from_str(s[:1].upper() + s[1:])
            return from_str(s[:1].lower() + s[1:])
        if op == "@":
            a = p.arg or ""
            if a == "Q":
                return "'" + value.replace("'", "'\\''") + "'"
            if a == "U":
                return from_str(to_str(value).upper())
            if a == "L":
                return from_str(to_str(value).lower())
            if a == "u":
                s = to_str(value)
                return from_str(s[:1].upper() + s[1:])
            return None
        return None

    # ---------------------------------------------------------------------- words

    def expand_single(self, tok: L.WordTok | None, rebase: bool = True) -> str | None:
        """Expand a word without splitting or globbing (assignment values, redirect targets, case words)."""
        return self.expand_value(tok, rebase)[0]

    def expand_value(self, tok: L.WordTok | None, rebase: bool = True) -> tuple[str | None, str | None]:
        """(value, reason it is unknown) of a word expanded without splitting or globbing."""
        if tok is None:
            return None, None
        if _PLAIN.fullmatch(tok.raw):
            return tok.raw, None
        parts = L.parse_word(tok.raw, assignment=True)
        at = self.src.at(tok.start) if rebase else self.cur_at
        chunks = self.expand_parts(parts, at, assignment=True)
        bad = next((c for c in chunks if c.text is None and c.reason != "EMPTY_AT"), None)
        if bad is not None:
            return None, bad.reason
        if _BREAK not in chunks:
            return "".join(c.text or "" for c in chunks), None
        return " ".join("".join(c.text or "" for c in grp) for grp in _split_on_break(chunks)), None

    def expand_word(
        self,
        tok: L.WordTok,
        rebase: bool = True,
        vanished: list[tuple[str, str, str | None]] | None = None,
    ) -> list[ExpWord]:
        """Full expansion of one word: brace, parameter/command/arithmetic, splitting, globbing, quotes."""
        at = self.src.at(tok.start) if rebase else self.cur_at
        if _PLAIN.fullmatch(tok.raw):
            return [ExpWord(tok.raw, at, "literal", offset=tok.start)]
        try:
            raws = brace_expand(tok.raw) if "{" in tok.raw else [tok.raw]
        except BraceLimit:
            reason = f"brace expansion of `{to_str(tok.raw)[:60]}` makes more than {BRACE_LIMIT} words"
            return [ExpWord(None, at, to_str(tok.raw), reason, offset=tok.start)]
        if len(raws) > 1:
            self.emit("brace", at, raw=to_str(tok.raw), words=[to_str(r) for r in raws][:20])
        out: list[ExpWord] = []
        for raw in raws:
            out.extend(self._expand_one(raw, at, tok.start, vanished))
        return out

    def _expand_one(
        self, raw: str, at: str, offset: int, vanished: list[tuple[str, str, str | None]] | None
    ) -> list[ExpWord]:
        parts = L.parse_word(raw)
        has_exp = any(isinstance(p, (L.Param, L.CmdSub, L.Arith, L.Tilde, L.ProcSub)) for p in parts)
        expansion = "literal" if not has_exp else to_str(raw)
        quoted_exp = (
            raw.startswith('"')
            and raw.endswith('"')
            and len([p for p in parts if not isinstance(p, L.DQStart)]) == 1
            and has_exp
        )
        chunks = self.expand_parts(parts, at)
        ifs = self._ifs()
        fields: list[dict[str, Any]] = []
        cur: dict[str, Any] | None = None
        merge_ws = False
        split_happened = False
        nfields_from_split = 0

        def new_field() -> dict[str, Any]:
            return {"pieces": [], "glob": False, "reason": None}

        pending_dq = False  # inside quotes, nothing produced yet
        empty_at = False
        for c in chunks:
            if c is _BREAK:
                if cur is not None:
                    fields.append(cur)
                cur = None
                merge_ws = False
                continue
            if c.reason == "DQ" and c.text == "":
                pending_dq = True
                empty_at = False
                continue
            if c.reason == "DQEND" and c.text == "":
                if pending_dq and not empty_at and cur is None:
                    cur = new_field()  # "" or '' : an empty word
                pending_dq = False
                continue
            if c.text is None and c.reason == "EMPTY_AT":
                empty_at = True
                continue
            if c.quoted and c.text is not None:
                pending_dq = False
            if c.text is None:
                if cur is None:
                    cur = new_field()
                cur["reason"] = cur["reason"] or c.reason or "not known statically"
                if c.split:
                    cur["reason_split"] = True
                continue
            if not c.split:
                if cur is None:
                    cur = new_field()
                cur["pieces"].append(c.text)
                if not c.quoted and _has_glob(c.text):
                    cur["glob"] = True
                merge_ws = False
                continue
            # unquoted expansion: split on IFS
            if ifs is None:
                if cur is None:
                    cur = new_field()
                cur["reason"] = cur["reason"] or "IFS is not known statically"
                continue
            text = c.text
            if ifs == "":
                if text:
                    if cur is None:
                        cur = new_field()
                    cur["pieces"].append(text)
                    if _has_glob(text):
                        cur["glob"] = True
                continue
            ws = "".join(ch for ch in ifs if ch in " \t\n")
            buf: list[str] = []
            i = 0
            n = len(text)
            while i < n:
                ch = text[i]
                if ch in ifs:
                    if buf:
                        if cur is None:
                            cur = new_field()
                        cur["pieces"].append("".join(buf))
                        buf = []
                    if ch in ws:
                        if cur is not None:
                            fields.append(cur)
                            cur = None
                            merge_ws = True
                            split_happened = True
                            nfields_from_split += 1
                        i += 1
                        continue
                    # non-whitespace delimiter
                    if cur is not None:
                        fields.append(cur)
                        cur = None
                    elif not merge_ws:
                        fields.append(new_field())
                    merge_ws = False
                    split_happened = True
                    i += 1
                    while i < n and text[i] in ws:
                        i += 1
                    continue
                buf.append(ch)
                merge_ws = False
                i += 1
            if buf:
                if cur is None:
                    cur = new_field()
                piece = "".join(buf)
                cur["pieces"].append(piece)
                if _has_glob(piece):
                    cur["glob"] = True
        if cur is not None:
            fields.append(cur)
        if not fields and has_exp and vanished is not None:
            state = "empty"
            name = None
            for p in parts:
                if isinstance(p, L.Param):
                    name = p.name
                    st, _v, _r = (
                        self.get_param(p.name) if p.index is None and p.name not in "@*" else ("set", 0, 0)
                    )
                    if st == "unset":
                        state = "unset"
            vanished.append((to_str(raw), state, name))
        result: list[ExpWord] = []
        for f in fields:
            ftext: str | None = "".join(f["pieces"])
            reason = f["reason"]
            if reason is None and f["glob"] and "noglob" not in self.options:
                reason = (
                    f"pathname expansion of `{to_str(ftext or '')}` depends on the files present when the "
                    "script runs"
                )
                self.emit("glob", at, word=to_str(ftext or ""), raw=to_str(raw))
                ftext = None
            elif reason is not None:
                if f.get("reason_split"):
                    reason += " (unquoted: it may also split into several words)"
                ftext = None
            result.append(
                ExpWord(
                    ftext,
                    at,
                    expansion,
                    reason,
                    quoted_exp,
                    to_str(raw) if split_happened and len(fields) > 1 else None,
                    offset,
                )
            )
        return result

    # ---------------------------------------------------------------------- simple commands

    range_depth = 0

    def run_simple(self, start: int, end: int, node: Any) -> int | None:
        status = self._run_simple(start, end, node)
        rest = self._remainder
        if rest is not None:
            self._remainder = None
            status = self._run_range(*rest)
        return status

    _remainder: tuple[int, int] | None = None

    def _run_range(self, start: int, end: int) -> int | None:
        """Run ``start:end`` of the current source, parsed again on its own (see ``run_simple``)."""
        if self.range_depth > 400:
            self.emit("recursion", self.src.at(start), name="re-reading commands tree-sitter merged")
            return None
        from argtrace.layers.shell.syntax import parse_range

        try:
            tree = parse_range(self.src.text, start, end)
        except Exception:
            return None
        self.range_depth += 1
        try:
            return self.run_block(tree.root_node.children)
        finally:
            self.range_depth -= 1

    def _run_simple(self, start: int, end: int, node: Any) -> int | None:
        text = self.src.text
        # tree-sitter may leave characters it cannot place (a BOM, stray bytes) out of the command; bash reads
        # them as part of the first word
        while start > 0 and text[start - 1] not in " \t\n;&|()<>`{}":
            start -= 1
        cond = text.startswith("[[", start)
        try:
            toks = L.tokenize_command(text, start, end, cond=cond)
        except L.LexError as e:
            self.emit("lex_error", self.src.at(start), message=str(e))
            return None
        if toks.stopped_at is not None and text[toks.end : end].strip(" \t\n;&|"):
            # tree-sitter's span goes on after the point where bash ends this command (it can swallow
            # lines after a quirk such as a comment inside backquotes): the rest runs on its own
            self._remainder = (toks.end, end)
        if not toks.words and not toks.redirs:
            return 0
        at = self.src.at(start)
        self.cur_at = at
        self.direct_exec = self.direct == (start, end) and self.src is not None
        if self.direct_exec:
            self.direct = None
        if cond:
            return self.run_cond(toks.words, at)
        assigns: list[L.WordTok] = []
        idx = 0
        while idx < len(toks.words) and toks.words[idx].assign:
            assigns.append(toks.words[idx])
            idx += 1
        rest = toks.words[idx:]
        first_raw = rest[0].raw if rest else None
        if (
            first_raw in _QUIET_BUILTINS
            and not assigns
            and not self.captures
            and "nounset" not in self.options
            and all(_NO_SIDE_EFFECTS.fullmatch(w.raw) for w in rest)
            and all(r.target is None or _NO_SIDE_EFFECTS.fullmatch(r.target.raw) for r in toks.redirs)
        ):
            # echo/printf/: whose words cannot change anything: nothing to predict (fast path for big scripts)
            return 0
        argv: list[ExpWord] = []
        vanished_all: list[Vanished] = []
        decl = first_raw in _CLEAN_SPECIAL or first_raw in (
            "local",
            "export",
            "declare",
            "typeset",
            "readonly",
        )
        for w in rest:
            if decl and argv and L.ASSIGN_RE.match(w.raw):
                argv.append(ExpWord(None, self.src.at(w.start), "assignment", offset=w.start))
                argv[-1].reason = "ASSIGN:" + w.raw
                continue
            van: list[tuple[str, str, str | None]] = []
            words = self.expand_word(w, vanished=van)
            for raw, state, name in van:
                vanished_all.append(Vanished(len(argv), raw, self.src.at(w.start), state, name))
            argv.extend(words)
        redirs = []
        for r in toks.redirs:
            tgt = None
            if r.target is not None and r.op not in ("<<", "<<-"):
                tgt = self.expand_single(r.target)
            redirs.append((r.fd, r.op, tgt, self.src.at(r.start), r))
        if not argv:
            # assignments only: they stay in the shell
            for a in assigns:
                self.do_assignment(a)
            for fd, op, tgt, rat, _r in redirs:
                self._note_redirect(fd, op, tgt, rat, None)
            return 0
        prefix_env: dict[str, tuple[str | None, str, str, str | None]] = {}
        for a in assigns:
            m = L.ASSIGN_RE.match(a.raw)
            assert m
            name = from_str(m.group(1))
            value, reason = self.expand_value(L.WordTok(a.raw[m.end() :], a.start + m.end()))
            if m.group(3) == "+":
                st, old, _ = self.get_param(name)
                value = None if value is None or (st == "unknown") else (old or "") + value
            prefix_env[name] = (value, self.src.at(a.start), to_str(a.raw), reason)
        return self.dispatch(argv, prefix_env, redirs, at, start, node, vanished_all)

    def do_assignment(self, a: L.WordTok, local: bool = False, **attrs: Any) -> None:
        m = L.ASSIGN_RE.match(a.raw)
        assert m
        name = from_str(m.group(1))
        index = m.group(2)
        append = m.group(3) == "+"
        value_raw = a.raw[m.end() :]
        at = self.src.at(a.start)
        self.cur_at = at
        if value_raw.startswith("(") and value_raw.endswith(")") and index is None:
            v = self.lookup(name)
            is_assoc = bool(attrs.get("assoc")) or bool(
                v is not None and v.assoc and (append or local is False)
            )
            items = self.array_literal(value_raw[1:-1], a.start + m.end() + 1, is_assoc)
            self.set_array(
                name,
                items,
                at=at,
                expansion=to_str(a.raw),
                append=append,
                local=local,
                reason=None if items is not None else "an element is not known statically",
                assoc=attrs.get("assoc"),
            )
            if attrs.get("exported"):
                sc = self._scope_of(name) if not local else self.scopes[-1]
                sc[name] = sc[name].with_(exported=True)
            del v
            return
        vt = L.WordTok(value_raw, a.start + m.end())
        value, reason = self.expand_value(vt)
        if index is not None:
            idx_raw = index[1:-1]
            v = self.lookup(name)
            if v is not None and v.assoc:
                key: Any = self._expand_operand(idx_raw, at)
            else:
                e = self.expand_arith_text(idx_raw)
                try:
                    key = self.arith(e) if e is not None else None
                except ArithError:
                    key = None
            if key is None:
                self.set_array(
                    name, None, at=at, expansion=to_str(a.raw), reason="the index is not known statically"
                )
                return
            if append and v is not None and v.array is not None:
                cur = dict(v.array).get(key, "")
                value = None if value is None or cur is None else cur + value
            self.set_array(name, [(key, value)], at=at, expansion=to_str(a.raw), append=True, local=local)
            return
        self.set_var(
            name, value, at=at, expansion=to_str(a.raw), reason=reason, append=append, local=local, **attrs
        )

    def array_literal(
        self, inner: str, offset: int, assoc: bool = False
    ) -> list[tuple[Any, str | None]] | None:
        toks = L.tokenize_command(self.src.text, offset, offset + len(inner), multiline=True)
        items: list[tuple[Any, str | None]] = []
        for w in toks.words:
            m = re.match(r"\[([^\]]*)\]=", w.raw)
            if m:
                key: Any = m.group(1)
                if assoc:
                    key = self._expand_operand(key, self.cur_at)
                else:
                    try:
                        key = int(self.arith(self.expand_arith_text(key) or "0"))
                    except (ArithError, ValueError):
                        pass
                items.append((key, self.expand_single(L.WordTok(w.raw[m.end() :], w.start + m.end()))))
                continue
            for e in self.expand_word(w):
                if e.text is None:
                    return None
                items.append((None, e.text))
        return items

    def _exec_redirect(self, fd: str | None, op: str, tgt: str | None, at: str) -> None:
        """``exec >> log 2>&1``: the script's own stdout/stderr from here on (as redirections to replay)."""
        fds = dict(self.exec_fds)
        if op in (">", ">>", ">|"):
            fds[fd or "1"] = (fd or "1", op, tgt, at)
        elif op in ("&>", "&>>"):
            fds["1"] = ("1", ">" if op == "&>" else ">>", tgt, at)
            fds["2"] = ("2", ">" if op == "&>" else ">>", tgt, at)
        elif op == ">&" and tgt is not None and tgt.isdigit():
            src = fds.get(tgt)
            k = fd or "1"
            fds[k] = (k, src[1], src[2], at) if src is not None else (k, ">&", tgt, at)
        else:
            return
        self.exec_fds = fds

    def _note_redirect(self, fd: str | None, op: str, tgt: str | None, at: str, server: int | None) -> None:
        if tgt is not None and op in (">", ">>", "&>", "&>>", ">|") and tgt not in ("/dev/null",):
            self.log_writes.append((tgt, op, at))

    def dispatch(
        self,
        argv: list[ExpWord],
        prefix_env: dict[str, tuple[str | None, str, str, str | None]],
        redirs: list[tuple[str | None, str, str | None, str, L.RedirTok]],
        at: str,
        start: int,
        node: Any,
        vanished: list[Vanished],
    ) -> int | None:
        name = argv[0].text
        if name is None:
            # a command word that cannot be known: maybe `$PYTHON -m sglang.launch_server`
            texts = [w.text if w.text is not None else "" for w in argv]
            det = detect_after_unknown(texts)
            if det is not None:
                self.record_server(argv, prefix_env, redirs, at, start, vanished, det)
                return None
            self.commands.append(
                PredictedCommand(at, [w.text for w in argv], self.spec[-1] if self.spec else None)
            )
            self.emit("unknown_command", at, reason=argv[0].reason, argv0=argv[0].expansion)
            return None
        self.commands.append(
            PredictedCommand(at, [w.text for w in argv], self.spec[-1] if self.spec else None)
        )
        args = argv[1:]
        if name.startswith("-") and not prefix_env:
            self.emit(
                "flag_as_command",
                at,
                word=to_str(name),
                line=self.src.line_col(start)[0],
                words=[to_str(w.text) if w.text is not None else None for w in argv][:12],
            )
            return 127
        for fd, op, tgt, rat, _r in redirs:
            self._note_redirect(fd, op, tgt, rat, None)
        if name == "time" and len(argv) > 1:
            # the `time` keyword: bash runs the rest itself
            rest = argv[2:] if argv[1].text == "-p" else argv[1:]
            shift = len(argv) - len(rest)
            van = [Vanished(v.index - shift, v.raw, v.at, v.state, v.name) for v in vanished]
            return self.dispatch(rest, prefix_env, redirs, at, start, node, van) if rest else 0
        fn = self.funcs.get(name)
        if fn is not None and name not in ("exec",):
            return self.call_function(name, fn, args, prefix_env, at)
        handler = getattr(self, "b_" + _BUILTIN_NAMES.get(name, "_none"), None)
        if handler is not None:
            if prefix_env and name not in ("exec", "command", "builtin", "eval", "source", "."):
                pass
            if name in ("eval", "source", ".") and prefix_env:
                return self._with_temp_env(
                    prefix_env, lambda: handler(args, at, argv, prefix_env, redirs, start, vanished)
                )
            result: int | None = handler(args, at, argv, prefix_env, redirs, start, vanished)
            return result
        # an external command
        return self.external(argv, prefix_env, redirs, at, start, vanished)

    def _with_temp_env(
        self, env: dict[str, tuple[str | None, str, str, str | None]], fn: Callable[[], int | None]
    ) -> int | None:
        self.scopes.append({})
        for k, (v, vat, exp, reason) in env.items():
            self.scopes[-1][k] = Var(
                value=v, known=v is not None, reason=reason, exported=True, at=vat, expansion=exp
            )
        try:
            return fn()
        finally:
            self.scopes.pop()

    def call_function(
        self,
        name: str,
        fn: tuple[Any, Source],
        args: list[ExpWord],
        prefix_env: dict[str, tuple[str | None, str, str, str | None]],
        at: str,
    ) -> int | None:
        body, src = fn
        if self.depth >= MAX_DEPTH:
            self.emit("recursion", at, name=name)
            return None
        saved_pos, saved_reason = self.positional, self.positional_reason
        saved_src = self.src
        if any(a.text is None for a in args):
            self.positional = None
            self.positional_reason = f"the arguments of `{to_str(name)}` ({at}) are not known statically"
        else:
            self.positional = [a.text or "" for a in args]
            self.positional_reason = None
        self.depth += 1
        self.scopes.append({})
        for k, (v, vat, exp, reason) in prefix_env.items():
            self.scopes[-1][k] = Var(
                value=v, known=v is not None, reason=reason, exported=True, at=vat, expansion=exp
            )
        self.src = src
        try:
            return self.run_node(body)
        except _Return as r:
            return r.status
        finally:
            self.src = saved_src
            self.depth -= 1
            self.scopes.pop()
            self.positional, self.positional_reason = saved_pos, saved_reason

    # ---------------------------------------------------------------------- externals

    def exported_env(self) -> dict[str, tuple[str | None, str | None, str, str | None]]:
        env: dict[str, tuple[str | None, str | None, str, str | None]] = {}
        for scope in self.scopes:
            for k, v in scope.items():
                if v.exported and v.is_set:
                    env[k] = (v.scalar if v.known else None, v.at, v.expansion or "", v.reason)
                elif k in env and not v.exported:
                    # a local or global that shadows without export: bash still exports the variable if the
                    # outer one was exported? (no: a local is not exported unless declared so)
                    del env[k]
                elif k in env and not v.is_set:
                    del env[k]
        return env

    def external(
        self,
        argv: list[ExpWord],
        prefix_env: dict[str, tuple[str | None, str, str, str | None]],
        redirs: list[tuple[str | None, str, str | None, str, L.RedirTok]],
        at: str,
        start: int,
        vanished: list[Vanished],
    ) -> int | None:
        texts = [w.text if w.text is not None else "" for w in argv]
        det = detect_server(texts)
        if det is not None:
            self.record_server(argv, prefix_env, redirs, at, start, vanished, det)
            return None
        name = texts[0]
        base = name.rsplit("/", 1)[-1]
        if self.captures:
            pure = None
            known = all(w.text is not None for w in argv)
            if base in ("dirname", "basename", "readlink", "realpath") and known:
                pure = self._pure(base, [w.text or "" for w in argv[1:]])
            self._cap_write(pure, [(fd, op) for fd, op, *_r in redirs])
            if pure is not None:
                return 0
        inner = unwrap_command(texts)
        if 0 < inner < len(texts) and texts[inner].rsplit("/", 1)[-1] in ("bash", "sh"):
            base, argv = "bash", argv[inner:]  # nohup/env/timeout ... bash -c '...'
        if base in ("bash", "sh") and len(argv) > 1:
            return self.run_child_shell(argv, prefix_env, at)
        if base == "wait":
            self.waited = True
        if base in _SUCCESS_COMMANDS:
            return 0
        if base == "false":
            return 1
        return None

    def record_server(
        self,
        argv: list[ExpWord],
        prefix_env: dict[str, tuple[str | None, str, str, str | None]],
        redirs: list[tuple[str | None, str, str | None, str, L.RedirTok]],
        at: str,
        start: int,
        vanished: list[Vanished],
        det: Detection,
    ) -> None:
        env: dict[str, tuple[str | None, str | None, str, str | None]] = dict(self.exported_env())
        for pk, (v, vat, exp, reason) in prefix_env.items():
            env[pk] = (v, vat, exp, reason)
        # `env` wrapper: -i / -u and NAME=value words
        texts = [w.text or "" for w in argv]
        if "env" in det.wrappers:
            ie = next((n for n, t in enumerate(texts) if t.rsplit("/", 1)[-1] == "env"), -1)
            k = ie + 1
            while 0 <= ie and k < det.command_index:
                t = texts[k]
                if t in ("-i", "--ignore-environment", "-"):
                    env = {}
                elif t in ("-u", "--unset") and k + 1 < len(texts):
                    env.pop(texts[k + 1], None)
                    k += 1
                elif t.startswith("--unset="):
                    env.pop(t.split("=", 1)[1], None)
                k += 1
        for idx, n, v in det.env_assignments:
            env[n] = (
                v,
                argv[idx].at,
                to_str(argv[idx].expansion)
                if argv[idx].expansion != "literal"
                else to_str(argv[idx].text or ""),
                None,
            )
        if "exec" in det.wrappers:
            pass
        if "sudo" in det.wrappers:
            isu = next((n for n, t in enumerate(texts) if t.rsplit("/", 1)[-1] == "sudo"), -1)
            opts = texts[isu + 1 : det.command_index] if isu >= 0 else []
            if not any(o in ("-E", "--preserve-env") or o.startswith("--preserve-env=") for o in opts):
                why = "sudo resets the environment unless run with -E: what it keeps depends on sudoers"
                env = {k: (None, vat, exp, why) for k, (v, vat, exp, _r) in env.items()}
        if "stdbuf" in det.wrappers:
            _stdbuf_env(texts, env, argv)
        if self.direct_exec and "SHLVL" in env:
            lvl = env["SHLVL"]
            if lvl[0] is not None and lvl[0].lstrip("-").isdigit():
                env["SHLVL"] = (str(int(lvl[0]) - 1), lvl[1], lvl[2], lvl[3])
        line, _ = self.src.line_col(start)
        inherited = [*self.exec_fds.values(), *(r for frame in self.redirect_stack for r in frame)]
        srv = FoundServer(
            detection=det,
            argv=argv,
            env=env,
            at=at,
            line=line,
            cwd=self.cwd,
            backgrounded=self.bg_mark,
            conditional=self.spec[-1] if self.spec else None,
            redirects=[(fd, op, tgt, rat) for fd, op, tgt, rat, _r in redirs],
            inherited_redirects=inherited,
            in_pipeline=self.pipeline_depth > 0,
            vanished=vanished,
            source_label=self.src.label,
            offset=start,
            nohup="nohup" in det.wrappers,
        )
        if self.loops and self._repeats(srv):
            return
        srv.index = len(self.servers)
        self.servers.append(srv)
        if self.bg_mark:
            self.bg_servers.append(srv.index)

    def _repeats(self, srv: FoundServer) -> bool:
        """Inside a loop: True when ``srv`` is a start already recorded by this loop (the same command with
        the same words, environment and redirections), which is then marked repeated instead of added
        again; also when this command already started MAX_LOOP_SERVERS different servers in the loop."""
        inner = self.loops[-1]
        same_place = [
            s
            for s in self.servers[self.loops[0].first_server :]
            if s.offset == srv.offset and s.source_label == srv.source_label and s.at == srv.at
        ]
        key = _server_key(srv)
        for s in same_place:
            if _server_key(s) == key:
                s.loop = s.loop or inner.at
                return True
        if len(same_place) >= MAX_LOOP_SERVERS:
            same_place[-1].loop = same_place[-1].loop or inner.at
            self.emit("loop_servers", srv.at, limit=MAX_LOOP_SERVERS)
            for frame in self.loops:
                frame.stop = frame.unbounded = True  # what is left of these loops would fold the same way
            return True
        return False

    def run_child_shell(
        self, argv: list[ExpWord], prefix_env: dict[str, tuple[str | None, str, str, str | None]], at: str
    ) -> int | None:
        """``bash -c 'string'`` / ``bash script.sh``: a child that sees only exported variables."""
        texts = [w.text for w in argv]
        i = 1
        while (
            i < len(texts)
            and texts[i] is not None
            and texts[i] not in ("-c",)
            and (texts[i] or "").startswith("-")
        ):
            i += 1
        if i >= len(texts) or texts[i] is None:
            return None
        env = {k: to_str(v) for k, (v, *_rest) in self.exported_env().items() if v is not None}
        for k, (v, *_r) in prefix_env.items():
            if v is not None:
                env[k] = to_str(v)
        if self.direct_exec and env.get("SHLVL", "").lstrip("-").isdigit():
            env["SHLVL"] = str(int(env["SHLVL"]) - 1)  # bash execs this command without forking
        if texts[i] == "-c":
            if i + 1 >= len(texts) or texts[i + 1] is None:
                return None
            code = texts[i + 1] or ""
            arg0 = texts[i + 2] if i + 2 < len(texts) else "bash"
            rest = texts[i + 3 :]
            src = Source(self.src.label, _prepare(code), None, fixed_at=argv[i + 1].at)
        else:
            path = self.resolve_path(texts[i] or "")
            if (
                path is None
                or not hostfs.isfile(path)
                or path in self.source_stack
                or len(self.source_stack) > 8
            ):
                return None
            try:
                code = hostfs.read(path, 4 * 1024 * 1024).decode("latin-1")
            except OSError:
                return None
            arg0 = texts[i]
            rest = texts[i + 1 :]
            src = Source(texts[i] or path, _prepare(code), path)
        if any(r is None for r in rest):
            return None
        src.tree = self.parse(src.text)
        child = ShellEvaluator(
            src,
            [to_str(r or "") for r in rest],
            env,
            arg0=to_str(arg0 or "bash"),
            cwd=self.cwd,
            parse=self.parse,
        )
        child.source_stack = [*self.source_stack, src.path or ""]
        child.spec = list(self.spec)
        child.bg_mark = self.bg_mark
        child.redirect_stack = list(self.redirect_stack)
        if texts[i] == "-c":
            child._last_direct(src.tree.root_node)  # bash -c execs its last simple command directly
        st = child.run()
        for s in child.servers:
            s.index = len(self.servers)
            self.servers.append(s)
        self.events.extend(child.events)
        self.commands.extend(child.commands)
        return st

    def resolve_path(self, p: str) -> str | None:
        if p.startswith("/"):
            return p
        if self.cwd is None:
            return None
        return posixpath.normpath(posixpath.join(self.cwd, p))

    # ---------------------------------------------------------------------- [[ ]] and test

    def run_cond(self, words: list[L.WordTok], at: str) -> int | None:
        toks = [w for w in words]
        if toks and toks[0].raw == "[[":
            toks = toks[1:]
        if toks and toks[-1].raw == "]]":
            toks = toks[:-1]
        self._cw = toks
        self._ci = 0
        try:
            r = self._c_or()
        except (IndexError, ValueError):
            return None
        if r is None:
            return None
        return 0 if r else 1

    _cw: list[L.WordTok]
    _ci: int

    def _c_peek(self) -> str | None:
        return self._cw[self._ci].raw if self._ci < len(self._cw) else None

    def _c_or(self) -> bool | None:
        left = self._c_and()
        while self._c_peek() == "||":
            self._ci += 1
            right = self._c_and()
            left = (
                True if left is True or right is True else (None if left is None or right is None else False)
            )
        return left

    def _c_and(self) -> bool | None:
        left = self._c_not()
        while self._c_peek() == "&&":
            self._ci += 1
            right = self._c_not()
            left = (
                False
                if left is False or right is False
                else (None if left is None or right is None else True)
            )
        return left

    def _c_not(self) -> bool | None:
        if self._c_peek() == "!":
            self._ci += 1
            v = self._c_not()
            return None if v is None else not v
        return self._c_primary()

    def _c_primary(self) -> bool | None:
        t = self._c_peek()
        if t == "(":
            self._ci += 1
            v = self._c_or()
            if self._c_peek() == ")":
                self._ci += 1
            return v
        w = self._cw[self._ci]
        nxt = self._cw[self._ci + 1].raw if self._ci + 1 < len(self._cw) else None
        if (
            t is not None
            and t.startswith("-")
            and len(t) == 2
            and nxt is not None
            and nxt not in ("&&", "||", ")")
        ):
            after = self._cw[self._ci + 2].raw if self._ci + 2 < len(self._cw) else None
            if after is None or after in ("&&", "||", ")"):
                self._ci += 2
                operand = self.expand_single(self._cw[self._ci - 1])
                return self._unary(t, operand)
        if nxt in (
            "==",
            "=",
            "!=",
            "=~",
            "<",
            ">",
            "-eq",
            "-ne",
            "-lt",
            "-le",
            "-gt",
            "-ge",
            "-nt",
            "-ot",
            "-ef",
        ):
            self._ci += 3
            left = self.expand_single(w)
            rtok = self._cw[self._ci - 1]
            if nxt in ("==", "=", "!="):
                pat = self.pattern_regex(rtok.raw, rtok.start)
                if left is None or pat is None:
                    return None
                m = re.fullmatch(pat, left, re.DOTALL) is not None
                return m if nxt != "!=" else not m
            if nxt == "=~":
                # the regex is the rest up to && / || / )
                j = self._ci - 1
                raw_parts = [rtok.raw]
                while self._ci < len(self._cw) and self._cw[self._ci].raw not in ("&&", "||"):
                    raw_parts.append(self._cw[self._ci].raw)
                    self._ci += 1
                del j
                rx = self.expand_single(L.WordTok("".join(raw_parts), rtok.start))
                if left is None or rx is None:
                    return None
                try:
                    return re.search(rx, left) is not None
                except re.error:
                    return None
            right = self.expand_single(rtok)
            return self._binary(nxt, left, right)
        self._ci += 1
        val = self.expand_single(w)
        return None if val is None else val != ""

    def _unary(self, op: str, v: str | None) -> bool | None:
        if op == "-v":
            if v is None:
                return None
            m = re.fullmatch(r"([A-Za-z_]\w*)(?:\[(.*)\])?", v)
            if m is None:
                return v.isdigit() and self.positional is not None and int(v) <= len(self.positional)
            var = self.lookup(m.group(1))
            if var is not None and not var.known:
                return None
            return var is not None and var.is_set
        if v is None:
            return None
        if op == "-z":
            return v == ""
        if op == "-n":
            return v != ""
        if op in ("-f", "-d", "-e", "-r", "-w", "-x", "-s", "-L", "-h", "-p", "-S", "-b", "-c"):
            path = self.resolve_path(to_str(v))
            if path is None or v == "":
                return None if v != "" else False
            exists = hostfs.lexists(path)
            if not exists:
                return None  # it may exist where the script runs
            if op == "-f":
                return hostfs.isfile(path)
            if op == "-d":
                return hostfs.isdir(path)
            if op == "-e":
                return True
            if op in ("-L", "-h"):
                return hostfs.islink(path)
            if op == "-s":
                try:
                    return hostfs.getsize(path) > 0
                except OSError:
                    return None
            return None
        if op == "-o":
            return None
        if op == "-t":
            return None
        return None

    def _binary(self, op: str, a: str | None, b: str | None) -> bool | None:
        if a is None or b is None:
            return None
        if op in ("=", "=="):
            return a == b
        if op == "!=":
            return a != b
        if op == "<":
            return a < b
        if op == ">":
            return a > b
        if op in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
            try:
                x = self.arith(a) if a.strip() else 0
                y = self.arith(b) if b.strip() else 0
            except ArithError:
                return None
            return {"-eq": x == y, "-ne": x != y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y}[
                op
            ]
        return None

    def test_argv(self, args: list[str | None]) -> bool | None:
        """POSIX test(1) on expanded words."""
        n = len(args)
        if n == 0:
            return False
        if n == 1:
            return None if args[0] is None else args[0] != ""
        if n == 2:
            if args[0] == "!":
                r = self.test_argv(args[1:])
                return None if r is None else not r
            if args[0] is not None and args[0].startswith("-"):
                return self._unary(args[0], args[1])
            return None
        if n == 3:
            if args[1] in ("=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
                return self._binary(args[1] or "", args[0], args[2])
            if args[1] in ("-a", "-o"):
                x = self.test_argv(args[:1])
                y = self.test_argv(args[2:])
                if args[1] == "-a":
                    return False if x is False or y is False else (None if x is None or y is None else True)
                return True if x is True or y is True else (None if x is None or y is None else False)
            if args[0] == "!":
                r = self.test_argv(args[1:])
                return None if r is None else not r
            if args[0] == "(" and args[2] == ")":
                return self.test_argv(args[1:2])
            return None
        # -o lowest, then -a
        for op in ("-o", "-a"):
            for k in range(n - 1, 0, -1):
                if args[k] == op:
                    x = self.test_argv(args[:k])
                    y = self.test_argv(args[k + 1 :])
                    if op == "-a":
                        return (
                            False if x is False or y is False else (None if x is None or y is None else True)
                        )
                    return True if x is True or y is True else (None if x is None or y is None else False)
        if args[0] == "!":
            r = self.test_argv(args[1:])
            return None if r is None else not r
        if args[0] == "(" and args[-1] == ")":
            return self.test_argv(args[1:-1])
        return None

    # ---------------------------------------------------------------------- builtins

    def b_true(self, *a: Any) -> int | None:
        return 0

    def b_false(self, *a: Any) -> int | None:
        return 1

    def b_test(self, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
        words = [w.text for w in args]
        if argv[0].text == "[":
            if not words or words[-1] != "]":
                self.emit("test_bracket", at)
                return 2
            words = words[:-1]
        r = self.test_argv(words)
        return None if r is None else (0 if r else 1)

    def b_export(self, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
        return self._declare(args, at, argv[0].text or "", default_attrs={"exported": True})

    def b_declare(self, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
        cmd = argv[0].text or ""
        attrs: dict[str, Any] = {}
        if cmd == "readonly":
            attrs["readonly"] = True
        return self._declare(args, at, cmd, default_attrs=attrs)

    def _declare(self, args: list[ExpWord], at: str, cmd: str, default_attrs: dict[str, Any]) -> int | None:
        attrs = dict(default_attrs)
        local = cmd == "local" or (cmd in ("declare", "typeset") and self.depth > 0)
        unexport = False
        global_ = False
        func_mode = False
        for w in args:
            if w.reason and w.reason.startswith("ASSIGN:"):
                raw = w.reason[len("ASSIGN:") :]
                tok = L.WordTok(raw, w.offset)
                m = L.ASSIGN_RE.match(raw)
                assert m
                name = from_str(m.group(1))
                self.do_assignment(
                    tok,
                    local=local and not global_,
                    **{k: v for k, v in attrs.items() if k not in ("exported",) or v},
                )
                scope = self.scopes[-1] if local and not global_ else self._scope_of(name)
                var = scope.get(name)
                if var is not None:
                    upd: dict[str, Any] = {}
                    if attrs.get("exported"):
                        upd["exported"] = True
                    if unexport:
                        upd["exported"] = False
                    if attrs.get("readonly"):
                        upd["readonly"] = True
                    if upd:
                        scope[name] = var.with_(**upd)
                continue
            t = w.text
            if t is None:
                self.emit("unknown_declare", at, reason=w.reason)
                continue
            if t.startswith(("-", "+")) and len(t) > 1 and not (cmd == "export" and t == "--"):
                on = t[0] == "-"
                for ch in t[1:]:
                    if ch == "x":
                        attrs["exported"] = on
                        unexport = not on
                    elif ch == "r" and on:
                        attrs["readonly"] = True
                    elif ch == "i":
                        attrs["integer"] = on
                    elif ch == "a":
                        attrs["array"] = True
                    elif ch == "A":
                        attrs["assoc"] = True
                    elif ch == "g":
                        global_ = True
                    elif ch == "n" and cmd == "export":
                        unexport = True
                    elif ch in "fF":
                        func_mode = True
                    elif ch == "p":
                        pass
                continue
            if t == "--":
                continue
            if func_mode:
                continue
            name = t
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                self.emit("bad_identifier", at, name=to_str(name), cmd=cmd)
                continue
            scope = self.scopes[-1] if local and not global_ else self._scope_of(name)
            var = scope.get(name)
            if var is None:
                if (
                    local
                    and not global_
                    and cmd in ("local", "declare", "typeset")
                    and self.lookup(name) is not None
                    and False
                ):
                    pass
                new = Var(value="" if False else None, is_set=False, known=True, at=at, expansion=cmd)
                if attrs.pop("array", None) or attrs.get("assoc"):
                    new = new.with_(array=(), is_set=True, assoc=bool(attrs.get("assoc")))
                new = new.with_(
                    **{k: v for k, v in attrs.items() if k in ("exported", "readonly", "integer", "assoc")}
                )
                if unexport:
                    new = new.with_(exported=False)
                scope[name] = new
            else:
                upd = {k: v for k, v in attrs.items() if k in ("exported", "readonly", "integer")}
                if unexport:
                    upd["exported"] = False
                scope[name] = var.with_(**upd)
        return 0

    def b_unset(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        mode = "v"
        for w in args:
            t = w.text
            if t is None:
                continue
            if t in ("-f", "-v", "-n"):
                mode = t[1]
                continue
            if mode == "f":
                self.funcs.pop(t, None)
                continue
            m = re.fullmatch(r"([A-Za-z_]\w*)(?:\[(.*)\])?", t)
            if not m:
                continue
            name = m.group(1)
            scope = self._scope_of(name)
            var = scope.get(name)
            if var is None:
                if mode == "v" and name in self.funcs and False:
                    pass
                continue
            if var.readonly:
                self.emit("readonly", at, name=name)
                continue
            if m.group(2) is not None and var.array is not None:
                try:
                    key: Any = self.arith(m.group(2)) if not var.assoc else m.group(2)
                except ArithError:
                    scope[name] = var.with_(known=False, reason="an element was unset at an unknown index")
                    continue
                scope[name] = var.with_(array=tuple((k, v) for k, v in var.array if k != key))
                continue
            if len(self.scopes) > 1 and scope is not self.scopes[0]:
                scope[name] = Var(is_set=False, at=at, expansion="unset")
            else:
                del scope[name]
        return 0

    def b_shift(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        n = 1
        if args:
            t = args[0].text
            if t is None:
                self.positional = None
                self.positional_reason = f"`shift` by an amount not known statically ({at})"
                return None
            try:
                n = self.arith(t)
            except ArithError:
                return 1
        if self.positional is None:
            return None
        if n > len(self.positional) or n < 0:
            self.emit("shift_too_far", at, n=n, have=len(self.positional))
            return 1
        self.positional = self.positional[n:]
        return 0

    def b_set(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        texts = [w.text for w in args]
        i = 0
        while i < len(texts):
            t = texts[i]
            if t is None:
                return None
            if t == "--":
                self._set_positional(args[i + 1 :], at)
                return 0
            if t == "-":
                self.options.discard("xtrace")
                self._set_positional(args[i + 1 :], at)
                return 0
            if t in ("-o", "+o"):
                opt = texts[i + 1] if i + 1 < len(texts) else None
                if opt:
                    (self.options.add if t == "-o" else self.options.discard)(opt)
                i += 2
                continue
            if t[:1] in "-+" and len(t) > 1:
                on = t[0] == "-"
                for ch in t[1:]:
                    opt = {
                        "e": "errexit",
                        "u": "nounset",
                        "x": "xtrace",
                        "f": "noglob",
                        "a": "allexport",
                        "o": "",
                    }.get(ch)
                    if ch == "o":
                        opt = texts[i + 1] if i + 1 < len(texts) else None
                        i += 1
                    if opt:
                        (self.options.add if on else self.options.discard)(opt)
                i += 1
                continue
            self._set_positional(args[i:], at)
            return 0
        return 0

    def _set_positional(self, words: list[ExpWord], at: str) -> None:
        if any(w.text is None for w in words):
            self.positional = None
            bad = next(w for w in words if w.text is None)
            self.positional_reason = f"`set --` at {at} uses a value not known statically ({bad.reason})"
            return
        self.positional = [w.text or "" for w in words]
        self.positional_reason = None

    def b_cd(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        texts = [w.text for w in args if w.text not in ("-L", "-P", "-e", "-@")]
        if not texts:
            st, home, _ = self.get_param("HOME")
            target = home if st == "set" else None
        else:
            target = texts[0]
            if target == "-":
                st, target, _ = self.get_param("OLDPWD")
                if st != "set":
                    target = None
        old = self.cwd
        if target is None:
            self.cwd = None
            self.cwd_reason = f"`cd` at {at} goes to a directory not known statically"
        else:
            t = to_str(target)
            if t.startswith("/"):
                self.cwd = posixpath.normpath(t)
            elif self.cwd is not None:
                self.cwd = posixpath.normpath(posixpath.join(self.cwd, t))
            self.cwd_reason = None if self.cwd is not None else self.cwd_reason
        if old is not None:
            self.set_var("OLDPWD", from_str(old), at=at, expansion="cd")
        else:
            self.set_var("OLDPWD", None, at=at, expansion="cd", reason="the previous directory is not known")
        self.set_var(
            "PWD", from_str(self.cwd) if self.cwd else None, at=at, expansion="cd", reason=self.cwd_reason
        )
        for n in ("PWD", "OLDPWD"):
            sc = self._scope_of(n)
            sc[n] = sc[n].with_(exported=True)
        return 0

    def b_pushd(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        return self.b_cd([w for w in args if not (w.text or "").startswith("-")], at)

    def b_popd(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        self.cwd = None
        self.cwd_reason = f"`popd` at {at}"
        return None

    def b_exit(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        st: int | None = self.last_status
        if args:
            try:
                st = int(args[0].text or "") & 0xFF if args[0].text is not None else None
            except ValueError:
                st = 2
        raise _Exit(st, f"`exit` at {at}")

    def b_return(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        st: int | None = self.last_status
        if args:
            try:
                st = int(args[0].text or "") & 0xFF if args[0].text is not None else None
            except ValueError:
                st = 2
        if self.depth == 0 and not self.source_stack:
            raise _Exit(st, f"`return` at {at}")
        raise _Return(st)

    def b_break(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        n = int(args[0].text or "1") if args and (args[0].text or "").isdigit() else 1
        raise _Break(max(n, 1))

    def b_continue(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        n = int(args[0].text or "1") if args and (args[0].text or "").isdigit() else 1
        raise _Continue(max(n, 1))

    def b_read(
        self,
        args: list[ExpWord],
        at: str,
        argv: list[ExpWord],
        prefix_env: Any = None,
        redirs: Any = (),
        *rest: Any,
    ) -> int | None:
        cmd = to_str(argv[0].text or "read")
        names: list[str] = []
        array_name: str | None = None
        raw_mode = False
        unsupported = False
        k = 0
        while k < len(args):
            t = args[k].text
            if t is None:
                unsupported = True
                k += 1
                continue
            if t.startswith("-") and len(t) > 1 and not names:
                flags = t[1:]
                for ci, ch in enumerate(flags):
                    if ch == "r":
                        raw_mode = True
                    elif ch == "s":
                        pass
                    elif ch in "adinNptu":
                        val = flags[ci + 1 :] or (args[k + 1].text if k + 1 < len(args) else None)
                        if not flags[ci + 1 :]:
                            k += 1
                        if ch == "a":
                            array_name = val
                        elif ch != "p":
                            unsupported = True
                        break
                    else:
                        unsupported = True
                k += 1
                continue
            names.append(t)
            k += 1
        if cmd == "read" and not names and array_name is None:
            names = ["REPLY"]
        if cmd in ("mapfile", "readarray"):
            unsupported = True
            if not names:
                names = ["MAPFILE"]
        # `read ... <<< "$known"`: the line is known, so are the variables
        here = [r for r in redirs if r[1] == "<<<"] if redirs else []
        line: str | None = None
        if here and not unsupported and len(redirs) == 1 and here[0][2] is not None:
            line = here[0][2].split("\n", 1)[0]
            if not raw_mode and "\\" in line:
                line = None
        ifs = self._ifs()
        if prefix_env and "IFS" in prefix_env:
            ifs = prefix_env["IFS"][0]
        values: list[str] | None = None
        if line is not None and ifs is not None:
            values = _read_split(line, ifs, None if array_name else len(names))
        reason = f"`{cmd}` at {at} reads it at run time"
        if array_name is not None and re.fullmatch(r"[A-Za-z_]\w*", array_name):
            items: list[tuple[Any, str | None]] | None = (
                None if values is None else [(None, v) for v in values]
            )
            self.set_array(array_name, items, at=at, expansion=cmd, reason=reason)
        for idx, n in enumerate(names):
            if re.fullmatch(r"[A-Za-z_]\w*", n):
                v = None if values is None else (values[idx] if idx < len(values) else "")
                self.set_var(n, v, at=at, expansion=cmd, reason=reason)
        return 0 if values is not None else None

    def b_getopts(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        if len(args) >= 2 and args[1].text:
            self.set_var(args[1].text, None, at=at, expansion="getopts", reason=f"`getopts` at {at}")
        self.set_var("OPTARG", None, at=at, expansion="getopts", reason=f"`getopts` at {at}")
        self.set_var("OPTIND", None, at=at, expansion="getopts", reason=f"`getopts` at {at}")
        return None

    def b_printf(
        self, args: list[ExpWord], at: str, argv: list[ExpWord], prefix_env: Any, redirs: Any, *rest: Any
    ) -> int | None:
        if self.captures and args and args[0].text != "-v":
            texts = [w.text for w in args]
            if any(t is None for t in texts):
                self._cap_write(None, redirs)
                return 0
            out = _printf(texts[0] or "", [t or "" for t in texts[1:]])
            self._cap_write(out, redirs)
            return 0
        if len(args) >= 2 and args[0].text == "-v":
            name = args[1].text
            fmt = args[2].text if len(args) > 2 else None
            vals = [w.text for w in args[3:]]
            value: str | None = None
            if fmt is not None and all(v is not None for v in vals):
                value = _printf(fmt, [v or "" for v in vals])
            if name:
                self.set_var(name, value, at=at, expansion="printf -v", reason=f"`printf -v` at {at}")
        return 0

    def b_let(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        st: int | None = 0
        for w in args:
            if w.text is None:
                return None
            try:
                st = 0 if self.arith(w.text) else 1
            except ArithError:
                self.mark_arith_unknown(w.text)
                return None
        return st

    def b_wait(self, *a: Any) -> int | None:
        self.waited = True
        return None

    def b_eval(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        if any(w.text is None for w in args):
            bad = next(w for w in args if w.text is None)
            self.emit("eval_unknown", at, reason=bad.reason)
            self._cap_write(None, [])  # inside $(...): what it would print is unknown, not empty
            return None
        code = " ".join(w.text or "" for w in args)
        return self.run_string(code, f"{at}", label=f"eval at {at}")

    def run_string(self, code: str, at: str, label: str) -> int | None:
        if self.depth >= MAX_DEPTH:
            self.emit("recursion", at, name="eval")
            return None
        src = Source(self.src.label, _prepare(code), None, fixed_at=at)
        src.tree = self.parse(src.text)
        saved = self.src
        self.src = src
        self.depth += 1
        try:
            return self.run_block(src.tree.root_node.children)
        finally:
            self.src = saved
            self.depth -= 1

    def b_source(self, args: list[ExpWord], at: str, argv: list[ExpWord], *rest: Any) -> int | None:
        if not args:
            return 2
        fname = args[0].text
        if fname is None:
            self.emit("source_unknown", at, reason=args[0].reason, raw=args[0].expansion)
            self._taint_all(
                f"`{to_str(argv[0].text or 'source')} {args[0].expansion}` ({at}) reads a file not known "
                "statically"
            )
            return None
        path = self._find_source(to_str(fname))
        if path is None:
            near = None
            if self.main.path and not fname.startswith("/"):
                cand = os.path.join(os.path.dirname(self.main.path), to_str(fname))
                near = cand if hostfs.isfile(cand) else None
            self.emit(
                "source_missing",
                at,
                near_script=near,
                file=to_str(fname),
                cwd=self.cwd,
                script_dir=os.path.dirname(self.main.path) if self.main.path else None,
            )
            return 1
        real = hostfs.realpath(path)
        if real in self.source_stack:
            self.emit("source_loop", at, file=to_str(fname), chain=[*self.source_stack, real])
            return None
        if len(self.source_stack) > 32:
            self.emit("recursion", at, name="source")
            return None
        try:
            data = hostfs.read(path, 16 * 1024 * 1024)
        except OSError as e:
            self.emit("source_missing", at, file=to_str(fname), cwd=self.cwd, error=str(e))
            return 1
        src = Source(to_str(fname), _prepare(data.decode("latin-1")), path)
        src.tree = self.parse(src.text)
        saved_src = self.src
        saved_pos, saved_reason = self.positional, self.positional_reason
        if len(args) > 1:
            if any(w.text is None for w in args[1:]):
                self.positional = None
                self.positional_reason = f"arguments of `source` at {at} are not known statically"
            else:
                self.positional = [w.text or "" for w in args[1:]]
        self.src = src
        self.source_stack.append(real)
        self.bash_source.append(fname)
        try:
            return self.run_block(src.tree.root_node.children)
        except _Return as r:
            return r.status
        finally:
            self.src = saved_src
            self.source_stack.pop()
            self.bash_source.pop()
            if len(args) > 1:
                self.positional, self.positional_reason = saved_pos, saved_reason

    def _find_source(self, fname: str) -> str | None:
        if "/" in fname:
            p = self.resolve_path(fname)
            return p if p is not None and hostfs.isfile(p) else None
        st, path_var, _ = self.get_param("PATH")
        if st == "set" and path_var:
            for d in to_str(path_var).split(":"):
                cand = os.path.join(d or ".", fname)
                if d and hostfs.isfile(cand):
                    return cand
        p = self.resolve_path(fname)
        return p if p is not None and hostfs.isfile(p) else None

    def _taint_all(self, reason: str) -> None:
        """After sourcing an unknown file, any variable may have changed; we keep values but note it."""
        self.emit("taint", None, reason=reason)

    def b_exec(
        self,
        args: list[ExpWord],
        at: str,
        argv: list[ExpWord],
        prefix_env: Any,
        redirs: Any,
        start: int,
        vanished: list[Vanished],
    ) -> int | None:
        i = 0
        while i < len(args) and (args[i].text or "").startswith("-"):
            if args[i].text == "-a":
                i += 1
            if args[i].text == "--":
                i += 1
                break
            i += 1
        rest = args[i:]
        if not rest:
            # exec with only redirections: they apply to the rest of the script (kept as the state of fds 1
            # and 2, so that a script that repeats them does not pile them up)
            for fd, op, tgt, rat, _r in redirs:
                self._exec_redirect(fd, op, tgt, rat)
            for fd, op, tgt, rat, _r in redirs:
                self._note_redirect(fd, op, tgt, rat, None)
            return 0
        shift = len(argv) - len(rest)
        van = [Vanished(v.index - shift, v.raw, v.at, v.state, v.name) for v in vanished]
        name = rest[0].text
        self.direct_exec = True
        st = self.external(rest, prefix_env, redirs, at, start, van) if name is not None else None
        if name is None:
            texts = [w.text if w.text is not None else "" for w in rest]
            det = detect_after_unknown(texts)
            if det is not None:
                self.record_server(rest, prefix_env, redirs, at, start, van, det)
        raise _Exit(st, f"`exec` at {at} replaces the shell")

    def b_command(
        self,
        args: list[ExpWord],
        at: str,
        argv: list[ExpWord],
        prefix_env: Any,
        redirs: Any,
        start: int,
        vanished: list[Vanished],
    ) -> int | None:
        if args and (args[0].text or "") in ("-v", "-V"):
            return None
        rest = [w for w in args if not (w.text or "").startswith("-")] if args else []
        if not rest:
            return 0
        shift = len(argv) - len(rest)
        van = [Vanished(v.index - shift, v.raw, v.at, v.state, v.name) for v in vanished]
        name = rest[0].text
        handler = getattr(self, "b_" + _BUILTIN_NAMES.get(name or "", "_none"), None)
        if handler is not None and name != "command":
            r: int | None = handler(rest[1:], at, rest, prefix_env, redirs, start, van)
            return r
        return self.external(rest, prefix_env, redirs, at, start, van)

    def b_echo(
        self, args: list[ExpWord], at: str, argv: list[ExpWord], prefix_env: Any, redirs: Any, *rest: Any
    ) -> int | None:
        if not self.captures:
            return 0
        words = [w.text for w in args]
        self._cap_write(_echo_output(words), redirs)
        return 0

    def b_pwd(
        self, args: list[ExpWord], at: str, argv: list[ExpWord], prefix_env: Any, redirs: Any, *rest: Any
    ) -> int | None:
        if self.captures:
            self._cap_write(None if self.cwd is None else from_str(self.cwd) + "\n", redirs)
        return 0

    def b_noop(self, *a: Any) -> int | None:
        return 0

    def b_unknown(self, *a: Any) -> int | None:
        return None

    def b_alias(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        if args:
            self.emit("alias", at)
        return 0

    def b_shopt(self, args: list[ExpWord], at: str, *rest: Any) -> int | None:
        texts = [w.text for w in args]
        if texts and texts[0] in ("-s", "-u"):
            for t in texts[1:]:
                if t:
                    (self.options.add if texts[0] == "-s" else self.options.discard)(t)
        return 0


_BUILTIN_NAMES = {
    ":": "true",
    "true": "true",
    "false": "false",
    "test": "test",
    "[": "test",
    "export": "export",
    "declare": "declare",
    "typeset": "declare",
    "local": "declare",
    "readonly": "declare",
    "unset": "unset",
    "shift": "shift",
    "set": "set",
    "cd": "cd",
    "pushd": "pushd",
    "popd": "popd",
    "exit": "exit",
    "return": "return",
    "break": "break",
    "continue": "continue",
    "read": "read",
    "mapfile": "read",
    "readarray": "read",
    "getopts": "getopts",
    "printf": "printf",
    "let": "let",
    "wait": "wait",
    "eval": "eval",
    "source": "source",
    ".": "source",
    "exec": "exec",
    "command": "command",
    "builtin": "command",
    "echo": "echo",
    "pwd": "pwd",
    "trap": "noop",
    "ulimit": "noop",
    "umask": "noop",
    "shopt": "shopt",
    "hash": "noop",
    "type": "unknown",
    "alias": "alias",
    "unalias": "noop",
    "jobs": "noop",
    "disown": "noop",
    "times": "noop",
    "enable": "noop",
    "complete": "noop",
    "dirs": "noop",
    "suspend": "noop",
    "kill": "unknown",
}


STDBUF_LIB = "/usr/libexec/coreutils/libstdbuf.so"  # Debian/Ubuntu coreutils


def _server_key(s: FoundServer) -> tuple[Any, ...]:
    """What makes two server starts the same start (for folding the iterations of a loop)."""
    return (
        tuple((w.text, w.at) for w in s.argv),
        tuple(sorted((k, v[0]) for k, v in s.env.items())),
        s.cwd,
        s.backgrounded,
        s.conditional,
        tuple(s.redirects),
        tuple(s.inherited_redirects),
    )


# commands whose output ``_emulate`` computes from their expanded words (the same as ``_capture`` would)
_EMULATED = frozenset({"echo", "printf", "pwd", "dirname", "basename", "readlink", "realpath"})


def _echo_output(words: Sequence[str | None]) -> str | None:
    """What bash's ``echo`` prints for these words (None when one of them is unknown)."""
    nl = True
    interpret = False
    i = 0
    while i < len(words) and words[i] is not None and re.fullmatch(r"-[neE]+", words[i] or ""):
        w = words[i] or ""
        nl = nl and "n" not in w
        interpret = ("e" in w) or (interpret and "E" not in w)
        i += 1
    rest = words[i:]
    if any(w is None for w in rest):
        return None
    out = " ".join(w or "" for w in rest)
    if interpret:
        out = L.decode_ansi(out)
    return out + ("\n" if nl else "")


def _stdbuf_env(
    texts: list[str], env: dict[str, tuple[str | None, str | None, str, str | None]], argv: list[ExpWord]
) -> None:
    """``stdbuf -oL cmd`` runs cmd with LD_PRELOAD=libstdbuf.so and _STDBUF_O=L (coreutils' mechanism)."""
    i = next((k for k, t in enumerate(texts) if t.rsplit("/", 1)[-1] == "stdbuf"), -1)
    if i < 0:
        return
    k = i + 1
    at = argv[i].at
    while k < len(texts) and texts[k].startswith("-"):
        t = texts[k]
        m = re.fullmatch(r"-([ioe])(.*)|--(input|output|error)=(.*)", t)
        if not m:
            break
        stream = (m.group(1) or m.group(3)[0]).upper()
        mode = m.group(2) if m.group(1) else m.group(4)
        if m.group(1) and mode == "" and k + 1 < len(texts):
            k += 1
            mode = texts[k]
        env[f"_STDBUF_{stream}"] = (mode, at, "stdbuf", None)
        k += 1
    old = env.get("LD_PRELOAD")
    value = STDBUF_LIB if not old or old[0] is None else f"{old[0]}:{STDBUF_LIB}"
    env["LD_PRELOAD"] = (value, at, "stdbuf", None)


def detect_after_unknown(texts: list[str]) -> Detection | None:
    """A server behind an unknown command word (``$PYTHON -m sglang...``, ``$LAUNCHER vllm serve``)."""
    if len(texts) > 2 and texts[1] == "-m":
        det = detect_server(["python", *texts[1:]])
        if det is not None:
            return det
    for k in range(1, min(len(texts), 5)):
        det = detect_server(texts[k:])
        if det is not None:
            return dataclasses.replace(
                det,
                server_args_start=det.server_args_start + k,
                command_index=det.command_index + k,
                env_assignments=tuple((i + k, n, v) for i, n, v in det.env_assignments),
            )
    return None


def _read_split(line: str, ifs: str, nvars: int | None) -> list[str] | None:
    """How ``read`` splits one line: into fields (``-a``, nvars None) or into nvars variables, the last one
    getting the rest of the line. None when the rule is not followed here (non-blank IFS with a remainder)."""
    ws = "".join(c for c in ifs if c in " \t\n")
    if not ifs:
        return [line] if nvars is None else [line] + [""] * (max(nvars, 1) - 1)
    fields: list[str] = []
    i = 0
    n = len(line)
    while i < n and line[i] in ws:
        i += 1
    while i < n:
        if nvars is not None and len(fields) == nvars - 1:
            rest = line[i:]
            stripped = rest.rstrip(ws) if ws else rest
            if any(c in ifs and c not in ws for c in stripped):
                return None
            fields.append(stripped)
            return fields
        j = i
        while j < n and line[j] not in ifs:
            j += 1
        fields.append(line[i:j])
        i = j
        while i < n and line[i] in ws:
            i += 1
        if i < n and line[i] in ifs and line[i] not in ws:
            i += 1
            while i < n and line[i] in ws:
                i += 1
            if i >= n and nvars is None:
                break
    return fields


def _split_patterns(text: str, start: int, end: int) -> list[tuple[str, int]]:
    """``a|b*|"c d")``: the alternatives of a case item (quotes respected), with their offsets."""
    i = start
    while i < end and text[i] in " \t\n":
        i += 1
    if i < end and text[i] == "(":
        i += 1  # the optional `(` before the first pattern
    out: list[tuple[str, int]] = []
    seg = i
    depth = 0  # inside an extglob group `@(a|b)`, whose `|` does not separate patterns
    while i < end:
        try:
            skipped = L.skip_quoted(text, i, end, ansi=False, backtick=False)
        except L.LexError:
            break
        if skipped != i:
            i = skipped
            continue
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        elif c == "|" and not depth:
            out.append((text[seg:i].strip(" \t\n"), seg))
            i += 1
            while i < end and text[i] in " \t\n":
                i += 1
            seg = i
            continue
        i += 1
    out.append((text[seg:end].strip(" \t\n"), seg))
    return [(raw, off) for raw, off in out if raw]


def _split_on_break(chunks: list[_Chunk]) -> list[list[_Chunk]]:
    groups: list[list[_Chunk]] = [[]]
    for c in chunks:
        if c is _BREAK:
            groups.append([])
        else:
            groups[-1].append(c)
    return groups


def from_str_regex(rx: str) -> str:
    """Patterns are built from latin-1 text; matching happens on real strings."""
    return to_str(rx) if not rx.isascii() else rx


def _longest_match(rx: str, s: str, anchored_start: bool) -> int | None:
    for k in range(len(s), -1, -1):
        if re.fullmatch(rx, s[:k], re.DOTALL):
            return k
    return None


def _dirname(p: str) -> str:
    if not p:
        return "."
    stripped = p.rstrip("/")
    if not stripped:
        return "/"
    if "/" not in stripped:
        return "."
    d = stripped.rsplit("/", 1)[0].rstrip("/")
    return d or "/"


def _basename(p: str) -> str:
    stripped = p.rstrip("/")
    if not stripped:
        return "/" if p else ""
    return stripped.rsplit("/", 1)[-1]


def _printf(fmt: str, args: list[str]) -> str | None:
    """bash's printf for %s/%d/%%/escapes; the format is reused while arguments remain."""
    out: list[str] = []
    ai = 0
    while True:
        used = 0
        i = 0
        while i < len(fmt):
            c = fmt[i]
            if c == "\\" and i + 1 < len(fmt):
                out.append(L.decode_ansi(fmt[i : i + 2]))
                i += 2
                continue
            if c == "%" and i + 1 < len(fmt):
                d = fmt[i + 1]
                if d == "%":
                    out.append("%")
                elif d in "sdib":
                    arg = args[ai] if ai < len(args) else ""
                    if d in "di":
                        try:
                            arg = str(int(arg or "0", 0))
                        except ValueError:
                            return None
                    elif d == "b":
                        arg = L.decode_ansi(arg)
                    out.append(arg)
                    ai += 1
                    used += 1
                else:
                    return None
                i += 2
                continue
            out.append(c)
            i += 1
        if ai >= len(args) or used == 0:
            break
    return "".join(out)


def _prepare(text: str) -> str:
    """Substitute the placeholders tree-sitter needs (``lexer``): CR, and blanks after a backslash at EOL."""
    if "\r" in text:
        text = text.replace("\r", L.CR)
    if "\\ " in text or "\\\t" in text:
        text = re.sub(
            r"(?<!\\)((?:\\\\)*)\\([ \t])(?=[ \t]*(?:\n|$))",
            lambda m: m.group(1) + "\\" + (L.ESC_SPACE if m.group(2) == " " else L.ESC_TAB),
            text,
        )
    if "esac" in text and ";&" in text:
        # `;&` / `;;&` right before `esac` (valid bash: there is no next item to fall into or test) is a
        # parse error for tree-sitter-bash, which then loses the whole `case`; `;;` means the same there.
        # Same length, so every offset stays.
        text = _LAST_FALLTHROUGH.sub(
            lambda m: m.group(1) + ";;" + " " * (len(m.group(2)) - 2) + m.group(3), text
        )
    if "`" in text and "#" in text:
        # `# a comment` inside backquotes (a way to comment a continued line) expands to nothing in bash, but
        # tree-sitter reads the comment past the closing backquote and swallows the lines after it: blank the
        # comment out (same length, so every offset stays)
        text = _BACKQUOTE_COMMENT.sub(lambda m: "`" + " " * (len(m.group(0)) - 2) + "`", text)
    return text


# only on a line without quotes before it, so a string that contains `;& esac` stays as written
_LAST_FALLTHROUGH = re.compile(r"(?m)^([^'\"\n#]*?)(;;?&)((?:[ \t\n]|#[^\n]*\n)*esac\b)")
_BACKQUOTE_COMMENT = re.compile(r"(?<![\\$])`[ \t]*#[^`\n]*`")

prepare_text = _prepare
