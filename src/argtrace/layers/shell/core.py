"""The evaluator's foundation: the values it passes around and the state every part of it shares.

Owns the script ``Source`` (text, tree, positions), words (``ExpWord``, ``Vanished``), what the evaluation
finds (``FoundServer``, ``Event``, ``PredictedCommand``), the control-flow signals (``_Exit``, ``_Return``,
``_Break``, ``_Continue``, ``_Budget``), the limits (steps, loop iterations, nesting), the preparation of
text for tree-sitter, and ``Core``: the evaluator's attributes (``__init__``), events and the step budget.
Every other part of the evaluator (``params``, ``expand``, ``control``, ``conditions``, ``commands``,
``builtins``) builds on ``Core``; ``Core`` imports none of them. The few calls that go from an earlier part
to a later one (a command substitution runs commands) are declared here as hooks and provided by the part
that owns them, so that imports only ever point down that chain.
"""

from __future__ import annotations

import bisect
import operator
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from argtrace.deferred_dataclass import dataclass as deferred
from argtrace.frameworks.detect import Detection
from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.state import Var, new_var
from argtrace.model_launch import CommandIO, FromUnset

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Generic, TypeVar

    from argtrace.layers.shell.alias_def import AliasDef
    from argtrace.layers.shell.loop_frame import _Loop
    from argtrace.layers.shell.stdin_streams import StdinStream  # (read with a compound's here-document)

    _T = TypeVar("_T")
else:
    Generic, _T = {None: object}, None  # `Generic[_T]` below is `object` at run time: no typing


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

# Text one word may expand to, and all expansions of a run together: MAX_EXPANDED_BYTES plus EXPANDED_PER_BYTE
# per byte of the script (counted like steps, never timed). A word beyond MAX_WORD_BYTES cannot reach a
# server (execve refuses one argument over 128 KiB) and is unknown; past the total the
# evaluation stops as at MAX_STEPS. Before, `X=$X$X` 64 times doubled a string until memory ran out, and a
# function calling itself twice with `$1$1` spent its 30,000 steps splitting 1 KB words character by
# character (probe of session 13: past 60 s and 10 s). Real scripts expand about their own size.
MAX_WORD_BYTES = 1024 * 1024
MAX_EXPANDED_BYTES = 8 * 1024 * 1024
EXPANDED_PER_BYTE = 4

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
        # most scripts are ASCII throughout: then a column is the offset in its line, with no per-line test
        self._all_ascii = text.isascii()
        self.tree: Any = None

    @property
    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            # line k starts after the k lines before it and their newlines: the lengths' running sum plus k,
            # summed in C (a search and an append a line cost two calls each: 20,000 lines a MB, issue 18)
            lengths = map(len, self.text.split("\n"))
            starts = list(map(operator.add, accumulate(lengths, initial=0), range(sys.maxsize)))
            self._line_starts = starts[:-1]  # the sum after the last line starts no line
        return self._line_starts

    _last_line = 0

    def line_col(self, offset: int) -> tuple[int, int]:
        ls = self.line_starts
        line = self._last_line
        # scripts are read in order: try the line of the previous lookup first
        if not (ls[line] <= offset and (line + 1 >= len(ls) or offset < ls[line + 1])):
            nxt = line + 1
            if nxt < len(ls) and ls[nxt] <= offset and (nxt + 1 >= len(ls) or offset < ls[nxt + 1]):
                line = nxt  # the next line: where an in-order reading goes
            else:
                line = bisect.bisect_right(ls, offset) - 1
            self._last_line = line
        start = ls[line]
        if self._all_ascii or self._ascii_line(line):
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

    # the last location asked for: a command, its first word and its assignment are asked for one offset
    _at_offset = -1
    _at_text = ""

    # the line of the last location made, in an ASCII text: "label:line:" and its offsets [lo, hi), so the
    # other words of a command on it get theirs from the column alone (four per `[ -n "$X" ]`, issue 18)
    _at_lo = 0
    _at_hi = 0
    _at_prefix = ""

    def at(self, offset: int) -> str:
        if self.fixed_at is not None:
            return self.fixed_at
        if offset == self._at_offset:
            return self._at_text
        lo = self._at_lo
        if lo <= offset < self._at_hi:
            text = self._at_prefix + str(offset - lo + 1)
        elif self._all_ascii and offset >= 0:
            # another line of an ASCII text: its number from one bisection, its column the offset in it
            # (what line_col gives there, without its in-order guesses; issue 18: every command asks)
            ls = self._line_starts or self.line_starts
            line = bisect.bisect_right(ls, offset)
            lo = ls[line - 1]
            self._at_lo = lo
            self._at_hi = ls[line] if line < len(ls) else sys.maxsize
            prefix = self._at_prefix = f"{self.label}:{line}:"
            text = prefix + str(offset - lo + 1)
        else:
            line, col = self.line_col(offset)
            text = f"{self.label}:{line}:{col}"
            if self._all_ascii:
                ls = self.line_starts
                self._at_lo = ls[line - 1]
                self._at_hi = ls[line] if line < len(ls) else sys.maxsize
                self._at_prefix = f"{self.label}:{line}:"
        self._at_offset, self._at_text = offset, text
        return text

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
    if "\x01" in text or "\x02" in text or "\x03" in text:  # L.restore's test, without its call when none is
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


@dataclass(slots=True)
class ExpWord:
    """One field produced by expanding a word."""

    text: str | None  # latin-1; None: unknown
    at: str
    expansion: str  # "literal" or the word's source text
    reason: str | None = None
    quoted_expansion: bool = False  # the word is one quoted expansion ("$x", "${@:3}")
    split_from: str | None = None  # set when an unquoted expansion split into several fields
    offset: int = 0
    unglobbed: str | None = None  # unknown only through pathname expansion: the text before it (latin-1)
    # unknown only through quoted expansions not known statically ("cmd --addr $ip:5000"): the text with a
    # HOLE in place of each, and why each is not known (a `bash -c` string still has its other words)
    holed: str | None = None
    holes: tuple[tuple[str | None, str], ...] = ()  # (the expansion as written, why it is not known)


HOLE = "\x00"  # never in a script's text: analysis.py removes NUL bytes before anything reads it


@deferred
class Vanished:
    """An expansion in the server's argv that produced no word at all."""

    index: int  # argv index where the word would have been
    raw: str
    at: str
    state: str  # "unset" | "empty"
    name: str | None
    via: str | None = None  # empty: copied from this variable, not set here (VanishedWord.via)


def vanished_in(rest: list[ExpWord], argv: list[ExpWord], vanished: list[Vanished]) -> list[Vanished]:
    """``argv``'s vanished words numbered for ``rest``, its tail that a wrapper (exec, command, time) runs."""
    shift = len(argv) - len(rest)
    return [Vanished(v.index - shift, v.raw, v.at, v.state, v.name, v.via) for v in vanished]


@dataclass
class FoundServer:
    """A server start met while evaluating the script: its detected framework, argv and environment, where
    it runs, its redirections and the condition it depends on."""

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
    # Where its words and environment values are made from the script's arguments ($1, "$@", through
    # variables) when argtrace was given none: what the server gets there is not what the user launches
    from_missing_arguments: frozenset[str] = frozenset()
    # Where its words are made in part from variables not set here, with their names (ServerCommand's)
    from_unset_variables: tuple[FromUnset, ...] = ()
    # The files the script wrote from here-documents before it (ServerCommand's)
    script_files: tuple[tuple[str, str | None], ...] = ()


@dataclass
class Event:
    """Something the rules turn into a finding (kept neutral so evaluate.py does not format messages)."""

    kind: str
    at: str | None
    data: dict[str, Any] = field(default_factory=dict)


class _ReadOnce(Generic[_T]):
    """``functools.cached_property`` without its lock: Python 3.11's takes an ``RLock`` at each first read,
    and the analysis reads every command's ``texts`` (a 1 MB script's 6,400 commands: some 70 M
    instructions, issue 18). The value goes into the instance's ``__dict__``, which later reads find first."""

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> _T:
        if obj is None:
            return self  # type: ignore[return-value]
        value = obj.__dict__[self.name] = self.func(obj)
        return value


@dataclass
class PredictedCommand:
    """A simple command the evaluation predicts the script runs: where, its argv (``None`` for unknown
    words) and the condition it depends on."""

    at: str
    argv: list[str | None]
    conditional: str | None
    # its unquoted expansions that expanded to no word (a container start carries them: transport)
    vanished: tuple[Vanished, ...] = ()
    # the PATH it is looked up on: its NAME=value prefix, else the exported PATH (None: not set or not
    # known statically; the caller then uses its own, as frameworks/installed.py does for a server)
    path: str | None = None
    # the directory it runs in, when the script changed directory before it (``moved``); None with
    # ``moved``: a `cd` to a directory not known statically
    moved: bool = False
    cwd: str | None = None
    # started with `&`: the script goes on while it runs (a container's server, MM013)
    background: bool = False
    # a here-document/here-string on its stdin and the file its stdout goes to (layers/transport/handoff.py)
    io: CommandIO | None = None
    # the environment a `docker compose` command gets (None: another command): compose fills its file's
    # ${NAME} from it (layers/transport/handoff.py); a value None is set but not known statically
    env: dict[str, str | None] | None = None
    # its words known but for some quoted expansions: (index, the text with a HOLE for each, the holes)
    holed: tuple[tuple[int, str, tuple[tuple[str | None, str], ...]], ...] = ()

    @_ReadOnce
    def texts(self) -> list[str | None]:
        """The argv as real strings (:func:`to_str`), made once: the analysis reads every command's words in
        several passes, and converting them each time was 5% of a 1 MB script's check (issue 18)."""
        argv = self.argv
        if None not in argv:
            joined = "".join(argv)  # type: ignore[arg-type]
            if joined.isascii() and not ("\x01" in joined or "\x02" in joined or "\x03" in joined):
                return list(argv)  # what to_str gives each word: ASCII without placeholders stays as it is
        return [to_str(w) if w is not None else None for w in argv]


# -------------------------------------------------------------------------- control flow


class ArithError(Exception):
    """Arithmetic that is unknown statically or invalid (arith.py raises it); here so that a module catching
    it does not load the arithmetic evaluator."""


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


@dataclass(slots=True)
class _Chunk:
    """A piece of a word being expanded: its text (``None``: unknown), whether it is quoted, and whether
    field splitting and globbing apply to it."""

    text: str | None
    quoted: bool
    split: bool  # an unquoted expansion result: subject to IFS splitting and globbing
    reason: str | None = None
    source: str | None = None  # unknown: the expansion as written (`$head_ip`), for a hole (ExpWord.holed)
    # unknown: a variable's value known but for holes of its own (`CMD="... $ip"`, then "$CMD"): that text
    holed: str | None = None
    holes: tuple[tuple[str | None, str], ...] = ()


_BREAK = _Chunk("", True, False, "BREAK")

# the text utilities layers/shell/textfilters.py evaluates (the names of its table, which
# tests/test_startup29.py keeps equal): named here so that testing a command's name imports nothing
TEXT_FILTERS = frozenset({"wc", "tr", "cut", "head", "tail", "paste"})
# commands whose output ``Expander._emulate`` computes from their expanded words (the same as ``_capture``
# would; the texts are layers/shell/outputs.py's, imported at the first such command)
_EMULATED = frozenset(
    {"echo", "printf", "pwd", "dirname", "basename", "readlink", "realpath", "seq", "getopt"}
)
_QUIET_BUILTINS = {"echo", "printf", ":", "true"}

# words whose expansion has no side effect: no $(...), backquotes, ${x:=...}, $((...)), $!, printf -v
# (`-v VAR` or `-vVAR`)
_NO_SIDE_EFFECTS = re.compile(r"(?![\s\S]*(?:\$\(|`|:?=|\$!|^-v))[\s\S]*")

# a word with nothing for bash to expand, quote-remove, split or glob
_PLAIN = re.compile(r"[^\s$`'\"\\~{*?\[\x01\x02\x03]*")

# a word that is plain but for brackets (`[`, `]`, `a]`): plain too unless it is a glob (see _has_glob)
_PLAIN_BRACKETS = re.compile(r"[^\s$`'\"\\~{*?\x01\x02\x03<>()]*")


def _has_glob(text: str) -> bool:
    """Whether a word has a glob character (``*``, ``?``, a ``[`` closed later); here, not in patterns.py
    (the glob translation), because every word's expansion asks it (a plain check reads no pattern)."""
    if "*" in text or "?" in text:
        return True
    i = text.find("[")
    return i >= 0 and text.find("]", i + 1) > 0


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


class Core:
    """The evaluator's state (set up from the script, its arguments, environment and directory), its
    events and its step budget."""

    def __init__(
        self,
        source: Source,
        args: Sequence[str],
        env: Mapping[str, str],
        *,
        arg0: str,
        cwd: str | None,
        parse: Callable[[str], Any],
        unknown_env: Mapping[str, str] | None = None,
    ) -> None:
        """``unknown_env``: variables the process starts with whose values are not known here (a container's
        ``valueFrom`` entries, the image's ``ENV``), by name with the reason: set, not unset."""
        self.main = source
        self.src = source
        self.parse = parse
        self.events: list[Event] = []
        self._event_keys: set[tuple[str, str | None, str]] = set()
        self.servers: list[FoundServer] = []
        self.commands: list[PredictedCommand] = []
        # the commands with a here-document on stdin, and how many of self.commands were looked at for them
        # (written_files: what a server start and a `source` read; each command is looked at once)
        self.heredoc_commands: list[PredictedCommand] = []
        self.heredoc_scanned = 0
        # a variable assigned a text known but for some expansions (`CMD="python3 ... --host $ip"`): id of
        # its Var -> (that Var, the text with a HOLE for each, the holes). Valid while the name holds that
        # very Var: every change of a variable makes a new one
        self.holed_values: dict[int, tuple[Any, str, tuple[tuple[str | None, str], ...]]] = {}
        self.last_holed: tuple[str, tuple[tuple[str | None, str], ...]] | None = None  # expand_value's
        self._written: tuple[int, tuple[tuple[str, str | None], ...]] = (0, ())
        self.steps = 0
        self.max_steps = MAX_STEPS + len(source.text) // STEP_BYTES
        self.expanded_bytes = 0
        self.max_expanded_bytes = MAX_EXPANDED_BYTES + EXPANDED_PER_BYTE * len(source.text)
        self.depth = 0
        self.spec: list[str] = []  # reasons of the unknown branches we are inside
        self.source_stack: list[str] = []
        self.redirect_stack: list[list[tuple[str | None, str, str | None, str]]] = []
        self.stdin_streams: list[StdinStream] = []  # compounds' here-documents `read` takes lines of
        self.pipeline_depth = 0
        # what the pipeline part being run reads on stdin: (text or None when not known, its first script
        # line when a here-document's, the producer as written); None outside a pipeline's later parts
        self.pipe_in: tuple[str | None, int | None, str] | None = None
        self.pid_kept = False
        self.waited = False
        self.bg_servers: list[int] = []
        self.last_status: int | None = 0
        # the status of the last command substitution expanded (None: none since it was reset), which an
        # assignment-only command returns
        self.cmdsub_status: tuple[int | None] | None = None
        self.arg0 = from_str(arg0)
        self.log_writes: list[tuple[str, str, str]] = []  # (file, op, at)
        self.bash_source: list[str] = [from_str(source.label)]
        # the functions and `source`s being run, innermost last, each with whether it is a function: bash's
        # FUNCNAME, which exists only while a function runs (a `source` inside one is listed as "source");
        # a script bash reads from a file has "main" at its bottom, a `-c` string none
        self.call_stack: list[tuple[str, bool]] = []
        self.funcname_main = source.path is not None
        # the source and offset of the last command `set -e` exited at (a subshell it ended is not reported
        # again: ``Control._errexit``)
        self.errexit_at: tuple[Source, int] | None = None
        self.assignment_refused = False  # an assignment of the current command met a readonly variable
        self.captures: list[dict[str, Any]] = []  # command substitutions being evaluated (innermost last)
        self.exec_fds: dict[str, tuple[str | None, str, str | None, str]] = {}  # `exec > log` so far
        self.loops: list[_Loop] = []  # the loops being evaluated, innermost last
        self.loop_floor = 0  # loops below this index are outside the subshell being evaluated
        self.aliases: dict[str, AliasDef] = {}
        # One frame per function call or `source` being run, innermost last: the statuses of the `return`s
        # taken on only some forks of an unknown condition (``partial``), and the depth of ``spec`` when the
        # frame began. The code after such a fork runs only on the forks that did not return, so it is
        # conditional, and the frame's status is known only if every way out gives the same one.
        self.return_frames: list[dict[str, Any]] = []
        self.read_names: set[str] = set()  # every variable name a `$NAME` / `${NAME...}` expanded
        self.plain_read_names: set[str] = set()  # those expanded without a default (`${NAME:-x}`)
        # the variables said to be the caller's (`${NAME:?}`, or unset under `set -u`): said once each
        self.callers_names: set[str] = set()
        # the names read before the first `source` of a file that is not on this machine or not known
        # statically (None: there was none), and those files: what the script reads unset after it may come
        # from that file where the script runs (analysis.py reads it again with those names unknown)
        self.read_before_unread_source: set[str] | None = None
        # (the command as written, what it is): `source` of a file argtrace cannot read, an `eval` or `export`
        # of words not known statically; any variable read after it and never set may be its
        self.unread_sources: list[tuple[str, str]] = []
        self.read_after_unread_source: list[str] = []  # set by analysis.py when it read them as unknown
        # the paths a file test (`[ -f P ]`, `[[ -e P ]]`) asked of that are not on this machine, in the
        # order asked: the answer is the machine's where the script runs (control.py reads a branch by them)
        self.untested_files: list[str] = []
        # the paths a test of the branch being read says exist where the script runs (`if [[ -f .env ]]; then
        # source .env`): not on this machine says nothing of there, and the branch runs only where they are
        self.present_by_test: set[str] = set()
        # state
        scope: dict[str, Var] = {}
        for k, v in env.items():
            scope[from_str(k)] = new_var(value=from_str(v), exported=True, at=None, expansion="environment")
        for k, why in (unknown_env or {}).items():
            if from_str(k) not in scope:
                scope[from_str(k)] = Var(exported=True, known=False, reason=why, expansion="environment")
        try:
            lvl = int(env.get("SHLVL", "0").strip() or "0") + 1
        except ValueError:
            lvl = 1
        scope["SHLVL"] = Var(value=str(max(lvl, 0)), exported=True, expansion="bash")
        self.cwd: str | None = cwd
        # where the script was started: a command whose cwd differs ran after a `cd` (the transport layer
        # opens `docker run --env-file REL` there, as docker does)
        self.start_cwd: str | None = cwd
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
        # argtrace was given no arguments for the script: values made from them rest on that (verdicts.py)
        self.no_script_arguments = not args
        self.funcs: dict[str, tuple[Any, Source]] = {}
        self.options: set[str] = set()

    # ---------------------------------------------------------------------- helpers

    def bash_shebang(self) -> bool:
        """The script's first line names bash (`#!/bin/bash`, `#!/usr/bin/env bash`): where bash's own rules
        differ from `sh`'s (aliases, `return` outside a function), they are followed only then."""
        text = self.main.text
        end = text.find("\n")  # the first line only: not a copy of a large script's rest
        first = text if end < 0 else text[:end]
        return first.startswith("#!") and "bash" in first

    def brace_events(self) -> list[Event]:
        """The brace-expansion events (computed once: every server looks at them)."""
        cached: list[Event] | None = getattr(self, "_brace_events", None)
        if cached is None:
            cached = [e for e in self.events if e.kind == "brace"]
            self._brace_events = cached
        return cached

    def written_files(self) -> tuple[tuple[str, str | None], ...]:
        """(path, text) of each file the script wrote from a here-document so far (layers/shell/written.py):
        what a server start's ``--config`` and a ``source`` of such a file read. Each predicted command is
        looked at once, and the files are worked out again only after a new here-document command."""
        self.heredoc_commands.extend(c for c in self.commands[self.heredoc_scanned :] if c.io is not None)
        self.heredoc_scanned = len(self.commands)
        if not self.heredoc_commands:
            return ()
        if self._written[0] != len(self.heredoc_commands):
            from argtrace.layers.shell.written import heredoc_files  # only a script that writes one

            self._written = (len(self.heredoc_commands), heredoc_files(self.heredoc_commands))
        return self._written[1]

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

    def expanded(self, size: int, at: str) -> bool:
        """Count ``size`` bytes of one word's expansion at ``at``; False when the word is too long to be
        known. Raises ``_Budget`` when all expansions together pass their budget."""
        self.expanded_bytes += size
        if self.expanded_bytes > self.max_expanded_bytes:
            self.budget_at = at
            raise _Budget()
        return size <= MAX_WORD_BYTES

    def node_text(self, node: Any) -> str:
        return self.src.text[node.start_byte : node.end_byte]

    cur_at: str = ""

    # ---------------------------------------------------------------------- state of the tree walk (control)

    # Set by ``run`` when the script ends at an ``exit`` (or a top-level ``return``): (where, status).
    ended_by: tuple[str | None, int | None] | None = None

    cond_depth = 0  # > 0 while running an if/while condition, the left side of && / ||, or `! cmd`

    bg_mark = False
    direct: tuple[int, int] | None = None  # the simple command bash would exec without forking (SHLVL - 1)
    direct_exec = False
    exec_clear_env = False  # ``exec -c CMD``: CMD gets an empty environment

    # ---------------------------------------------------------------------- state of commands and [[ ]]

    range_depth = 0

    _remainder: tuple[int, int] | None = None

    _cw: list[L.WordTok]
    _ci: int

    # ------------------------------------------------------------------ hooks
    # Calls from an earlier part of the evaluator to a later one, declared here so that the modules import
    # only down the chain (core -> params -> expand -> control -> conditions -> commands -> builtins), as
    # mvdan/sh's expansion gets the runner's command substitution as a handler. Each is provided by the part
    # named in its docstring.

    def run_block(self, children: Iterable[Any]) -> int | None:
        """Run a list of commands (``control``): the body of ``$(...)``."""
        raise NotImplementedError

    def in_subshell(self, fn: Callable[[], int | None]) -> int | None:
        """Run ``fn`` on a copy of the state (``control``)."""
        raise NotImplementedError

    def run_simple(self, start: int, end: int, node: Any, assigning: bool = True) -> int | None:
        """Run the simple command between two offsets (``commands``); ``assigning``: tree-sitter read it as
        assignments or a declaration (only such a command may take the plain-assignment path)."""
        raise NotImplementedError


def _prepare(text: str) -> str:
    """Substitute the placeholders tree-sitter needs (``lexer``): CR, and a blank after a backslash at the end
    of a line or before a `#` (bash reads the escaped blank as a word, ` ` or ` #x`, and a comment only after
    an unescaped blank; tree-sitter took the escaped blank for a separator and lost the word)."""
    if "\r" in text:
        text = text.replace("\r", L.CR)
    if "\\ " in text or "\\\t" in text:
        text = re.sub(
            r"(?<!\\)((?:\\\\)*)\\([ \t])(?=[ \t]*(?:\n|$|#))",
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
