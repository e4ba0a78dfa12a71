"""The tests the interpreter evaluates (code35: loaded on a script's first one): ``[[ ]]`` with its
operators, ``=~`` and BASH_REMATCH, and ``test``/``[``. Methods of
:class:`~argtrace.layers.shell.conditions.Conditions` (see ``deferred.py``).
"""

from __future__ import annotations

import re

from argtrace.layers.shell import hostfs
from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.conditions import (
    _TEST_BINARY,
    _TEST_UNARY,
    TestSyntaxError,
    _test_integers,
)
from argtrace.layers.shell.core import ArithError, to_str
from argtrace.layers.shell.ere import EreMatch, ere_from_word, ere_match

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.layers.shell.conditions import Conditions

_REMATCH_UNKNOWN = EreMatch(
    None, None, "set by a `=~` test whether bash evaluated is not known statically (the other operand is not)"
)


def run_cond(self: Conditions, words: list[L.WordTok], at: str) -> int | None:
    toks = [w for w in words]
    if toks and toks[0].raw == "[[":
        toks = toks[1:]
    if toks and toks[-1].raw == "]]":
        toks = toks[:-1]
    self._cw = toks
    self._ci = 0
    self._rematch = None
    try:
        r = self._c_or()
    except (IndexError, ValueError):
        r = None
        if self._rematch is not None:
            self._rematch = EreMatch(None, None, "set by a `[[ ]]` test argtrace could not read")
    if self._rematch is not None:
        self._set_rematch(self._rematch, at)
    if r is None:
        return None
    return 0 if r else 1


def _set_rematch(self: Conditions, found: EreMatch, at: str) -> None:
    """BASH_REMATCH after a ``=~`` bash evaluated: the match's captures, an empty array for no match."""
    if found.captures is None:
        self.set_array(
            "BASH_REMATCH",
            None,
            at=at,
            expansion="[[ =~ ]]",
            reason=found.reason or _REMATCH_UNKNOWN.reason,
        )
    else:
        self.set_array("BASH_REMATCH", [(None, c) for c in found.captures], at=at, expansion="[[ =~ ]]")


def _short_circuit(self: Conditions, before: EreMatch | None, left: bool | None, skips_on: bool) -> None:
    """After the right operand of ``&&``/``||``: bash evaluated it only when ``left`` is not ``skips_on``,
    so a ``=~`` in it set BASH_REMATCH only then (unknown when ``left`` is)."""
    if self._rematch is before:
        return
    if left is skips_on:
        self._rematch = before
    elif left is None:
        self._rematch = _REMATCH_UNKNOWN


def _c_peek(self: Conditions) -> str | None:
    return self._cw[self._ci].raw if self._ci < len(self._cw) else None


def _c_or(self: Conditions) -> bool | None:
    left = self._c_and()
    while self._c_peek() == "||":
        self._ci += 1
        before = self._rematch
        right = self._c_and()
        self._short_circuit(before, left, skips_on=True)
        left = True if left is True or right is True else (None if left is None or right is None else False)
    return left


def _c_and(self: Conditions) -> bool | None:
    left = self._c_not()
    while self._c_peek() == "&&":
        self._ci += 1
        before = self._rematch
        right = self._c_not()
        self._short_circuit(before, left, skips_on=False)
        left = False if left is False or right is False else (None if left is None or right is None else True)
    return left


def _c_not(self: Conditions) -> bool | None:
    if self._c_peek() == "!":
        self._ci += 1
        v = self._c_not()
        return None if v is None else not v
    return self._c_primary()


def _c_primary(self: Conditions) -> bool | None:
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
            from argtrace.layers.shell.glob_match import glob_fullmatch  # (code35: at a first `==`)

            m = glob_fullmatch(pat, left)  # no backtracking; None past a bound of work
            if m is None:
                return None
            return m if nxt != "!=" else not m
        if nxt == "=~":
            # the regex is the rest up to && / || / )
            j = self._ci - 1
            raw_parts = [rtok.raw]
            while self._ci < len(self._cw) and self._cw[self._ci].raw not in ("&&", "||"):
                raw_parts.append(self._cw[self._ci].raw)
                self._ci += 1
            del j
            raw = "".join(raw_parts)
            ere = ere_from_word(raw)
            if ere is not None:
                found = ere_match(left, ere, quoted=False)
            else:
                rx = self.expand_single(L.WordTok(raw, rtok.start))
                found = ere_match(left, rx, quoted=any(q in raw for q in "\"'\\"))
            self._rematch = found
            return found.matched
        right = self.expand_single(rtok)
        return self._binary(nxt, left, right)
    self._ci += 1
    val = self.expand_single(w)
    return None if val is None else val != ""


def _unary(self: Conditions, op: str, v: str | None) -> bool | None:
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
            self.untested_files.append(path)
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


def _binary(self: Conditions, op: str, a: str | None, b: str | None) -> bool | None:
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
        return {"-eq": x == y, "-ne": x != y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y}[op]
    return None


def test_argv(self: Conditions, args: list[str | None]) -> bool | None:
    """POSIX test(1) on expanded words."""
    n = len(args)
    if n == 0:
        return False
    if n == 1:
        return None if args[0] is None else args[0] != ""
    # bash's test.c (posixtest): two and three arguments are read by their count, POSIX's rules; words
    # that fit none of the forms are its syntax error (TestSyntaxError: status 2)
    if n == 2:
        if args[0] is None:
            return None
        if args[0] == "!":
            r = self.test_argv(args[1:])
            return None if r is None else not r
        if args[0] in _TEST_UNARY:
            return self._unary(args[0], args[1])
        raise TestSyntaxError(f"{args[0]}: unary operator expected")
    if n == 3:
        if args[1] is None:
            return None
        if args[1] in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
            return _test_integers(args[1] or "", args[0], args[2])
        if args[1] in ("=", "==", "!=", "<", ">"):
            return self._binary(args[1] or "", args[0], args[2])
        if args[1] in ("-a", "-o"):
            x = self.test_argv(args[:1])
            y = self.test_argv(args[2:])
            if args[1] == "-a":
                return False if x is False or y is False else (None if x is None or y is None else True)
            return True if x is True or y is True else (None if x is None or y is None else False)
        if args[1] in _TEST_BINARY:
            return self._binary(args[1], args[0], args[2])
        if args[0] is None:
            return None
        if args[0] == "!":
            r = self.test_argv(args[1:])
            return None if r is None else not r
        if args[0] == "(" and args[2] == ")":
            return self.test_argv(args[1:2])
        raise TestSyntaxError(f"{args[1]}: binary operator expected")
    # -o lowest, then -a
    for op in ("-o", "-a"):
        for k in range(n - 1, 0, -1):
            if args[k] == op:
                x = self.test_argv(args[:k])
                y = self.test_argv(args[k + 1 :])
                if op == "-a":
                    return False if x is False or y is False else (None if x is None or y is None else True)
                return True if x is True or y is True else (None if x is None or y is None else False)
    if args[0] == "!":
        r = self.test_argv(args[1:])
        return None if r is None else not r
    if args[0] == "(" and args[-1] == ")":
        return self.test_argv(args[1:-1])
    return None
