"""Edits of one word at a finding's position: a look-alike character, a byte order mark, a value that is
not one of the choices, a stray value, a help flag, a ``--config=FILE`` word, an expansion or JSON that
needs quotes. As in ``edits.py``, the word is re-read from the file; nothing is edited where the file does
not hold what the finding describes."""

from __future__ import annotations

import re
import shlex

from argtrace.fixes.edits import Proposal, SourceFile, parse_at
from argtrace.model import Finding, FixEdit, Report


def word_end(line: str, start: int) -> int:
    """The index just after the shell word that starts at ``start`` (quotes and backslashes respected)."""
    i, quote = start, None
    while i < len(line):
        char = line[i]
        if quote is not None:
            if char == quote:
                quote = None
            elif char == "\\" and quote == '"':
                i += 1
        elif char in "'\"":
            quote = char
        elif char == "\\":
            i += 1
        elif char in " \t\r\n;&|<>()":
            break
        i += 1
    return min(i, len(line.rstrip("\r\n")))


def _at(finding: Finding, source: SourceFile) -> tuple[int, int, str] | None:
    """(line number, 0-based column, line text) of the finding's position, when it has a column."""
    where = parse_at(finding.at)
    if where is None or where[2] is None:
        return None
    line = source.line(where[1])
    if line is None or where[2] - 1 >= len(line):
        return None
    return where[1], where[2] - 1, line


def _edit(source: SourceFile, number: int, start: int, end: int, replacement: str) -> FixEdit:
    return FixEdit(source.label, f"{number}:{start + 1}", f"{number}:{end + 1}", replacement)


def _where(source: SourceFile, number: int, col: int) -> str:
    return f"{source.label}:{number}:{col + 1}"


def lookalike(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """SH006: the character at the position becomes the ASCII one the finding names."""
    found = _at(finding, source)
    match = re.search(r"with `([^`]+)`", finding.fix or "")
    if found is None or match is None:
        return None
    number, col, line = found
    if line[col].isascii():
        return None
    ascii_text = match.group(1)
    return Proposal(
        (_edit(source, number, col, col + 1, ascii_text),),
        f"Replace U+{ord(line[col]):04X} at {_where(source, number, col)} with `{ascii_text}`.",
    )


def byte_order_mark(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """SH027: delete the BOM before the first line."""
    if not source.text.startswith("\ufeff"):
        return None
    quoted = shlex.quote(source.label)
    return Proposal(
        (FixEdit(source.label, "1:1", "1:2", ""),),
        f"Save {source.label} as UTF-8 without BOM (`sed -i '1s/^\\xEF\\xBB\\xBF//' {quoted}`).",
    )


def _value_after_flag(line: str, col: int) -> tuple[int, int] | None:
    """The span of the value of the flag at ``col``: after ``=`` in the same word, else the next word."""
    end = word_end(line, col)
    word = line[col:end]
    if "=" in word:
        start = col + word.index("=") + 1
        return start, end
    rest = line[end:]
    blanks = len(rest) - len(rest.lstrip(" \t"))
    start = end + blanks
    if start >= len(line.rstrip("\r\n")) or line[start] == "\\":
        return None
    return start, word_end(line, start)


def nearest_choice(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """PA009: the value becomes the choice it is closest to (``extra-buffer`` -> ``extra_buffer``), when one
    choice is clearly meant; the re-check confirms it."""
    found = _at(finding, source)
    match = re.search(r"invalid choice: '([^']*)' \(choose from (.*?)\)", finding.message)
    if found is None or match is None:
        return None
    number, col, line = found
    span = _value_after_flag(line, col)
    if span is None or line[span[0] : span[1]].strip("'\"") != match.group(1):
        return None
    choices = re.findall(r"'([^']*)'", match.group(2))

    def norm(text: str) -> str:
        return text.lower().replace("-", "_")

    # the same choice spelt with dashes or capitals, else one clearly nearest (a guess between two choices,
    # ``buffer`` for no_buffer or extra_buffer, is no fix)
    near = [c for c in choices if norm(c) == norm(match.group(1))]
    if not near:
        import difflib  # only for a value not among the choices (start-up, issue 18)

        near = difflib.get_close_matches(match.group(1), choices, n=2, cutoff=0.85)
    if len(near) != 1:
        return None
    return Proposal(
        (_edit(source, number, span[0], span[1], near[0]),),
        f"Write {near[0]} (one of {', '.join(choices)}) instead of {match.group(1)} at "
        f"{_where(source, number, span[0])}.",
    )


def _delete_word(source: SourceFile, number: int, col: int, line: str) -> FixEdit:
    """The word at ``col`` and the blanks before it."""
    end = word_end(line, col)
    start = col
    while start > 0 and line[start - 1] in " \t":
        start -= 1
    return _edit(source, number, start, end, "")


def stray_value(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """PA022: ``drop 'VALUE'``: delete the value word written after a flag that takes none."""
    found = _at(finding, source)
    match = re.fullmatch(r"drop '([^']*)'", (finding.fix or "").strip())
    if found is None or match is None:
        return None
    number, col, line = found
    if line[col : word_end(line, col)].strip("'\"") != match.group(1):
        return None
    return Proposal(
        (_delete_word(source, number, col, line),),
        f"Delete '{match.group(1)}' at {_where(source, number, col)}: the flag before it takes no value.",
    )


def help_flag(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """PA017: delete the help or version flag."""
    found = _at(finding, source)
    if found is None or (finding.fix or "").strip() != "remove the flag":
        return None
    number, col, line = found
    word = line[col : word_end(line, col)]
    if word not in ("-h", "--help", "--version"):
        return None
    return Proposal(
        (_delete_word(source, number, col, line),),
        f"Delete {word} at {_where(source, number, col)}: it makes the server print and exit.",
    )


def split_word(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """PA025: ``write --config FILE``: the one word ``--config=FILE`` becomes two."""
    found = _at(finding, source)
    match = re.fullmatch(r"write (--?[\w-]+) (\S+)", (finding.fix or "").strip())
    if found is None or match is None:
        return None
    number, col, line = found
    end = word_end(line, col)
    if line[col:end] != f"{match.group(1)}={match.group(2)}":
        return None
    return Proposal(
        (_edit(source, number, col, end, f"{match.group(1)} {match.group(2)}"),),
        f"Write {match.group(1)} {match.group(2)} as two words at {_where(source, number, col)}.",
    )


def quote_word(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """SH008 (an unquoted ``$VAR``) and SH022 (unquoted braces): quote the word at the position, with
    double quotes for an expansion (it must still expand) and single quotes for a literal."""
    found = _at(finding, source)
    if found is None:
        return None
    number, col, line = found
    end = word_end(line, col)
    word = line[col:end]
    if not word or "'" in word or "\\" in word:
        return None
    if finding.code == "SH008":
        if not re.fullmatch(r"\$(\{\w+\}|\w+)", word):
            return None
        quoted = f'"{word}"'
    else:
        # JSON written bare (``{"a":1}``): what the user typed, double quotes included, is the value meant
        if "$" in word or "{" not in word:
            return None
        quoted = f"'{word}'"
    return Proposal(
        (_edit(source, number, col, end, quoted),),
        f"Quote {word} at {_where(source, number, col)}: write {quoted}.",
    )


# the console script's word at or after a TP104 finding's position: a path before it is kept
_CONSOLE_WORD = re.compile(r"(?<![\w./=-])(?:[\w./-]*/)?(?:sglang|vllm)(?=[ \t])")


def insert_serve(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """TP104: ``serve`` written after the ``sglang``/``vllm`` word of the command at the position. Not in
    a container's argv (evidence of the transport layer): the image's name may be the same word."""
    if any(e.layer == "transport" for e in finding.evidence):
        return None
    found = _at(finding, source)
    if found is None:
        return None
    number, col, line = found
    match = _CONSOLE_WORD.search(line, col)
    if match is None:
        return None
    end = match.end()
    return Proposal(
        (_edit(source, number, end, end, " serve"),),
        f"Insert `serve` after `{match.group(0)}` at {_where(source, number, match.start())}."
        + (
            " SGLang releases before 0.5.5 have no `sglang serve`: start those with "
            "`python -m sglang.launch_server` and the same flags."
            if match.group(0).endswith("sglang")
            else ""
        ),
    )


WORD_PRODUCERS = {
    "SH006": lookalike,
    "SH008": quote_word,
    "SH022": quote_word,
    "SH027": byte_order_mark,
    "PA009": nearest_choice,
    "PA017": help_flag,
    "PA022": stray_value,
    "PA025": split_word,
    "TP104": insert_serve,
}
WORD_NOTES = {
    "SH006": "replaces the look-alike character with the ASCII one",
    "SH008": 'double-quotes the expansion (`"$MODEL"`)',
    "SH022": "single-quotes the word with braces",
    "SH027": "deletes the byte order mark",
    "PA009": "writes the choice the value is closest to, when one choice is clearly meant",
    "PA017": "deletes the help or version flag",
    "PA022": "deletes the value written after a flag that takes none",
    "PA025": "writes `--config=FILE` as two words",
    "TP104": "inserts `serve` after the `sglang`/`vllm` word",
}
