"""bash's ``printf FORMAT [ARGUMENTS...]``, as bash 5 prints it (builtins/printf.def), for what is exact here.

A conversion is ``%[flags][width][.precision]C``: flags ``-+ #0``, a width or precision of digits or ``*``
(taken from the next argument). The conversions: ``%s``, ``%b`` (the argument's backslash escapes), ``%q``
(the argument quoted so a shell reads it back as it is), ``%c``, the integers ``%d %i %o %u %x %X`` (an
argument in C's forms: decimal, ``0x`` hex, ``0`` octal, ``'c`` for a character's code; a negative one
printed unsigned as a 64-bit value by ``%o %u %x %X``), the floats ``%f %F %e %E %g %G``, and ``%%``. The
format is used again while arguments remain, a missing argument being "" (or 0).

None where bash's answer is not computed here: another conversion (``%a``, ``%(fmt)T``), an argument that
is not a number where a number is wanted (bash prints part of it and fails), ``%q`` of a text with a
control character or a non-ASCII one (bash then picks ``$'...'`` by the locale), ``%#o``/``%#x`` style
alternate forms. A width or precision over ``MAX_WORD_BYTES`` (``%999999999s``, ``%*d`` with a huge
argument), or an output over it, is not computed either: one word beyond it cannot reach a server (execve
refuses one argument over 128 KiB, core.py), and Python would build the text whole first (a 1 GB string for
``%999999999s``; ``MemoryError`` past that)."""

from __future__ import annotations

import re

from argtrace.layers.shell import wordparts as W
from argtrace.layers.shell.core import MAX_WORD_BYTES

_SPEC = re.compile(r"%([-+ #0]*)(\*|[0-9]+)?(?:\.(\*|[0-9]*))?([a-zA-Z%])")
_INTEGER = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")
# what %q backslash-quotes (bash 5.2 printf '%q', compared character by character in
# tests/shell/test_printf_format.py): anywhere in the text, and only at its start
_QUOTE_ANYWHERE = frozenset(" !\"$&'()*,;<>?[\\]^`{|}")
_QUOTE_AT_START = frozenset("#~")
_UNSIGNED = "ouxX"


class _Unknown(Exception):
    pass


def printf_output(fmt: str, args: list[str]) -> str | None:
    """What ``printf fmt args...`` prints; None where that is not computed here (see the module doc)."""
    out: list[str] = []
    queue = list(args)
    taken = 0
    size = 0
    try:
        while True:
            used_before, pieces_before = taken, len(out)
            taken = _one_pass(fmt, queue, taken, out)
            size += sum(map(len, out[pieces_before:]))
            if size > MAX_WORD_BYTES:
                raise _Unknown  # the format used again for each of very many arguments
            if taken >= len(queue) or taken == used_before:
                break
    except _Unknown:
        return None
    return "".join(out)


def _one_pass(fmt: str, args: list[str], taken: int, out: list[str]) -> int:
    i = 0
    n = len(fmt)
    while i < n:
        c = fmt[i]
        if c == "\\" and i + 1 < n:
            j = _escape_end(fmt, i)
            out.append(W.decode_ansi(fmt[i:j]))
            i = j
            continue
        if c != "%":
            out.append(c)
            i += 1
            continue
        m = _SPEC.match(fmt, i)
        if m is None:
            raise _Unknown
        flags, width, precision, conv = m.groups()
        i = m.end()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width, taken = str(_integer(_next(args, taken))), taken + 1
        if precision == "*":
            precision, taken = str(_integer(_next(args, taken))), taken + 1
        arg = _next(args, taken)
        taken += 1
        out.append(_convert(flags, width, precision, conv, arg))
    return taken


def _escape_end(fmt: str, i: int) -> int:
    """The end of the backslash escape at ``i`` (octal ``\\NNN`` and hex ``\\xHH`` take their digits)."""
    nxt = fmt[i + 1]
    if nxt in "01234567":
        j = i + 1
        while j < len(fmt) and j < i + 4 and fmt[j] in "01234567":
            j += 1
        return j
    if nxt == "x":
        j = i + 2
        while j < len(fmt) and j < i + 4 and fmt[j] in "0123456789abcdefABCDEF":
            j += 1
        return j
    return i + 2


def _next(args: list[str], taken: int) -> str:
    return args[taken] if taken < len(args) else ""


def _convert(flags: str, width: str | None, precision: str | None, conv: str, arg: str) -> str:
    spec_width = width or ""
    if width is not None and width.startswith("-"):  # a negative `*` width: left-justified
        flags, spec_width = flags + "-", width[1:]
    if precision is not None and precision.startswith("-"):  # a negative `*` precision: as if none
        precision = None
    if int(spec_width or "0") > MAX_WORD_BYTES or int(precision or "0") > MAX_WORD_BYTES:
        raise _Unknown
    prec = "" if precision is None else "." + (precision or "0")
    if conv in "sbqc":
        if "#" in flags or "+" in flags:
            raise _Unknown
        if conv == "b":
            text = W.decode_ansi(arg)
        elif conv == "q":
            if precision is not None:
                raise _Unknown
            quoted = shell_quote(arg)
            if quoted is None:
                raise _Unknown
            text = quoted
        elif conv == "c":
            if not arg:
                raise _Unknown  # a NUL byte, which a command substitution drops with a warning
            text = arg[:1]
        else:
            text = arg
        return ("%" + flags.replace("0", "") + spec_width + prec + "s") % text
    if conv in "diouxX":
        if "#" in flags:
            raise _Unknown
        value = _integer(arg)
        if conv in _UNSIGNED and value < 0:
            value += 1 << 64
        py = "d" if conv in "iu" else conv
        return ("%" + flags + spec_width + prec + py) % value
    if conv in "fFeEgG":
        if "#" in flags:
            raise _Unknown
        try:
            number = float(arg or "0")
        except ValueError:
            raise _Unknown from None
        return ("%" + flags + spec_width + prec + conv) % number
    raise _Unknown


def _integer(arg: str) -> int:
    """An integer argument as bash's printf reads it (C's strtoimax forms, ``'c`` a character's code)."""
    if not arg:
        return 0
    if arg[0] in "'\"":
        return ord(arg[1]) if len(arg) > 1 else 0
    m = _INTEGER.fullmatch(arg)
    if m is None:
        raise _Unknown
    sign, digits = m.groups()
    if digits[:2] in ("0x", "0X"):
        value = int(digits[2:], 16)
    elif digits.startswith("0"):
        value = int(digits, 8)
    else:
        value = int(digits)
    return -value if sign == "-" else value


def shell_quote(text: str) -> str | None:
    """``printf %q``: the text with a backslash before each character a shell would read specially; None
    for a text with a control or non-ASCII character (bash quotes it as ``$'...'`` by the locale)."""
    if not text:
        return "''"
    if any(not (" " <= c <= "~") for c in text):
        return None
    out = []
    for k, c in enumerate(text):
        if c in _QUOTE_ANYWHERE or (k == 0 and c in _QUOTE_AT_START):
            out.append("\\")
        out.append(c)
    return "".join(out)
