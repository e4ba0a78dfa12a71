"""Bash's own word rules, for the spans that tree-sitter marks as one simple command.

tree-sitter-bash finds the structure (lists, pipelines, ``if``/``for``/``case``, functions) reliably, but at
the word level it disagrees with bash in ways that matter here (``> log arg`` takes ``arg`` as a second
redirect target; a backslash followed by a blank at the end of a line is read as a continuation). So every
simple command is re-read from its source text by this lexer, which follows bash's tokenizer: blanks and
metacharacters end words, quotes and ``$(...)``/``${...}``/backquotes nest, redirections take one word.

The text is the script decoded as latin-1 (one character per byte, so offsets equal tree-sitter's byte
offsets); multi-byte UTF-8 never contains an ASCII byte, so bash syntax is unaffected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Placeholders substituted before tree-sitter parses (see syntax.py): bytes bash treats as word
# characters but tree-sitter would take as blanks.
CR = "\x01"  # a carriage return
ESC_SPACE = "\x02"  # a blank after a backslash at the end of a line (a space)
ESC_TAB = "\x03"  # (a tab)
PLACEHOLDERS = {CR: "\r", ESC_SPACE: " ", ESC_TAB: "\t"}

BLANK = " \t"
META = " \t\n;&|<>()"
ASSIGN_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?(\+?)=")
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def assign_parts(raw: str) -> tuple[str, str | None, str, int] | None:
    """``ASSIGN_RE.match(raw)``'s (name, [index], "+" or "", end), or None when it does not match.

    Most words have no ``=`` or are ``NAME=...`` with a plain name: answered with ``str`` methods, which
    cost a tenth of a regular expression's call (a 1 MB script asks 50,000 times, issue 18). An ASCII
    identifier is exactly ``[A-Za-z_][A-Za-z0-9_]*``; the others (``A+=``, ``A[i]=``) ask ASSIGN_RE.
    """
    eq = raw.find("=")
    if eq <= 0:
        return None  # the pattern needs a name, then `=`
    name = raw[:eq]
    if name.isidentifier() and name.isascii():
        return name, None, "", eq + 1
    m = ASSIGN_RE.match(raw)
    return None if m is None else (m.group(1), m.group(2), m.group(3), m.end())


def restore(text: str) -> str:
    """Undo the placeholders in a piece of (latin-1) text."""
    if "\x01" in text or "\x02" in text or "\x03" in text:
        for k, v in PLACEHOLDERS.items():
            text = text.replace(k, v)
    return text


class LexError(Exception):
    pass


# ---------------------------------------------------------------------------------------------- scanning


def skip_single(text: str, i: int) -> int:
    """``i`` just after an opening ``'``: index after the closing one."""
    j = text.find("'", i)
    if j < 0:
        raise LexError("unterminated single quote")
    return j + 1


# The scanners below jump from one character that can matter to the next with a compiled search (C speed)
# instead of looking at every character in Python: the same stops, a third of a 1 MB script's time before
# (issue 18). A search from past the end finds nothing, as the loops they replace ended there.
_ANSI_STOP = re.compile(r"[\\']")
_DOUBLE_STOP = re.compile(r'[\\"$`]')
_BACKTICK_STOP = re.compile(r"[\\`]")
_BRACE_STOP = re.compile(r"[\\'\"$`{}]")
# what read_word stops at: an escape, a metacharacter (META), a quote, ``$`` or a backquote
_WORD_STOP = re.compile(r"[\\ \t\n;&|<>()'\"$`]")


def skip_ansi(text: str, i: int) -> int:
    """``i`` just after ``$'``: index after the closing ``'`` (backslash escapes the quote)."""
    search = _ANSI_STOP.search
    while (m := search(text, i)) is not None:
        i = m.start()
        if text[i] == "\\":
            i += 2
            continue
        return i + 1
    raise LexError("unterminated $'...'")


def skip_double(text: str, i: int) -> int:
    """``i`` just after an opening ``"``: index after the closing one."""
    n = len(text)
    search = _DOUBLE_STOP.search
    while (m := search(text, i)) is not None:
        i = m.start()
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "$":
            i = skip_dollar(text, i) if i + 1 < n and text[i + 1] in "({" else i + 1
        else:  # a backquote
            i = skip_backtick(text, i + 1)
    raise LexError("unterminated double quote")


def skip_backtick(text: str, i: int) -> int:
    search = _BACKTICK_STOP.search
    while (m := search(text, i)) is not None:
        i = m.start()
        if text[i] == "\\":
            i += 2
        else:
            return i + 1
    raise LexError("unterminated backquote")


def skip_dollar(text: str, i: int) -> int:
    """``i`` at ``$`` of ``$(``, ``$((`` or ``${``: index after the matching close."""
    if text.startswith("${", i):
        return skip_braces(text, i + 2)
    if text.startswith("$(", i):
        return skip_parens(text, i + 2)
    return i + 1


def skip_quoted(text: str, i: int, end: int, *, ansi: bool, backtick: bool) -> int:
    """If ``text[i]`` opens an escape, a quote or an expansion, the index just after it; else ``i``.

    Scanners that look for an unquoted character (a brace, a comma, a delimiter) skip these regions
    alike; ``ansi`` adds ``$'...'`` and ``backtick`` adds backquotes for the scanners that honour them.
    """
    c = text[i]
    if c == "\\":
        return i + 2
    if c == "'":
        return skip_single(text, i + 1)
    if c == '"':
        return skip_double(text, i + 1)
    if c == "$" and i + 1 < end and text[i + 1] in "({":
        return skip_dollar(text, i)
    if ansi and c == "$" and i + 1 < end and text[i + 1] == "'":
        return skip_ansi(text, i + 2)
    if backtick and c == "`":
        return skip_backtick(text, i + 1)
    return i


# a `${...}` body with nothing in it that skip_braces's loop would skip or count (`${PORT_7:+x}`), then `}`
_PLAIN_BRACES = re.compile(r"[^\\'\"$`{}]*\}")


def skip_braces(text: str, i: int) -> int:
    """``i`` just after ``${``: index after the matching ``}``."""
    m = _PLAIN_BRACES.match(text, i)
    if m is not None:
        return m.end()  # the loop's first stop is this `}`, at depth 1 (issue 18: most bodies)
    return _skip_braces(text, i)


def _skip_braces(text: str, i: int) -> int:
    depth = 1
    n = len(text)
    search = _BRACE_STOP.search
    while (m := search(text, i)) is not None:
        i = m.start()  # any other character was neither skipped by skip_quoted nor a brace
        skipped = skip_quoted(text, i, n, ansi=False, backtick=True)
        if skipped != i:
            i = skipped
            continue
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise LexError("unterminated ${")


def _keyword_at(text: str, i: int, word: str) -> bool:
    """``word`` stands at ``i`` as a whole word (a reserved word where a command may start)."""
    j = i + len(word)
    return text.startswith(word, i) and (j >= len(text) or text[j] in " \t\n;|&()<>")


# what can change skip_parens's reading besides the parentheses themselves
_PARENS_STOP = re.compile(r"[\\'\"$`#]|case")
_PAREN = re.compile(r"[()]")


def skip_parens(text: str, i: int) -> int:
    """``i`` just after ``$(``: index after the matching ``)``.

    A ``case`` inside counts too: the ``)`` after each pattern (``a) ...;;``) does not close the
    substitution, as in bash, which parses the whole command list inside ``$(...)``."""
    # Up to the first quote, escape, expansion, comment or `case`, only parentheses count (`$((1 + 2))`,
    # `$(hostname)`): find the matching one with a compiled search; past that point, read it all below.
    stop = _PARENS_STOP.search(text, i)
    depth = 1
    for m in _PAREN.finditer(text, i, len(text) if stop is None else stop.start()):
        if text[m.start()] == "(":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.start() + 1
    return _skip_parens_chars(text, i)


def _skip_parens_chars(text: str, i: int) -> int:
    depth = 1
    n = len(text)
    at_word_start = True
    cases: list[str] = []  # for each open `case`: "header" (before `in`), "pattern" or "body"
    pattern_parens = 0  # extglob groups `@(a|b)` open in the current pattern
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            at_word_start = False
            continue
        if c == "'":
            i = skip_single(text, i + 1)
            continue
        if c == '"':
            i = skip_double(text, i + 1)
            continue
        if c == "$" and i + 1 < n and text[i + 1] == "'":
            i = skip_ansi(text, i + 2)
            continue
        if c == "$" and i + 1 < n and text[i + 1] in "({":
            i = skip_dollar(text, i)
            continue
        if c == "`":
            i = skip_backtick(text, i + 1)
            continue
        if c == "#" and at_word_start:
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        state = cases[-1] if cases else None
        if at_word_start and state != "header" and _keyword_at(text, i, "case"):
            cases.append("header")
            i += 4
            at_word_start = False
            continue
        if at_word_start and state == "header" and _keyword_at(text, i, "in"):
            cases[-1] = "pattern"
            i += 2
            at_word_start = True
            continue
        if at_word_start and state in ("pattern", "body") and _keyword_at(text, i, "esac"):
            cases.pop()
            i += 4
            at_word_start = False
            continue
        if state == "pattern":
            if c == "(" and (pattern_parens or (i > 0 and text[i - 1] in "@?*+!")):
                pattern_parens += 1
            elif c == ")" and pattern_parens:
                pattern_parens -= 1
            elif c == ")":
                cases[-1] = "body"  # the end of the pattern list: not the substitution's `)`
            # `(` before the first pattern is optional syntax: nothing to count
            at_word_start = c in " \t\n(|"
            i += 1
            continue
        if state == "body" and (text.startswith(";;", i) or text.startswith(";&", i)):
            i += 3 if text.startswith(";;&", i) else 2  # `;;`, `;&` or `;;&`: the next pattern list
            cases[-1] = "pattern"
            at_word_start = True
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        at_word_start = c in " \t\n;|&("
        i += 1
    raise LexError("unterminated $(")


# ---------------------------------------------------------------------------------------------- tokens


@dataclass(slots=True)
class WordTok:
    """A word of a simple command as the lexer cut it from the source, placeholders intact."""

    raw: str  # source text of the word (latin-1, placeholders intact)
    start: int  # absolute offset
    assign: bool = False  # looks like NAME=..., NAME+=..., NAME[i]=...


@dataclass
class RedirTok:
    """A redirection of a simple command: the operator, file descriptor and target, and a here-document's
    body."""

    op: str  # ">", ">>", "<", "&>", "&>>", ">&", "<&", "<<", "<<-", "<<<", "<>", ">|"
    fd: str | None
    target: WordTok | None
    start: int
    heredoc: str | None = None  # body of a here-document
    heredoc_quoted: bool = False


@dataclass(slots=True)
class CommandToks:
    """A simple command's words and redirections as the lexer cut them, and the operator that ended it."""

    words: list[WordTok] = field(default_factory=list)
    redirs: list[RedirTok] = field(default_factory=list)
    # words in source order interleaved with redirects (index into words or redirs)
    end: int = 0
    stopped_at: str | None = None  # an operator that ended the span early (";", "&", "|", ...)


# A word read_word would end at its first stop character, which is a metacharacter other than `(` (that
# one may continue an array or extglob word), or the end: nothing in it that a redirection (`2>`, `{fd}>`,
# `>`, `&>`), an operator or a comment could start with (str.isdigit is true for `²³¹` too).
_SIMPLE_WORD = re.compile(
    r"[^\\ \t\n;&|<>()'\"$`#{0-9\xb2\xb3\xb9][^\\ \t\n;&|<>()'\"$`]*(?=[ \t\n;&|<>)]|$)"
)

# `"$NAME"` or `"${NAME}"` as a whole word that a blank or operator ends (the operand of most tests): what
# read_word's quote and brace scanners would find, in one match (a redirection never starts with `"`)
_QUOTED_NAME_WORD = re.compile(
    r'"\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)"(?=[ \t\n;&|<>)]|$)'
)

_REDIR_OPS = ("&>>", "&>", "<<<", "<<-", ">>", ">|", ">&", "<&", "<<", "<>", ">", "<")


def read_word(text: str, i: int, end: int, cond: bool = False) -> int:
    """Read one word starting at ``i``; return the index after it."""
    start = i
    search = _WORD_STOP.search
    while i < end:
        m = search(text, i, end)
        if m is None:  # word characters up to ``end``
            i = end
            break
        i = m.start()
        c = text[i]
        if c == "\\":
            if i + 1 < end and text[i + 1] == "\n":
                i += 2
                continue
            i += 2
            continue
        if c in META:
            if c == "(" and i > start:
                # NAME=( array ) or extglob @(...): read the parenthesised part as part of the word
                prefix = text[start:i]
                if (ASSIGN_RE.match(prefix) and prefix.endswith("=")) or prefix[-1:] in "@?*+!":
                    i = _skip_array(text, i + 1, end)
                    continue
            if (c == "<" or c == ">") and i == start and i + 1 < end and text[i + 1] == "(" and not cond:
                i = skip_parens(text, i + 2)
                continue
            break
        if c == "'":
            i = skip_single(text, i + 1)
        elif c == '"':
            i = skip_double(text, i + 1)
        elif c == "$" and i + 1 < end and text[i + 1] == "'":
            i = skip_ansi(text, i + 2)
        elif c == "$" and i + 1 < end and text[i + 1] in "({":
            i = skip_dollar(text, i)
        elif c == "`":
            i = skip_backtick(text, i + 1)
        else:
            i += 1
    return min(i, max(end, i))


def _skip_array(text: str, i: int, end: int) -> int:
    """``i`` after the ``(`` of an array literal: index after the matching ``)``."""
    depth = 1
    while i < end:
        skipped = skip_quoted(text, i, end, ansi=True, backtick=True)
        if skipped != i:
            i = skipped
            continue
        c = text[i]
        if c == "#" and (text[i - 1] in " \t\n("):
            j = text.find("\n", i)
            i = end if j < 0 else j
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise LexError("unterminated array literal")


def tokenize_command(
    text: str, start: int, end: int, cond: bool = False, multiline: bool = False, read_heredocs: bool = True
) -> CommandToks:
    """Split the simple command in ``text[start:end]`` into words and redirections, as bash would.

    A here-document whose body comes after the span (its line goes on after it, ``cat <<EOF | x``) gets
    the body read ahead for its text (:func:`register_read_ahead`); ``read_heredocs=False`` reads none."""
    out = CommandToks()
    i = start
    pending_heredocs: list[RedirTok] = []
    seen_command_word = False
    while i < end:
        c = text[i]
        if c in BLANK:
            i += 1
            continue
        if c == "\\" and i + 1 < end and text[i + 1] == "\n":
            i += 2
            continue
        if c == "\n":
            i += 1
            if pending_heredocs and read_heredocs:
                i = read_heredoc_bodies(text, i, end, pending_heredocs)
                pending_heredocs = []
            if not cond and not multiline:
                # an unescaped newline ends a simple command (whatever span tree-sitter gave us)
                out.stopped_at = "\n"
                break
            continue
        if c == "#" and (i == start or text[i - 1] in " \t\n"):
            j = text.find("\n", i, end)
            i = end if j < 0 else j
            continue
        if cond:
            two = text[i : i + 2]
            if two in ("&&", "||"):
                out.words.append(WordTok(two, i))
                i += 2
                continue
            if c in "()<>":
                out.words.append(WordTok(c, i))
                i += 1
                continue
            if c in ";&|":
                out.stopped_at = c
                break
        wend = -1
        if not cond:
            m_simple = _SIMPLE_WORD.match(text, i, end)
            if m_simple is not None:
                # a word of plain characters that a blank or operator ends (most words): what the
                # redirection test and read_word below would find, without them
                wend = m_simple.end()
            elif c == '"':
                m_quoted = _QUOTED_NAME_WORD.match(text, i, end)
                if m_quoted is not None:
                    wend = m_quoted.end()
        if wend < 0:
            # redirection?
            tok_start = i
            j = i
            fd: str | None = None
            if c.isdigit():
                while j < end and text[j].isdigit():
                    j += 1
                if j < end and text[j] in "<>":
                    fd = text[i:j]
                else:
                    j = i
            elif c == "{":
                m = re.match(r"\{([A-Za-z_][A-Za-z0-9_]*)\}(?=[<>])", text[i:end])
                if m:
                    fd = "{" + m.group(1) + "}"
                    j = i + m.end()
            op = None
            if not cond and j < end and text[j] in "<>&":
                op = next((o for o in _REDIR_OPS if text.startswith(o, j)), None)
            if op and not (text.startswith("<(", j) or text.startswith(">(", j)):
                k = j + len(op)
                # blanks and backslash-newlines before the target: bash removes a line continuation before
                # it cuts words, so `> \<newline>  server.log` writes server.log (was: a target `\`, and
                # server.log an argument of the server)
                while k < end and (text[k] in BLANK or text.startswith("\\\n", k)):
                    k += 2 if text[k] == "\\" else 1
                # a process substitution is a target (`> >(tee -a log)`), an operator is not
                if k >= end or (text[k] in "\n;&|<>()" and not text.startswith(("<(", ">("), k)):
                    tgt = None
                    i = k
                else:
                    kend = read_word(text, k, end)
                    tgt = WordTok(text[k:kend], k)
                    i = kend
                r = RedirTok(op, fd, tgt, tok_start)
                out.redirs.append(r)
                if op in ("<<", "<<-") and tgt is not None:
                    pending_heredocs.append(r)
                continue
            if c in ";&|()":
                out.stopped_at = c
                break
            if c in "<>" and not text.startswith("(", i + 1):  # `<(...)` is a word: a process substitution
                out.stopped_at = c
                break
            wend = read_word(text, i, end, cond)
            if wend == i:
                wend = i + 1
        raw = text[i:wend]
        w = WordTok(raw, i)
        if not seen_command_word and assign_parts(raw) is not None:
            w.assign = True
        else:
            seen_command_word = True
        out.words.append(w)
        i = wend
    out.end = i
    if pending_heredocs and read_heredocs and _READ_AHEAD:
        ahead = _READ_AHEAD.get(id(text))
        if ahead is not None and ahead[0] is text:
            for r in pending_heredocs:
                if r.heredoc is None and r.start in ahead[1]:
                    r.heredoc, r.heredoc_quoted = ahead[1][r.start]
    return out


# here-document bodies read ahead per script text (heredoc_lines): id(text) -> (text, {redirection start:
# (body, quoted)}); the text is kept so that an id is never taken for another text's
_READ_AHEAD: dict[int, tuple[str, dict[int, tuple[str, bool]]]] = {}


def register_read_ahead(text: str, bodies: dict[int, tuple[str, bool]]) -> None:
    """Remember the bodies of here-documents whose line goes on after them, for ``tokenize_command``."""
    _READ_AHEAD.pop(id(text), None)
    if len(_READ_AHEAD) >= 64:
        del _READ_AHEAD[next(iter(_READ_AHEAD))]  # the oldest text's
    _READ_AHEAD[id(text)] = (text, bodies)


def read_heredoc_bodies(text: str, i: int, end: int, docs: list[RedirTok]) -> int:
    """Read the bodies of ``docs`` in order from ``i`` (the line after their operators); the offset after."""
    for r in docs:
        assert r.target is not None
        delim_raw = r.target.raw
        quoted = any(q in delim_raw for q in "'\"\\")
        delim = delim_raw.replace("'", "").replace('"', "").replace("\\", "")
        lines: list[str] = []
        while i < len(text):
            j = text.find("\n", i)
            line = text[i:] if j < 0 else text[i:j]
            i = len(text) if j < 0 else j + 1
            check = line.lstrip("\t") if r.op == "<<-" else line
            if check == delim:
                break
            lines.append(check if r.op == "<<-" else line)
        r.heredoc = "\n".join(lines) + ("\n" if lines else "")
        r.heredoc_quoted = quoted
    return i


def split_words(text: str) -> list[WordTok]:
    """Split a command string (``eval``'s argument, ``bash -c``) into words, for a quick look."""
    toks = tokenize_command(text, 0, len(text))
    return toks.words
