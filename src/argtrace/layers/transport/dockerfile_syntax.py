"""A Dockerfile's text as Docker's builder reads it: instructions, their forms, and build-time substitution.

This module owns the text rules only, each from Docker's Dockerfile reference
(https://docs.docker.com/reference/dockerfile/) and BuildKit's parser (moby/buildkit
``frontend/dockerfile/parser``, ``frontend/dockerfile/shell/lex.go``):

* parser directives (``# escape=``) only at the top, before any comment, blank line or instruction;
* a line ending in the escape character (``\\`` or the directive's `````), trailing blanks allowed,
  continues on the next line, the escape and the line break removed and the next line's leading blanks
  kept; comment lines and empty lines inside a continuation are skipped;
* ``RUN``/``COPY``/``ADD`` here-documents (``<<EOF`` ... ``EOF``) belong to their instruction;
* exec form: the arguments are a JSON array of strings (double quotes); anything else, invalid JSON
  included, is the shell form ("the exec form is parsed as a JSON array ... If the exec form is not valid
  JSON, it's treated as shell form");
* environment replacement ``$NAME``, ``${NAME}``, ``${NAME:-word}``, ``${NAME:+word}``, ``${NAME-word}``,
  ``${NAME+word}``, the escape before ``$`` a literal ``$``, single quotes literal, in the instructions the
  reference lists (``ADD COPY ENV EXPOSE FROM LABEL STOPSIGNAL USER VOLUME WORKDIR ONBUILD``, and ``ARG``
  defaults): never in ``CMD``/``ENTRYPOINT``/``RUN``, whose shell form is expanded by the container's
  shell at run time and whose exec form by nothing.

Nothing here knows a container or a server: :mod:`.dockerfile` builds the image's configuration from this.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

_DIRECTIVE = re.compile(r"^#\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(.*?)\s*$")
_HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z0-9_.-]+)\2")
_NAME_CHARS = re.compile(r"[A-Za-z0-9_]")


@dataclass(frozen=True)
class Instruction:
    """One instruction: its keyword (upper case), the text after it with continuations joined, its first
    line, and its arguments as an exec-form JSON array when they are one."""

    keyword: str
    rest: str
    line: int
    exec_form: tuple[str, ...] | None = None


def read_dockerfile(text: str) -> tuple[list[Instruction], str]:
    """The instructions of a Dockerfile in order, and its escape character."""
    lines = text.replace("\r\n", "\n").split("\n")
    escape = "\\"
    i = 0
    # parser directives: `# name=value` lines at the very top; the first other line ends them
    while i < len(lines):
        m = _DIRECTIVE.match(lines[i].strip())
        if not m:
            break
        if m.group(1).lower() == "escape" and m.group(2) in ("\\", "`"):
            escape = m.group(2)
        i += 1
    continuation = re.compile(re.escape(escape) + r"[ \t]*$")
    out: list[Instruction] = []
    while i < len(lines):
        number = i + 1
        line = lines[i].lstrip(" \t")
        i += 1
        if not line or line.startswith("#"):
            continue
        text_parts = []
        ended = continuation.search(line) is None
        text_parts.append(continuation.sub("", line))
        while not ended and i < len(lines):
            raw = lines[i]
            i += 1
            stripped = raw.strip(" \t")
            if stripped.startswith("#") or not stripped:
                continue  # comments and empty lines inside a continuation are skipped
            ended = continuation.search(raw) is None
            text_parts.append(continuation.sub("", raw))
        joined = "".join(text_parts)
        keyword, _, rest = joined.strip().partition(" ")
        if "\t" in keyword:
            keyword, _, more = keyword.partition("\t")
            rest = more + " " + rest
        keyword = keyword.upper()
        rest = rest.strip()
        if keyword in ("RUN", "COPY", "ADD"):
            # here-documents: their bodies are the instruction's, not instructions
            for m in _HEREDOC.finditer(rest):
                strip_tabs, delimiter = m.group(1) == "-", m.group(3)
                while i < len(lines):
                    body = lines[i]
                    i += 1
                    if (body.lstrip("\t") if strip_tabs else body) == delimiter:
                        break
        out.append(Instruction(keyword, rest, number, _exec_form(rest)))
    return out, escape


def _exec_form(rest: str) -> tuple[str, ...] | None:
    if not rest.startswith("["):
        return None
    from argtrace.safe_json import loads

    try:
        value = loads(rest)  # the user's text: a deep nesting is refused, never a RecursionError
    except ValueError:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return tuple(value)


@dataclass
class Expansion:
    """A word after build-time replacement: its text, and the names that were unset (empty) or unknown."""

    text: str
    unset: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def expand(
    text: str, env: Mapping[str, str | None], escape: str = "\\", *, split: bool = False
) -> list[Expansion]:
    """BuildKit's ``ProcessWord`` (``split``: ``ProcessWords``, blanks outside quotes separate words):
    quotes removed, the escape character taking the next character, ``$`` references replaced from
    ``env`` (a name mapped to None is unknown: its reference gives ``""`` and is recorded in ``unknown``;
    a name not in ``env`` is unset: ``""``)."""
    words: list[Expansion] = []
    cur = Expansion("")
    have = False
    i, n = 0, len(text)
    parts: list[str] = []

    def flush() -> None:
        nonlocal cur, have, parts
        if have:
            cur.text = "".join(parts)
            words.append(cur)
        cur, have, parts = Expansion(""), False, []

    while i < n:
        c = text[i]
        if split and c in " \t\n":
            flush()
            i += 1
            continue
        have = True
        if c == escape:
            if i + 1 < n:
                parts.append(text[i + 1])
                i += 2
            else:
                parts.append(c)
                i += 1
            continue
        if c == "'":
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            parts.append(text[i + 1 : end])
            i = end + 1
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                d = text[i]
                if d == escape and i + 1 < n and text[i + 1] in ('"', "$", escape):
                    parts.append(text[i + 1])
                    i += 2
                elif d == "$":
                    value, i = _dollar(text, i, env, escape, cur)
                    parts.append(value)
                else:
                    parts.append(d)
                    i += 1
            i += 1
            continue
        if c == "$":
            value, i = _dollar(text, i, env, escape, cur)
            parts.append(value)
            continue
        parts.append(c)
        i += 1
    flush()
    if not split and not words:
        words.append(Expansion(""))
    return words


def _dollar(text: str, i: int, env: Mapping[str, str | None], escape: str, cur: Expansion) -> tuple[str, int]:
    """The value of the reference at ``text[i] == "$"`` and the index after it (lex.go ``processDollar``)."""
    n = len(text)
    if i + 1 >= n:
        return "$", i + 1
    if text[i + 1] != "{":
        j = i + 1
        while j < n and _NAME_CHARS.match(text[j]):
            j += 1
        if j == i + 1:
            return "$", i + 1
        return _value(text[i + 1 : j], env, cur), j
    j = i + 2
    while j < n and _NAME_CHARS.match(text[j]):
        j += 1
    name = text[i + 2 : j]
    if j < n and text[j] == "}":
        return _value(name, env, cur), j + 1
    # ${NAME:-word} ${NAME-word} ${NAME:+word} ${NAME+word}: the word runs to the matching brace
    colon = j < n and text[j] == ":"
    k = j + 1 if colon else j
    op = text[k] if k < n else ""
    depth, m = 1, k + 1
    while m < n and depth:
        if text[m] == "{":
            depth += 1
        elif text[m] == "}":
            depth -= 1
            if not depth:
                break
        m += 1
    word_text = text[k + 1 : m]
    end = m + 1
    if op not in ("-", "+"):
        return text[i:end], end  # a modifier this reader does not follow: kept as written
    known = name in env
    value = env.get(name) if known else None
    if known and value is None:
        cur.unknown.append(name)
        return "", end
    inner = expand(word_text, env, escape)[0]
    cur.unset.extend(inner.unset)
    cur.unknown.extend(inner.unknown)
    is_set = known and (value != "" or not colon)
    if op == "-":
        return (value or "", end) if is_set else (inner.text, end)
    return (inner.text, end) if is_set else ("", end)


def _value(name: str, env: Mapping[str, str | None], cur: Expansion) -> str:
    if name not in env:
        cur.unset.append(name)
        return ""
    value = env[name]
    if value is None:
        cur.unknown.append(name)
        return ""
    return value


def name_values(rest: str, escape: str = "\\") -> list[tuple[str, str | None]]:
    """``ENV``/``ARG`` arguments as (name, raw value) pairs before replacement (BuildKit ``parseNameVal``):
    ``NAME=VALUE ...`` words split at blanks outside quotes; the legacy ``ENV NAME VALUE`` (no ``=`` in the
    first word) gives one pair whose value is the rest of the line; ``ARG NAME`` (no ``=``) the value None."""
    words = _raw_words(rest, escape)
    if not words:
        return []
    if "=" not in words[0]:
        name, _, value = rest.partition(" ")
        if not value.strip() and "\t" in name:
            name, _, value = name.partition("\t")
        return [(name.strip(), value.strip() or None)]
    pairs: list[tuple[str, str | None]] = []
    for word in words:
        name, eq, value = word.partition("=")
        pairs.append((name, value if eq else None))
    return pairs


def _raw_words(text: str, escape: str) -> list[str]:
    """Words split at blanks outside quotes, quotes and escapes kept as written (BuildKit ``parseWords``)."""
    words: list[str] = []
    cur: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if not quote and c in " \t":
            if cur:
                words.append("".join(cur))
                cur = []
            i += 1
            continue
        if c == escape and quote != "'" and i + 1 < len(text):
            cur.append(text[i : i + 2])
            i += 2
            continue
        if quote and c == quote:
            quote = ""
        elif not quote and c in "'\"":
            quote = c
        cur.append(c)
        i += 1
    if cur:
        words.append("".join(cur))
    return words
