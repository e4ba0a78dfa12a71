"""Bash arithmetic (``$((...))``, ``((...))``, ``let``) on known values: 64-bit signed, C precedence."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from argtrace.layers.shell.arith_literals import _wrap
from argtrace.layers.shell.arith_literals import literal_value as literal_value  # (its old home)
from argtrace.layers.shell.core import ArithError


@functools.cache
def _token() -> re.Pattern[str]:
    # compiled for the first arithmetic expression: most launch scripts have none (~0.3 ms, issue 18)
    return re.compile(
        r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)|"
        r"(?P<op>\*\*=|<<=|>>=|\+\+|--|\*\*|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[-+*/%<>=!~&|^?:(),]))"
    )


def parse_int(text: str) -> int:
    text = text.strip()
    neg = False
    if text[:1] in "+-":
        neg = text[0] == "-"
        text = text[1:].strip()
    if "#" in text:
        base_s, digits = text.split("#", 1)
        base = int(base_s)
        if not 2 <= base <= 64:
            raise ArithError(f"invalid base {base}")
        alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_"
        if base <= 36:
            digits = digits.lower()
        v = 0
        for ch in digits:
            d = alphabet.find(ch)
            if d < 0 or d >= base:
                raise ArithError(f"value too great for base: {text}")
            v = v * base + d
    elif text.lower().startswith("0x"):
        v = int(text, 16)
    elif text.startswith("0") and len(text) > 1:
        try:
            v = int(text, 8)
        except ValueError:
            raise ArithError(f"value too great for base: {text}") from None
    else:
        v = int(text)
    return _wrap(-v if neg else v)


_BINARY = {
    ",": 1,
    "||": 4,
    "&&": 5,
    "|": 6,
    "^": 7,
    "&": 8,
    "==": 9,
    "!=": 9,
    "<": 10,
    "<=": 10,
    ">": 10,
    ">=": 10,
    "<<": 11,
    ">>": 11,
    "+": 12,
    "-": 12,
    "*": 13,
    "/": 13,
    "%": 13,
    "**": 14,
}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "**="}


class Evaluator:
    """``lookup(name)`` returns a variable's text (None if unset; raises ArithError when unknown);
    ``assign(name, value)`` stores a result."""

    def __init__(self, lookup: Callable[[str], str | None], assign: Callable[[str, int], None]) -> None:
        self.lookup = lookup
        self.assign = assign
        self.depth = 0

    def evaluate(self, expr: str) -> int:
        self.toks = self._tokenize(expr)
        self.pos = 0
        if not self.toks:
            return 0
        v = self._expr(0)
        if self.pos != len(self.toks):
            raise ArithError(f"syntax error in expression (error token is {self.toks[self.pos][1]!r})")
        return v

    def _tokenize(self, expr: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        i = 0
        expr = expr.rstrip()
        token = _token()
        while i < len(expr):
            m = token.match(expr, i)
            if not m or m.end() == i:
                if expr[i:].strip() == "":
                    break
                raise ArithError(f"syntax error: operand expected (error token is {expr[i:]!r})")
            kind = m.lastgroup or "op"
            out.append((kind, m.group(kind)))
            i = m.end()
        return out

    def _peek(self) -> tuple[str, str] | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def _var(self, name: str) -> int:
        text = self.lookup(name)
        if text is None or text.strip() == "":
            return 0
        self.depth += 1
        if self.depth > 64:
            raise ArithError("expression recursion level exceeded")
        try:
            text = text.strip()
            if re.fullmatch(r"[+-]?\s*(0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+)", text):
                return parse_int(text)
            sub = Evaluator(self.lookup, self.assign)
            sub.depth = self.depth
            return sub.evaluate(text)
        finally:
            self.depth -= 1

    def _expr(self, min_prec: int) -> int:
        left, lname = self._unary()
        while True:
            t = self._peek()
            if t is None or t[0] != "op":
                break
            op = t[1]
            if op in _ASSIGN and min_prec <= 2:
                if lname is None:
                    raise ArithError("attempted assignment to non-variable")
                self.pos += 1
                right = self._expr(2)
                if op == "=":
                    val = right
                else:
                    val = self._apply(op[:-1], left, right)
                val = _wrap(val)
                self.assign(lname, val)
                left, lname = val, None
                continue
            if op == "?" and min_prec <= 3:
                self.pos += 1
                a = self._expr(1)
                t2 = self._peek()
                if t2 is None or t2[1] != ":":
                    raise ArithError("`:' expected for conditional expression")
                self.pos += 1
                b = self._expr(3)
                left = a if left else b
                lname = None
                continue
            prec = _BINARY.get(op)
            if prec is None or prec < min_prec:
                break
            self.pos += 1
            if op == "&&" and not left:
                self._expr(prec + 1)  # still parse
                left = 0
            elif op == "||" and left:
                self._expr(prec + 1)
                left = 1
            else:
                right = self._expr(prec if op == "**" else prec + 1)
                left = self._apply(op, left, right) if op != "," else right
            lname = None
        return left

    @staticmethod
    def _apply(op: str, a: int, b: int) -> int:
        if op == "+":
            return _wrap(a + b)
        if op == "-":
            return _wrap(a - b)
        if op == "*":
            return _wrap(a * b)
        if op in ("/", "%"):
            if b == 0:
                raise ArithError("division by 0")
            q = abs(a) // abs(b)
            if (a < 0) != (b < 0):
                q = -q
            return _wrap(q) if op == "/" else _wrap(a - q * b)
        if op == "**":
            if b < 0:
                raise ArithError("exponent less than 0")
            return _wrap(pow(a, b, 1 << 64))
        if op == "<<":
            return _wrap(a << (b & 63))
        if op == ">>":
            return a >> (b & 63)
        if op == "&":
            return a & b
        if op == "|":
            return a | b
        if op == "^":
            return a ^ b
        if op == "&&":
            return int(bool(a) and bool(b))
        if op == "||":
            return int(bool(a) or bool(b))
        if op == "==":
            return int(a == b)
        if op == "!=":
            return int(a != b)
        if op == "<":
            return int(a < b)
        if op == "<=":
            return int(a <= b)
        if op == ">":
            return int(a > b)
        if op == ">=":
            return int(a >= b)
        raise ArithError(f"unknown operator {op}")

    def _unary(self) -> tuple[int, str | None]:
        t = self._peek()
        if t is None:
            raise ArithError("syntax error: operand expected")
        kind, val = t
        if kind == "num":
            self.pos += 1
            return parse_int(val), None
        if kind == "name":
            self.pos += 1
            t2 = self._peek()
            if t2 is not None and t2[1] in ("++", "--"):
                self.pos += 1
                cur = self._var(val)
                self.assign(val, _wrap(cur + (1 if t2[1] == "++" else -1)))
                return cur, None
            return self._var(val), val
        if val == "(":
            self.pos += 1
            v = self._expr(0)
            t2 = self._peek()
            if t2 is None or t2[1] != ")":
                raise ArithError("missing `)'")
            self.pos += 1
            return v, None
        if val in ("++", "--"):
            self.pos += 1
            t2 = self._peek()
            if t2 is None or t2[0] != "name":
                # "--5" is two unary minuses
                v, _ = self._unary()
                return v, None
            self.pos += 1
            nv = _wrap(self._var(t2[1]) + (1 if val == "++" else -1))
            self.assign(t2[1], nv)
            return nv, None
        if val in ("-", "+", "!", "~"):
            self.pos += 1
            v = self._expr(14)  # binds tighter than ** on the left? bash: -2**2 = 4
            if val == "-":
                return _wrap(-v), None
            if val == "+":
                return v, None
            if val == "!":
                return int(not v), None
            return ~v, None
        raise ArithError(f"syntax error: operand expected (error token is {val!r})")
