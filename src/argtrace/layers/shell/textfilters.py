"""What a few text utilities print for an input the script itself gives: ``wc``, ``tr``, ``cut``, ``head``,
``tail`` and ``paste -s``, in the forms launch scripts use to count GPUs and join lists
(``NUM=$(echo $CUDA_VISIBLE_DEVICES | tr ',' '\\n' | wc -l)``, ``$(seq 0 3 | paste -sd,)``).

Each follows POSIX's specification of the utility (XCU, "wc", "tr", "cut", "head", "tail", "paste") with
GNU coreutils' choices where POSIX leaves one open (a lone count printed without padding, ``tr``'s second
set padded with its last character, a line without the delimiter printed whole by ``cut -f``). Any option,
operand or input outside the forms read here (files, ``tr -s``, repeat sets, non-ASCII text) gives None:
not known statically. ``tests/shell/test_text_filters.py`` compares each form with the real utility."""

from __future__ import annotations

import re
from collections.abc import Callable

_CLASSES = {
    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "lower": "abcdefghijklmnopqrstuvwxyz",
    "digit": "0123456789",
    "alpha": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "alnum": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "space": "\t\n\v\f\r ",
    "blank": "\t ",
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_LIST = re.compile(r"(\d*)(-?)(\d*)")


def text_filter(name: str, args: list[str], stdin: str | None) -> str | None:
    """What ``name ARGS`` prints reading ``stdin``; None when that is not known statically."""
    if stdin is None or not stdin.isascii():
        return None
    run = _FILTERS.get(name)
    return None if run is None else run(args, stdin)


def _wc(args: list[str], text: str) -> str | None:
    if len(args) != 1:
        return None
    count = {
        "-l": lambda: text.count("\n"),
        "-c": lambda: len(text),
        "-m": lambda: len(text),
        "-w": lambda: len(text.split()),
    }.get(args[0])
    return None if count is None else f"{count()}\n"


def _tr_set(spec: str) -> list[str] | None:
    """A ``tr`` set's characters in order (escapes, ranges, ``[:class:]``); None for what is not read."""
    out: list[str] = []
    i = 0
    while i < len(spec):
        if spec.startswith("[:", i):
            end = spec.find(":]", i + 2)
            chars = _CLASSES.get(spec[i + 2 : end]) if end > 0 else None
            if chars is None:
                return None
            out.extend(chars)
            i = end + 2
            continue
        if spec.startswith(("[=", "["), i) and re.match(r"\[(=|.\*)", spec[i:]):
            return None  # equivalence classes and repeats
        c = spec[i]
        if c == "\\" and i + 1 < len(spec):
            octal = re.match(r"[0-7]{1,3}", spec[i + 1 :])
            if octal:
                c = chr(int(octal.group(), 8))
                i += 1 + len(octal.group())
            else:
                c = _ESCAPES.get(spec[i + 1], spec[i + 1])
                i += 2
        else:
            i += 1
        if i + 1 < len(spec) and spec[i] == "-" and spec[i + 1] != "\\":
            last = spec[i + 1]
            if ord(last) < ord(c):
                return None  # tr refuses a reversed range
            out.extend(chr(k) for k in range(ord(c), ord(last) + 1))
            i += 2
            continue
        out.append(c)
    return out


def _tr(args: list[str], text: str) -> str | None:
    delete = complement = False
    while args and args[0].startswith("-") and len(args[0]) > 1:
        for letter in args[0][1:]:
            if letter == "d":
                delete = True
            elif letter in "cC":
                complement = True
            else:
                return None  # -s squeezes, -t truncates: not read here
        args = args[1:]
    sets = [_tr_set(a) for a in args]
    if any(s is None for s in sets) or not sets:
        return None
    first = set(sets[0] or ())
    if delete:
        if len(sets) != 1:
            return None
        return "".join(c for c in text if (c in first) == complement)
    if complement or len(sets) != 2 or not sets[1]:
        return None
    source, target = sets[0] or [], sets[1] or []
    table: dict[str, str] = {}
    for k, c in enumerate(source):
        table[c] = target[min(k, len(target) - 1)]  # GNU pads the second set with its last character
    return "".join(table.get(c, c) for c in text)


def _positions(spec: str) -> Callable[[int], bool] | None:
    """``cut``'s LIST (``2``, ``1,3``, ``2-``, ``-3``, ``2-4``) as a test of a 1-based position."""
    ranges: list[tuple[int, int]] = []
    for part in spec.split(","):
        m = _LIST.fullmatch(part)
        if m is None or not (m.group(1) or m.group(3)) or (not m.group(2) and m.group(3)):
            return None
        low = int(m.group(1)) if m.group(1) else 1
        high = int(m.group(3)) if m.group(3) else (low if not m.group(2) else 1 << 30)
        if low < 1 or high < low:
            return None
        ranges.append((low, high))
    return lambda n: any(a <= n <= b for a, b in ranges)


def _options(args: list[str], with_value: str) -> dict[str, str] | None:
    """Short options, each letter in ``with_value`` taking a value (attached or the next word)."""
    got: dict[str, str] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if not a.startswith("-") or len(a) < 2:
            return None  # a FILE operand: not read here
        j = 1
        while j < len(a):
            letter = a[j]
            if letter in with_value:
                value = a[j + 1 :] if j + 1 < len(a) else (args[i + 1] if i + 1 < len(args) else None)
                if value is None:
                    return None
                if j + 1 >= len(a):
                    i += 1
                got[letter] = value
                break
            got[letter] = ""
            j += 1
        i += 1
    return got


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _cut(args: list[str], text: str) -> str | None:
    opts = _options(args, "dfcb")
    if opts is None or set(opts) - {"d", "f", "c", "b"}:
        return None
    out: list[str] = []
    if "f" in opts and not ({"c", "b"} & set(opts)):
        delim = opts.get("d", "\t")
        keep = _positions(opts["f"])
        if len(delim) != 1 or keep is None:
            return None
        for line in _lines(text):
            body = line.rstrip("\n")
            fields = body.split(delim)
            if len(fields) == 1:
                out.append(body + "\n")  # a line without the delimiter is printed whole
                continue
            out.append(delim.join(f for n, f in enumerate(fields, 1) if keep(n)) + "\n")
        return "".join(out)
    spec = opts.get("c", opts.get("b"))
    if spec is None or "d" in opts or "f" in opts:
        return None
    keep = _positions(spec)
    if keep is None:
        return None
    for line in _lines(text):
        body = line.rstrip("\n")
        out.append("".join(ch for n, ch in enumerate(body, 1) if keep(n)) + "\n")
    return "".join(out)


def _count(args: list[str]) -> tuple[int, bool] | None:
    """``-n N``, ``-nN``, ``-N`` (and ``-n +N``: from line N): (N, from the start)."""
    if len(args) == 1 and re.fullmatch(r"-\d+", args[0]):
        return int(args[0][1:]), False
    opts = _options(args, "n")
    if opts is None or set(opts) != {"n"}:
        return None
    m = re.fullmatch(r"(\+?)(\d+)", opts["n"])
    return None if m is None else (int(m.group(2)), bool(m.group(1)))


def _head(args: list[str], text: str) -> str | None:
    got = _count(args) if args else (10, False)
    if got is None or got[1]:
        return None
    return "".join(_lines(text)[: got[0]])


def _tail(args: list[str], text: str) -> str | None:
    got = _count(args) if args else (10, False)
    if got is None:
        return None
    n, from_start = got
    lines = _lines(text)
    if from_start:
        return "".join(lines[max(n - 1, 0) :])
    return "".join(lines[-n:]) if n else ""


def _paste(args: list[str], text: str) -> str | None:
    opts = _options(args, "d")
    if opts is None or "s" not in opts or set(opts) - {"s", "d"}:
        return None
    delims = opts.get("d", "\t")
    if not delims or "\\" in delims:
        return None
    lines = [line.rstrip("\n") for line in _lines(text)]
    out = lines[0] if lines else ""
    for k, line in enumerate(lines[1:]):
        out += delims[k % len(delims)] + line
    return out + "\n"


_FILTERS: dict[str, Callable[[list[str], str], str | None]] = {
    "wc": _wc,
    "tr": _tr,
    "cut": _cut,
    "head": _head,
    "tail": _tail,
    "paste": _paste,
}
TEXT_FILTERS = frozenset(_FILTERS)
