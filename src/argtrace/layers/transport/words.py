"""Words as the transport layer reads and shows them.

This module owns the small vocabulary every carrier shares: showing a word or an argv the way a user
would type it back (``_show``, ``_show_argv``), splitting an ``at`` (``FILE:LINE:COL``), reading the raw
source words and the stdin (here-document, ``< file``, ``<<<``) of one simple command from the bash tree
(``_locate``), the expansions the local shell performs in a raw word, ``--flag value`` pairs of a command
text, and whether an argv starts a server. It knows no carrier (ssh, docker, compose).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from argtrace.model import Evidence, Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# A blank or a character the node's shell gives a meaning to.
_SHELL_SPECIAL = re.compile(r"[\s'\"`$;&|<>()*?\[\]#~\\{}]")


def _show(word: str | None) -> str:
    if word is None:
        return "<unknown>"
    return shlex.quote(word) if word == "" or _SHELL_SPECIAL.search(word) else word


def _show_argv(argv: Sequence[str | None]) -> str:
    return " ".join(_show(w) for w in argv)


@dataclass
class _Located:
    """The source of one simple command: its raw words and a here-document on its stdin, if any."""

    raw_words: list[str]
    heredoc: str | None = None
    heredoc_quoted: bool = False
    heredoc_line: int | None = None
    stdin_file: str | None = None
    herestring: str | None = None
    # the here-document as the script's own shell expanded it at that point (the shell layer's CommandIO:
    # the script's variables, not only the caller's), when the shell layer recorded it; None inside it is a
    # body whose expansion is not known statically
    expanded: tuple[str | None] | None = None
    # stdin is a pipe: the command before it as written, and what it writes when the script gives it
    piped_from: str | None = None
    piped: str | None = None
    # words known but for some quoted expansions (the shell layer's ``command_holed``): index -> (the text
    # with a HOLE for each, the holes' expansions as written and why each is not known)
    holed: dict[int, tuple[str, tuple[tuple[str | None, str], ...]]] = field(default_factory=dict)


def _locate(text: str, tree: Any, line: int, col: int) -> _Located | None:
    """Raw words and stdin of the simple command that starts at ``line``:``col`` (1-based) of ``text``."""
    from argtrace.layers.shell import lexer as L

    node = tree.root_node.descendant_for_point_range((line - 1, col - 1), (line - 1, col - 1))
    while node is not None and node.type != "command":
        node = node.parent
    if node is None:
        return None
    stmt = node.parent if node.parent is not None and node.parent.type == "redirected_statement" else node
    raw = text.encode("latin-1")
    start = len(raw[: node.start_byte].decode("latin-1"))
    end = len(raw[: stmt.end_byte].decode("latin-1"))
    try:
        toks = L.tokenize_command(text, start, end)
    except L.LexError:
        return None
    located = _Located([w.raw for w in toks.words])
    for redir in toks.redirs:
        if redir.op in ("<<", "<<-") and redir.heredoc is not None:
            located.heredoc = redir.heredoc
            located.heredoc_quoted = redir.heredoc_quoted
            located.heredoc_line = text.count("\n", 0, redir.start) + 2
        elif redir.op == "<" and redir.target is not None and (redir.fd in (None, "0")):
            located.stdin_file = redir.target.raw
        elif redir.op == "<<<" and redir.target is not None:
            located.herestring = redir.target.raw
    return located


# what _local_expansions gives an expansion whose part of the word is not known: the word was produced, but
# the values of two expansions around a literal that one of them holds too can be cut either way
SPLIT_NOT_KNOWN = "\x00split not known"


def _local_expansions(raw: str, predicted: str | None) -> list[tuple[str, str | None]]:
    """The expansions the *local* shell performs in one raw word (outside single quotes), each with the
    text it produced when that can be read off the predicted word (``None`` otherwise)."""
    from argtrace.layers.shell import lexer as L
    from argtrace.layers.shell import wordparts as W

    try:
        parts = W.parse_word(raw)
    except Exception:
        return []
    expansions = [p.raw for p in parts if isinstance(p, (W.Param, W.CmdSub, W.Arith))]
    if not expansions or predicted is None:
        return [(e, None) for e in expansions]
    pattern = ""
    for part in parts:
        if isinstance(part, W.Lit):
            pattern += re.escape(L.restore(part.text))
        elif isinstance(part, (W.Param, W.CmdSub, W.Arith)):
            pattern += "(.*?)"
        elif isinstance(part, W.Tilde):
            pattern += ".*?"
    match = re.fullmatch(pattern, predicted, re.DOTALL)
    if match is None or len(match.groups()) != len(expansions):
        return [(e, None) for e in expansions]
    # the same word read with the longest values first: an expansion whose part differs between the two
    # readings is not known from the word (`$ENV $VOLS` where ENV holds spaces was read as ENV='-e')
    greedy = re.fullmatch(pattern.replace("(.*?)", "(.*)"), predicted, re.DOTALL)
    longest = greedy.groups() if greedy is not None else (None,) * len(expansions)
    return [
        (e, short if short == long else SPLIT_NOT_KNOWN)
        for e, short, long in zip(expansions, match.groups(), longest, strict=True)
    ]


def _as_written(raw: str) -> str:
    """A raw word without its quotes, expansions kept as text (``"--port $P"`` -> ``--port $P``)."""
    from argtrace.layers.shell import lexer as L
    from argtrace.layers.shell import wordparts as W

    try:
        parts = W.parse_word(raw)
    except Exception:
        return raw
    out = []
    for part in parts:
        if isinstance(part, W.Lit):
            out.append(L.restore(part.text))
        elif isinstance(part, (W.Param, W.CmdSub, W.Arith, W.Tilde, W.ProcSub)):
            out.append(part.raw)
    return "".join(out)


def _flag_values(text: str) -> dict[str, str]:
    """``--flag value`` / ``--flag=value`` pairs in a command text, values as written (quotes kept)."""
    from argtrace.layers.shell import lexer as L

    try:
        words = [w.raw for w in L.tokenize_command(text, 0, len(text)).words]
    except Exception:
        return {}
    pairs: dict[str, str] = {}
    for i, word in enumerate(words):
        if not word.startswith("--") or word == "--":
            continue
        flag, eq, value = word.partition("=")
        if eq:
            pairs[flag] = value
        elif i + 1 < len(words) and not words[i + 1].startswith("-"):
            pairs[flag] = words[i + 1]
    return pairs


def _line_chunk(text: str, line: int) -> str:
    """Line ``line`` (1-based) of ``text`` with the lines a trailing backslash continues."""
    chunk = []
    for item in text.split("\n")[line - 1 :]:
        chunk.append(item)
        if not item.endswith("\\"):
            break
    return "\n".join(chunk)


# One part of a word as ``shlex.split`` (POSIX mode) reads it: '...' (no escapes), "..." (backslash escapes
# `"` and `\` only), a backslash escaping any character, or a run of other characters.
_SHLEX_PART = re.compile(
    r"""'(?P<sq>[^']*+)'|"(?P<dq>(?:[^"\\]++|\\.)*+)"|\\(?P<esc>.)|(?P<bare>[^ \t\r\n'"\\]++)""", re.S
)
_SHLEX_SPACE = frozenset(" \t\r\n")
_DQ_ESCAPE = re.compile(r'\\([\\"])')


def split_like_shlex(text: str) -> list[str]:
    """``shlex.split(text)`` (POSIX mode, no comments), in linear time: ``shlex`` builds each token one
    character at a time and is quadratic in a word's length (a 5 MB compose ``command:`` took minutes).
    Raises ``ValueError`` as ``shlex`` does for an unterminated quote or a trailing backslash."""
    words: list[str] = []
    parts: list[str] | None = None
    i, n = 0, len(text)
    while i < n:
        if text[i] in _SHLEX_SPACE:
            if parts is not None:
                words.append("".join(parts))
                parts = None
            i += 1
            continue
        m = _SHLEX_PART.match(text, i)
        if m is None:  # an unterminated quote, or a backslash at the very end: shlex's two messages
            tail = text[i + 1 :] if text[i] == '"' else text[i:] if text[i] == "\\" else ""
            trailing = len(tail) - len(tail.rstrip("\\"))
            raise ValueError("No escaped character" if trailing % 2 else "No closing quotation")
        if parts is None:
            parts = []
        if m.group("dq") is not None:
            parts.append(_DQ_ESCAPE.sub(r"\1", m.group("dq")))
        else:
            parts.append(next(g for g in (m.group("sq"), m.group("esc"), m.group("bare")) if g is not None))
        i = m.end()
    if parts is not None:
        words.append("".join(parts))
    return words


def _unquote(word: str | None) -> str | None:
    """A word as the program receives it (quotes removed; unknown when it still needs an expansion)."""
    if word is None:
        return None
    try:
        parts = split_like_shlex(word)
    except ValueError:
        return word
    return parts[0] if len(parts) == 1 else word


def _param_name(raw: str) -> str | None:
    m = re.match(r"^\$\{?[#!]?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])", raw)
    return m.group(1) if m else None


def _starts_server(argv: Sequence[str | None]) -> bool:
    from argtrace.frameworks.detect import detect_server

    known = [w or "" for w in argv]
    return detect_server(known) is not None


def _latin1_bytes(text: str) -> bytes:
    from argtrace.layers.shell import lexer as L

    return L.restore(text).encode("latin-1", "replace")


def one_word_flag(item_kind: str, value: str, text: str, at: str) -> Finding | None:
    """TP011 for an exec-form list item (compose ``command:``, Kubernetes ``command``/``args``) that holds
    a flag and its value: no shell splits it, so the server receives both as one argv word."""
    from argtrace.rules import transport as R

    if not (value.startswith("-") and re.search(r"\s", value.strip())):
        return None
    flag, _, rest = value.strip().partition(" ")
    return R.TP011.finding(
        f"the {item_kind} {_show(value)} is ONE argv word: the server receives the flag and its value as a "
        "single argument, which argparse does not recognise",
        at=at,
        evidence=[Evidence("transport", at, f"- {text}")],
        fix=f"Give the flag and its value as two items: `- {flag}` and `- {rest.strip()}` (or write "
        f"`{flag}={rest.strip()}`).",
    )


_EMPTY_ASSIGNMENT = re.compile(r"(--?[A-Za-z][\w.-]*)=")


def empty_value_item(item_kind: str, value: str, text: str, at: str) -> Finding | None:
    """TP022 for an exec-form list item ``--flag=`` with nothing after ``=``: argparse gives the flag the
    empty string (``--flag=VALUE`` is one word whose value is what follows ``=``, Python's argparse
    docs, "Option value syntax"), never the value meant. In a manifest such an item is what a template
    leaves when it rendered to nothing: Helm renders every ``{{ ... }}`` in a chart, KServe's own
    ``{{.Name}}`` of a ServingRuntime included, before the cluster sees it (noelo/vllm-router-demo#2)."""
    from argtrace.rules import transport as R

    m = _EMPTY_ASSIGNMENT.fullmatch(value)
    if m is None:
        return None
    flag = m.group(1)
    return R.TP022.finding(
        f"the {item_kind} {_show(value)} gives {flag} an empty value: the server receives the empty string "
        f"as {flag}, not the value meant (a template that rendered to nothing leaves such an item)",
        at=at,
        evidence=[Evidence("transport", at, f"- {text}")],
        fix=f"Write the value after `{flag}=`, or drop the item. If a Helm chart renders this file, a "
        "`{{ ... }}` meant for KServe (`{{.Name}}` of a ServingRuntime) must be escaped so that Helm leaves "
        'it: `{{ "{{" }} .Name {{ "}}" }}`.',
    )


def one_word_program(item_kind: str, value: str, text: str, at: str) -> Finding | None:
    """TP011 for the first item of an exec-form ``command`` (Kubernetes ``command``, compose ``entrypoint:``)
    that holds a whole server command line: no shell splits it, so the runtime looks for a program named by
    the entire string and the container fails to start ("no such file or directory")."""
    from argtrace.rules import transport as R

    stripped = value.strip()
    if stripped.startswith("-") or not re.search(r"\s", stripped):
        return None
    try:
        split = split_like_shlex(stripped)
    except ValueError:
        split = stripped.split()
    if not _starts_server(split):
        return None
    items = ", ".join(f"`{w}`" for w in split[:3])
    return R.TP011.finding(
        f"the {item_kind} {_show(value)} is ONE argv word: no shell splits it, so the container runtime "
        'looks for a program named by the whole string and the container does not start ("no such file or '
        'directory"); the server never runs',
        at=at,
        evidence=[Evidence("transport", at, f"- {text}")],
        fix=f"Give each word its own item ({items}, ...), or run the line through a shell: `command: "
        '["/bin/sh", "-c"]` with the whole line as the one item of `args`.',
    )


def folded_continuation(item_kind: str, node: Any, value: str, at: str) -> Finding | None:
    """TP021 for a folded block scalar (``>``, ``>-``) whose lines end in a backslash: YAML joins folded
    lines with a space (YAML 1.2, 6.5 Line Folding), so each ``\\`` is followed by a space instead of a
    newline, and the shell or compose's splitting reads ``\\ `` as an escaped space: the next flag becomes a
    word with a leading space (`` --model``), which argparse takes for a positional."""
    from argtrace.rules import transport as R

    if getattr(node, "style", None) != ">" or "\\ " not in value:
        return None
    first = value.index("\\ ")
    before = value[:first].rstrip().rsplit(" ", 1)[-1]
    after = value[first + 2 :].split(" ", 1)[0]
    joined = f"{before} \\ {after}"
    return R.TP021.finding(
        f"the {item_kind} is a folded block (`>`): YAML joins its lines with a space, so each `\\` at a "
        f"line's end escapes that space instead of continuing the line ({_show(joined)}); the next flag "
        "then reaches the server as one word that starts with a space, which argparse does not take for "
        'a flag ("unrecognized arguments")',
        at=at,
        evidence=[Evidence("transport", at, value[:200])],
    )
