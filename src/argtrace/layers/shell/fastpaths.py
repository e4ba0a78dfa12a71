"""Simple commands a big script is full of, run without the general path's lexer and word loop
(``commands.Commands._run_simple`` tries them first; issue 18): plain assignments alone or after ``export``,
a lone ``NAME=WORD`` of simple expansions, a ``[ ... ]`` test of plain words and quoted names. Each does
what the general path does with such a command (``tests/shell/test_large_scripts25.py`` and ``26.py``
compare the two on the evaluator's whole state).
"""

from __future__ import annotations

import re

from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.arith_literals import literal_value
from argtrace.layers.shell.core import ExpWord, PredictedCommand, Vanished, to_str
from argtrace.layers.shell.servers import ServerRecords

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# a simple command of assignments whose values are plain (core._PLAIN, and no operator or comment), alone or
# after `export` (group 1): `A=b`, `export A=b C=`; blanks may end it (tree-sitter leaves them out)
_PLAIN_VALUE = r"[^\s$`'\"\\~{*?\[\x01\x02\x03;&|<>()#]*"
_PLAIN_ASSIGN = rf"[A-Za-z_][A-Za-z0-9_]*={_PLAIN_VALUE}"
PLAIN_DECL = re.compile(rf"(export[ \t]+)?{_PLAIN_ASSIGN}(?:[ \t]+{_PLAIN_ASSIGN})*[ \t]*")
_BLANK_RUN = re.compile(r"[^ \t]+")
# a `[ ... ]` test whose words are plain (core._PLAIN without brackets, operators or comments) or "$NAME" and
# "${NAME}" (W.QUOTED_NAME), separated by blanks: `[ -n "${X}" ]`, `[ "$A" = yes ]`
_TEST_WORD = (
    r'(?:[^\s$`\'"\\~{*?\[\]\x01\x02\x03;&|<>()#]+'
    r'|"\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)")'
)
PLAIN_TEST = re.compile(rf"\[(?:[ \t]+{_TEST_WORD})*[ \t]+\][ \t]*")
# one assignment whose value is one word of plain characters, double-quoted text with `$NAME`/`${NAME}`/
# `${NAME:+x}`-like expansions, and `$((...))` of no quote, escape, parenthesis or comment (group 1: the word;
# blanks may end it): `P=$((30000 + 7))`, `O="--tp 1${P:+x}"`, `U=http://$HOST:${PORT}/v1`
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_EXPANSION = rf"\$(?:{_NAME}|\{{{_NAME}(?::?[-+=?][^\"'\\`${{}}\n]*)?\}})"
ONE_ASSIGN = re.compile(
    rf"({_NAME}=(?:[^\s$`'\"\\;&|<>()#\x01\x02\x03]|{_EXPANSION}"
    rf'|"(?:[^"\\`$\n\x01\x02\x03]|{_EXPANSION})*"'
    rf"|\$\(\((?:[^()'\"\\`#$\n;&|<>]|\${_NAME})*\)\))+)[ \t]*"
)

# the pieces ``_direct_value`` reads: plain text (group 1; outside quotes none of bash's specials, `~`, glob
# or brace characters), a double quote (2), `$NAME` (3), `${NAME}` (4), `${NAME:-WORD}`-like (4, the operator
# 5, the word 6: plain characters, no blank), `$((...))` of decimal literals (7, outside quotes;
# arith.literal_value's expressions)
_PIECE_END = rf"|(\")|\$(?:({_NAME})|\{{({_NAME})(?:(:?[-+])([^\s\"'\\`${{}}\[\]~*?!\x01\x02\x03]*))?\}}"
_OUTSIDE = re.compile(
    r"([^\s$`'\"\\;&|<>()#~{}*?\[\]!\x01\x02\x03]+)"
    + _PIECE_END
    + r"|\(\(([ \t]*(?:0|[1-9][0-9]{0,17})[ \t]*(?:[-+*][ \t]*(?:0|[1-9][0-9]{0,17})[ \t]*)?)\)\))"
)
_IN_QUOTES = re.compile(r"([^\"\\`$\n~{}*?\[\]!\x01\x02\x03]+)" + _PIECE_END + ")")


class FastPaths(ServerRecords):
    def _run_plain_decl(self, start: int, end: int, node: Any, export: bool) -> int | None:
        """``A=b C=d`` or ``export A=b``, every value plain (``PLAIN_DECL``): what the general path
        (``commands``: the lexer, ``dispatch`` to ``b_export`` and ``_declare``, ``do_assignment``,
        ``expand_value``) does with such a command, without the steps no such command needs (issue 18: a 1 MB
        script's 10,000 of them). The words are the blank-separated runs of the span (no quote, expansion,
        escape, operator or comment is in it); ``tests/shell/test_large_scripts25.py`` compares the two
        paths."""
        text = self.src.text
        at = self.src.at(start)
        self.cur_at = at
        self.direct_exec = self.direct == (start, end) and self.src is not None
        if self.direct_exec:
            self.direct = None
        words = list(_BLANK_RUN.finditer(text, start, end))
        self.assignment_refused = False
        if export:
            del words[0]  # `export` itself
            # what dispatch records for the command (`export` then one unknown word per assignment)
            self.commands.append(
                PredictedCommand(
                    at,
                    ["export", *[None] * len(words)],
                    self.spec[-1] if self.spec else None,
                    (),
                    self._command_path({}),
                    self.cwd != self.start_cwd,
                    self.cwd,
                    self.bg_mark,
                )
            )
        for m in words:
            raw = m.group()
            # to_str(raw) (no placeholder is in a plain word): itself when ASCII, without the call (issue 18)
            shown = raw if raw.isascii() else to_str(raw)
            eq = raw.find("=")
            name = raw[:eq]  # ASCII: from_str gives it back
            ws = m.start()
            wat = at if ws == start else self.src.at(ws)  # a lone `A=b`: where the command is
            self.cur_at = wat
            # a plain value is its own expansion (expand_value's first test), never `(...)` nor indexed
            if not export:
                self.set_var(name, raw[eq + 1 :], at=wat, expansion=shown, reason=None)
                continue
            self.set_var(name, raw[eq + 1 :], at=wat, expansion=shown, reason=None, exported=True)
            # _declare's `export` of what it assigned (readonly, set_var refused it: exported all the same)
            scope = self.scopes[0] if len(self.scopes) == 1 else self._scope_of(name)  # its only scope
            var = scope.get(name)
            if var is not None and not var.exported:
                scope[name] = var.with_(exported=True)
        # `R=2` and `export R=2` on a readonly R: bash says so and the command fails
        return 1 if self.assignment_refused else 0

    def _run_one_assignment(self, start: int, end: int, raw: str) -> int | None:
        """``NAME=WORD`` alone (``ONE_ASSIGN``): what the general path (``commands``) does with it (the
        lexer's one word is ``raw``, an assignment; no command word, no redirection), without the lexer
        (issue 18: a 1 MB script's 6,000 ``$((...))`` and quoted values).
        ``tests/shell/test_large_scripts26.py`` compares the two paths."""
        at = self.src.at(start)
        self.cur_at = at
        self.direct_exec = self.direct == (start, end) and self.src is not None
        if self.direct_exec:
            self.direct = None
        # the status is the last command substitution's (see the assignments-only case in ``commands``)
        self.cmdsub_status = None
        self.assignment_refused = False
        eq = raw.find("=")
        value = self._direct_value(raw, eq + 1)
        if value is None:
            self.do_assignment(L.WordTok(raw, start, True))
        else:
            if "$((" in raw:
                self.cur_at = self.src.at(start + eq + 1)  # expand_parts's, at an arithmetic expansion
            # do_assignment's set_var of a name without index or `+=` (ONE_ASSIGN has neither); to_str(raw)
            # (ONE_ASSIGN takes no placeholder) without the call when ASCII
            shown = raw if raw.isascii() else to_str(raw)
            self.set_var(raw[:eq], value, at=at, expansion=shown, reason=None)
        if self.assignment_refused:
            return 1
        return self.cmdsub_status[0] if self.cmdsub_status is not None else 0

    def _direct_value(self, raw: str, i: int) -> str | None:
        """The value of ``raw[i:]``, an assignment's word, when it is made of plain text, double-quoted plain
        text, ``$NAME``, ``${NAME}``, ``${NAME:-WORD}``, ``${NAME:+WORD}`` (and without the colon) of plain
        words, and ``$((...))`` of decimal literals; None for anything else, and when a variable it reads is
        unset with no operator, not known statically or special (``get_param``'s "unknown"), or the value is
        longer than 64 characters (the expansion budget's count): ``do_assignment`` reads it. What
        ``expand_value`` (``parse_word``, ``expand_parts``, ``expand_param``'s scalar read) gives for such a
        word, without their general tests (issue 18: a 1 MB script's 6,000 ``$((30000 + 7))`` and
        ``"--tp 1${P:+x}"``); ``tests/shell/test_large_scripts27.py`` compares the two."""
        out: list[str] = []
        n = len(raw)
        quoted = False
        while i < n:
            m = (_IN_QUOTES if quoted else _OUTSIDE).match(raw, i)
            if m is None:
                return None
            i = m.end()
            k = m.lastindex  # the piece's group (for `${NAME:-WORD}` the word's, 6)
            if k == 1:
                out.append(m.group(1))
                continue
            if k == 2:
                quoted = not quoted
                continue
            if k == 7:
                out.append(str(literal_value(m.group(7))))
                continue
            name = m.group(3) or m.group(4)
            op = m.group(5) if k == 6 else None
            # expand_param's scalar read: the names read (a default of the script's own is no plain read)
            self.read_names.add(name)
            if op is None:
                self.plain_read_names.add(name)
            st, value, _reason = self.get_param(name)
            if st == "unknown" or (st == "unset" and op is None):
                return None  # a reason to give, or set -u's test: the general path (the sets above are sets)
            if op is None:
                out.append(value or "")
                continue
            use_alt = st == "unset" or (op[0] == ":" and value == "")
            if op[-1] == "-":
                out.append(m.group(6) if use_alt else value or "")
            else:
                out.append("" if use_alt else m.group(6))
        if quoted:
            return None
        value = "".join(out)
        return value if len(value) <= 64 else None

    def _run_plain_test(self, start: int, end: int, node: Any) -> int | None:
        """``[ -n "${X}" ]``, every word plain or a quoted name (``PLAIN_TEST``): what the general path
        (``commands``) does with such a command (its words are the blank-separated runs of the span; a plain
        word is its own literal field, a quoted name ``expand_word``'s ``quoted_name_field`` or else goes to
        ``expand_word``; then ``dispatch``),
        without the lexer and the tests no such command needs (issue 18: a 1 MB script's 3,000 ``if``
        tests). ``tests/shell/test_large_scripts26.py`` compares the two paths."""
        src = self.src
        at = src.at(start)
        self.cur_at = at
        self.direct_exec = self.direct == (start, end) and src is not None
        if self.direct_exec:
            self.direct = None
        argv: list[ExpWord] = []
        vanished_all: list[Vanished] = []
        for m in _BLANK_RUN.finditer(src.text, start, end):
            raw = m.group()
            ws = m.start()
            wat = at if ws == start else src.at(ws)  # the `[`: where the command is
            if raw[0] != '"':
                argv.append(ExpWord(raw, wat, "literal", offset=ws))
                continue
            # expand_word's reading of "$NAME"/"${NAME}" (W.QUOTED_NAME, its name from the match's shape)
            known = self.quoted_name_field(raw, raw[3:-2] if raw[2] == "{" else raw[2:-1], wat, ws)
            if known is not None:
                argv.append(known)
                continue
            van: list[tuple[str, str, str | None]] = []
            words = self.expand_word(L.WordTok(raw, ws), vanished=van)
            for vraw, state, name in van:
                via = self._copied_from_unset(name) if state == "empty" and name else None
                vanished_all.append(Vanished(len(argv), vraw, wat, state, name, via))
            argv.extend(words)
        return self.dispatch(argv, {}, [], at, start, node, vanished_all)

    # ------------------------------------------------------------------ hooks (provided by ``commands``)

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
        """Run a command of expanded words (``commands``)."""
        raise NotImplementedError

    def do_assignment(self, a: L.WordTok, local: bool = False, **attrs: Any) -> None:
        """Assign one ``NAME=WORD`` word (``commands``)."""
        raise NotImplementedError

    def _command_path(self, prefix_env: dict[str, tuple[str | None, str, str, str | None]]) -> str | None:
        """The ``PATH`` a command is looked up in (``commands``)."""
        raise NotImplementedError

    def _copied_from_unset(self, name: str) -> str | None:
        """The unset variable an empty one was copied from (``commands``)."""
        raise NotImplementedError
