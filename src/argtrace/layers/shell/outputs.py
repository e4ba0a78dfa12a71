"""What pure commands print, as bash prints it: ``echo`` (``-n``, ``-e``), ``printf`` formats, ``dirname``,
``basename``, and ``read``'s splitting of a line on IFS. Pure functions of text, shared by command
substitution (``expand``) and the builtins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from argtrace.layers.shell import wordparts as W
from argtrace.layers.shell.printf_format import printf_output

# `seq` lists longer than this are left unknown: a `for i in $(seq 1 300)` wait loop would otherwise be
# evaluated 300 times; a short one (`seq 0 $((N-1))` over instances) is what decides the servers started
SEQ_LIMIT = 64


def seq_output(args: Sequence[str]) -> str | None:
    """What coreutils `seq [FIRST [INCREMENT]] LAST` prints for integer arguments (None: options, other
    numbers, or more than SEQ_LIMIT lines)."""
    if not 1 <= len(args) <= 3 or not all(re.fullmatch(r"[+-]?[0-9]+", a) for a in args):
        return None
    first, step, last = (1, 1, int(args[0])) if len(args) == 1 else (int(args[0]), 1, int(args[-1]))
    if len(args) == 3:
        step = int(args[1])
    if step == 0:
        return None
    values = range(first, last + (1 if step > 0 else -1), step)
    if len(values) > SEQ_LIMIT:
        return None
    return "".join(f"{v}\n" for v in values)


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
        out = W.decode_ansi(out)
    return out + ("\n" if nl else "")


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


def path_name_output(cmd: str, args: list[str]) -> str | None:
    """What ``dirname NAME`` or ``basename NAME [SUFFIX]`` prints (GNU coreutils); ``--`` ends the options
    (``dirname -- "$0"``); None for an option (-z, -a, -s SUFFIX) or other word counts, not emulated."""
    if args and args[0] == "--":
        args = args[1:]
    elif args and args[0].startswith("-") and args[0] != "-":
        return None
    if cmd == "dirname":
        return _dirname(args[0]) + "\n" if len(args) == 1 else None
    if not 1 <= len(args) <= 2:
        return None
    b = _basename(args[0])
    if len(args) == 2 and b.endswith(args[1]) and b != args[1]:
        b = b[: -len(args[1])]
    return b + "\n"


def printf_options(texts: Sequence[str | None]) -> tuple[str | None, int] | None:
    """bash's printf options (``help printf``): ``-v VAR`` or ``-vVAR`` (the last one wins), then ``--`` may
    end them. The variable it assigns (None: it prints) and where its format is; None where bash refuses
    the line (status 2, nothing printed): a format left starting with ``-``, ``-v`` without a name."""
    i, name = 0, None
    while i < len(texts) and (texts[i] or "").startswith("-v"):
        word = texts[i] or ""
        name = word[2:] or (texts[i + 1] if i + 1 < len(texts) else "")
        i += 1 if word[2:] else 2
    if name == "":
        return None
    if i < len(texts) and texts[i] == "--":
        i += 1
    elif i < len(texts) and (texts[i] or "").startswith("-") and texts[i] != "-":
        return None
    return name, i


def printf_printed(args: list[str]) -> str | None:
    """What ``printf ARGS`` prints: nothing where ``-v`` assigns instead or bash refuses the line."""
    call = printf_options(args)
    if call is None or call[0] is not None or call[1] >= len(args):
        return ""
    return _printf(args[call[1]], args[call[1] + 1 :])


def _printf(fmt: str, args: list[str]) -> str | None:
    """bash's printf (``printf_format``); None where its output is not computed."""
    return printf_output(fmt, args)
