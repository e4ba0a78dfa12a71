"""What util-linux ``getopt`` prints: the ``eval set -- "$(getopt -o m:p: --long model:,port: -- "$@")"``
idiom of launch scripts that parse their own options.

getopt(1) (util-linux, misc-utils/getopt.c) parses the parameters with glibc's ``getopt_long`` and prints
them normalized: each option as ``-x`` or ``--name`` (an abbreviated long option under its full name), its
argument as a separate word (an optional one that is absent as ``''``), then ``--`` and the parameters that
are not options, the options first (glibc's permutation; an optstring starting with ``+`` stops at the first
non-option). In the forms with ``-o``/``--options`` or ``--`` each word is quoted for the shell (``'`` as
``'\\''``) and starts with a blank; in the first form (``getopt optstring parameters``) nothing is quoted.

None (unknown) where getopt's answer is not computed here: an error (an unknown or ambiguous option, a
missing argument: getopt prints to stderr and fails with status 1), ``-T``/``-Q``/``-s`` other than
sh/bash, an optstring starting with ``-``. Compared with the real getopt in
``tests/shell/test_getopt_program.py``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class _Spec:
    """How getopt was asked to parse: its option letters and long names, each with its argument kind."""

    short: dict[str, int]  # option letter -> 0 no argument, 1 required, 2 optional
    long: dict[str, int]
    in_order: bool  # `+` at the optstring's start: the first non-option ends the options
    alternative: bool  # -a: long options with one dash too
    quoted: bool


class _Unknown(Exception):
    pass


def getopt_output(args: list[str]) -> str | None:
    """What ``getopt ARGS...`` prints (its trailing newline included); None where it is not computed."""
    try:
        spec, params = _read_invocation(args)
        return _render(spec, *_parse(spec, params))
    except _Unknown:
        return None


def _read_invocation(args: list[str]) -> tuple[_Spec, list[str]]:
    if args and not args[0].startswith("-"):
        # the first form: `getopt optstring parameters`, nothing quoted
        short, in_order = _shorts(args[0])
        return _Spec(short, {}, in_order, False, False), args[1:]
    shorts: str | None = None
    longs: dict[str, int] = {}
    alternative = False
    quoted = True
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        name, value, i = _own_option(args, i)
        if name in ("o", "options"):
            shorts = value
        elif name in ("l", "longoptions"):
            longs.update(_longs(value or ""))
        elif name in ("a", "alternative"):
            alternative = True
        elif name in ("u", "unquoted"):
            quoted = False
        elif name in ("s", "shell"):
            if value not in ("sh", "bash"):
                raise _Unknown
        elif name in ("n", "name", "q", "quiet"):
            pass
        else:
            raise _Unknown  # -T, -Q, -h, -V, or not an option of getopt's
    rest = args[i:]
    if shorts is None:
        if not rest:
            raise _Unknown
        shorts, rest = rest[0], rest[1:]
    short, in_order = _shorts(shorts)
    return _Spec(short, longs, in_order, alternative, quoted), rest


_OWN_SHORT = {"o": True, "l": True, "n": True, "s": True, "a": False, "u": False, "q": False}
_OWN_LONG = {
    "options": True,
    "longoptions": True,
    "name": True,
    "shell": True,
    "alternative": False,
    "unquoted": False,
    "quiet": False,
}


def _own_option(args: list[str], i: int) -> tuple[str, str | None, int]:
    """One of getopt's own options at ``args[i]``: (name, its argument, the next index)."""
    a = args[i]
    if a.startswith("--"):
        name, eq, value = a[2:].partition("=")
        matches = [n for n in _OWN_LONG if n.startswith(name)] if name not in _OWN_LONG else [name]
        if len(matches) != 1:
            raise _Unknown
        full = matches[0]
        if not _OWN_LONG[full]:
            if eq:
                raise _Unknown
            return full, None, i + 1
        if eq:
            return full, value, i + 1
        if i + 1 >= len(args):
            raise _Unknown
        return full, args[i + 1], i + 2
    letter = a[1]
    if letter not in _OWN_SHORT:
        raise _Unknown
    if not _OWN_SHORT[letter]:
        if len(a) > 2:
            raise _Unknown  # a cluster of getopt's own flags: not read here
        return letter, None, i + 1
    if len(a) > 2:
        return letter, a[2:], i + 1
    if i + 1 >= len(args):
        raise _Unknown
    return letter, args[i + 1], i + 2


def _shorts(optstring: str) -> tuple[dict[str, int], bool]:
    in_order = optstring.startswith("+")
    if optstring.startswith("-"):
        raise _Unknown  # glibc's RETURN_IN_ORDER: not read here
    text = optstring.lstrip("+")
    out: dict[str, int] = {}
    i = 0
    while i < len(text):
        c = text[i]
        colons = len(text[i + 1 :]) - len(text[i + 1 :].lstrip(":"))
        out[c] = min(colons, 2)
        i += 1 + colons
    return out, in_order


def _longs(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in text.replace(" ", ",").split(","):
        if not part:
            continue
        name = part.rstrip(":")
        out[name] = min(len(part) - len(name), 2)
    return out


def _parse(spec: _Spec, params: list[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    options: list[tuple[str, str | None]] = []
    rest: list[str] = []
    i = 0
    while i < len(params):
        a = params[i]
        if a == "--":
            rest.extend(params[i + 1 :])
            break
        if a.startswith("--") or (spec.alternative and a.startswith("-") and len(a) > 2):
            i = _long_option(spec, params, i, options)
            continue
        if a.startswith("-") and a != "-":
            i = _short_cluster(spec, params, i, options)
            continue
        if spec.in_order:
            rest.extend(params[i:])
            break
        rest.append(a)
        i += 1
    return options, rest


def _long_option(spec: _Spec, params: list[str], i: int, out: list[tuple[str, str | None]]) -> int:
    a = params[i]
    body = a[2:] if a.startswith("--") else a[1:]
    name, eq, value = body.partition("=")
    if name in spec.long:
        full = name
    else:
        matches = [n for n in spec.long if n.startswith(name)]
        if len(matches) != 1 or not name:
            if not a.startswith("--"):
                return _short_cluster(spec, params, i, out)  # -a: not a long option, read as short ones
            raise _Unknown
        full = matches[0]
    kind = spec.long[full]
    if kind == 0:
        if eq:
            raise _Unknown
        out.append(("--" + full, None))
        return i + 1
    if eq:
        out.append(("--" + full, value))
        return i + 1
    if kind == 2:
        out.append(("--" + full, ""))
        return i + 1
    if i + 1 >= len(params):
        raise _Unknown
    out.append(("--" + full, params[i + 1]))
    return i + 2


def _short_cluster(spec: _Spec, params: list[str], i: int, out: list[tuple[str, str | None]]) -> int:
    a = params[i]
    k = 1
    while k < len(a):
        c = a[k]
        if c not in spec.short or c == ":":
            raise _Unknown
        kind = spec.short[c]
        if kind == 0:
            out.append(("-" + c, None))
            k += 1
            continue
        if k + 1 < len(a):
            out.append(("-" + c, a[k + 1 :]))
            return i + 1
        if kind == 2:
            out.append(("-" + c, ""))
            return i + 1
        if i + 1 >= len(params):
            raise _Unknown
        out.append(("-" + c, params[i + 1]))
        return i + 2
    return i + 1


def _render(spec: _Spec, options: list[tuple[str, str | None]], rest: list[str]) -> str:
    def word(text: str) -> str:
        return "'" + text.replace("'", "'\\''") + "'" if spec.quoted else text

    out = []
    for name, value in options:
        out.append(" " + name)
        if value is not None:
            out.append(" " + word(value))
    out.append(" --")
    out.extend(" " + word(r) for r in rest)
    return "".join(out) + "\n"
