"""Edits that fix a finding, computed from the real text of the user's file at the finding's position.

Each producer reads the file the finding points at (as the user typed its path, or ``<-c>``) and returns the
edits and a fix text naming that file and its lines, or nothing: a producer never guesses. An edit whose
text does not match what the file holds at its position is not made (the position is re-read, not trusted).
Whether the edits really fix the finding is decided by re-checking (``argtrace.fixes.verify``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property

from argtrace.model import EnvEdit, Finding, FixEdit, Report


@dataclass(frozen=True)
class SourceFile:
    """One launch file's text, split into lines that keep their ends (``\\r\\n`` stays visible)."""

    label: str
    text: str
    # how the findings name the file when that is not ``label``: a --config path as the command wrote it,
    # relative to the server's directory (``label`` is then the path from here, as edits name it)
    named: str | None = None

    @cached_property
    def _split(self) -> tuple[str, ...]:
        # split once: a fix is made per finding, and a page with 2,000 of them split its text as often
        return tuple(self.text.splitlines(keepends=True))

    @property
    def lines(self) -> list[str]:
        return list(self._split)

    def line(self, number: int) -> str | None:
        lines = self._split
        return lines[number - 1] if 1 <= number <= len(lines) else None


@dataclass(frozen=True)
class Proposal:
    """What a producer found: the edits and the fix text that says them in the user's terms."""

    edits: tuple[FixEdit | EnvEdit, ...]
    fix: str


Producer = Callable[[Finding, SourceFile, Report], "Proposal | None"]


def parse_at(at: str | None) -> tuple[str, int, int | None] | None:
    """``PATH:LINE[:COL]`` as (path, line, col); None for positions without a line (``URL#...``, None)."""
    if not at:
        return None
    match = re.fullmatch(r"(.+?):(\d+)(?::(\d+))?", at)
    if match is None:
        return None
    col = match.group(3)
    return match.group(1), int(match.group(2)), int(col) if col else None


def _body(line: str) -> str:
    """The line without its end (``\\n`` or ``\\r\\n``)."""
    return line.rstrip("\n").removesuffix("\r") if line.endswith("\n") else line


def _pos(line: int, col: int) -> str:
    return f"{line}:{col}"


def _continues(line: str) -> bool:
    """The line ends with an unescaped backslash, so bash joins the next line to it."""
    body = _body(line)
    stripped = body.rstrip("\\")
    return body.endswith("\\") and (len(body) - len(stripped)) % 2 == 1


def _is_comment(line: str) -> bool:
    return _body(line).lstrip(" \t").startswith("#")


# --- shell: a comment inside a continued command, a missing backslash (SH004) ----------------------------


def missing_continuation(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """SH004: the line at ``finding.at`` starts with a flag and the command ended before it.

    Two different causes, two different edits: a comment line inside the continued command (the shipped
    example's: bash ends the command at the comment, whatever backslash follows it) is moved above the
    command; a code line that lacks its trailing backslash gets one."""
    where = parse_at(finding.at)
    if where is None:
        return None
    _, number, _ = where
    lines = source.lines
    if not 2 <= number <= len(lines):
        return None
    above = number - 1  # 1-based number of the line just before the flag line
    comments: list[int] = []
    while above >= 1 and _is_comment(lines[above - 1]):
        comments.insert(0, above)
        above -= 1
    if comments:
        if above < 1 or not _continues(lines[above - 1]):
            return None  # the comments do not sit inside a continued command
        first = above
        while first > 1 and _continues(lines[first - 2]):
            first -= 1
        indent = re.match(r"[ \t]*", lines[first - 1])
        lead = indent.group(0) if indent else ""
        moved = "".join(lead + _body(lines[c - 1]).lstrip(" \t") + _end(lines[c - 1]) for c in comments)
        edits = (
            FixEdit(source.label, _pos(first, 1), _pos(first, 1), moved),
            FixEdit(source.label, _pos(comments[0], 1), _pos(comments[-1] + 1, 1), ""),
        )
        span = f"line {comments[0]}" if len(comments) == 1 else f"lines {comments[0]}-{comments[-1]}"
        return Proposal(
            edits,
            f"Move the comment at {source.label} {span} above the command that starts at line {first}: "
            "inside a continued command a comment ends the command, so the flags after it never reach "
            "the server (a trailing backslash after a comment is part of the comment).",
        )
    previous = lines[number - 2]
    body = _body(previous)
    if not body.strip() or _continues(previous) or body.rstrip(" \t").endswith("\\"):
        return None  # a blank line, or a backslash with blanks after it (SH003's edit)
    col = len(body.rstrip(" \t")) + 1
    return Proposal(
        (FixEdit(source.label, _pos(number - 1, col), _pos(number - 1, len(body) + 1), " \\"),),
        f"End {source.label} line {number - 1} with a backslash (and nothing after it), so that line "
        f"{number} continues the command.",
    )


def _end(line: str) -> str:
    return line[len(_body(line)) :] or "\n"


# --- shell: CRLF line endings (SH002), blanks after a backslash (SH003) ----------------------------------


def crlf(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """SH002: delete the ``\\r`` before every ``\\n`` of the file the finding names."""
    edits = []
    for number, line in enumerate(source.lines, start=1):
        if line.endswith("\r\n"):
            col = len(line) - 1  # 1-based column of the "\r"
            edits.append(FixEdit(source.label, _pos(number, col), _pos(number, col + 1), ""))
    if not edits:
        return None
    quoted = _shell_quote(source.label)
    return Proposal(
        tuple(edits),
        f"Convert {source.label} to Unix line endings: `sed -i 's/\\r$//' {quoted}` "
        f"(or `dos2unix {quoted}`).",
    )


def bash_shebang(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """SH052: the first line, which gives the script to sh, made ``#!/bin/bash``."""
    lines = source.lines
    if not lines or not lines[0].startswith("#!"):
        return None
    body = _body(lines[0])
    return Proposal(
        (FixEdit(source.label, _pos(1, 1), _pos(1, len(body) + 1), "#!/bin/bash"),),
        f"Make the first line of {source.label} `#!/bin/bash` (it is `{body}`), or run it with "
        f"`bash {_shell_quote(source.label)}`.",
    )


def blanks_after_backslash(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """SH003: delete the blanks between the continuation backslash and the end of its line."""
    where = parse_at(finding.at)
    if where is None:
        return None
    line = source.line(where[1])
    if line is None:
        return None
    body = _body(line)
    trimmed = body.rstrip(" \t")
    if len(trimmed) == len(body) or not _continues(trimmed):
        return None
    return Proposal(
        (FixEdit(source.label, _pos(where[1], len(trimmed) + 1), _pos(where[1], len(body) + 1), ""),),
        f"Delete the blanks after the backslash at the end of {source.label} line {where[1]}, so that `\\` "
        "is the last character of the line.",
    )


def _shell_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


# --- parser: a misspelt, renamed or other-framework flag (PA001-PA005, PA007, PA014-PA016) ---------------

# The replacement named in the finding's own fix text: "use --x", "write --x", "write --x in full".
_FLAG_FIX = re.compile(r"(?:use|write|switch to) (--?[A-Za-z0-9][\w.-]*)(?: in full)?")


def renamed_flag(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """Replace the flag written at ``finding.at`` by the one the finding names (its fix text, which the
    parser layer fills from the release's own option table: the nearest flag, the replacement, the other
    framework's spelling)."""
    match = _FLAG_FIX.fullmatch((finding.fix or "").strip())
    where = parse_at(finding.at)
    if match is None or where is None:
        return None
    new = match.group(1)
    if where[2] is None:
        found = _flag_in_manifest(finding, source, where[1], new)
        if found is None:
            return None
        number, col, old = found
    else:
        number, col = where[1], where[2]
        line = source.line(number)
        written = re.match(r"-{1,2}[A-Za-z0-9][\w.-]*", line[col - 1 :]) if line is not None else None
        if written is None or written.group(0) == new:
            return None
        old = written.group(0)
        switch = _takes_no_value(report, old)
        given = switch and _already_given(report, finding, new)
        if switch and not given and not _takes_no_value(report, new):
            # a switch renamed into an option that takes a value (`--enable-reasoning` ->
            # `--reasoning-parser NAME`): which value is the user's choice, so no edit is offered
            return None
        if given:
            # `--enable-reasoning --reasoning-parser deepseek_r1`: the replacement is on the command already,
            # so writing it again would take the next flag as its value; the old switch just goes
            end = col + len(old)
            while line is not None and end - 1 < len(line) and line[end - 1] in " \t":
                end += 1
            return Proposal(
                (FixEdit(source.label, _pos(number, col), _pos(number, end), ""),),
                f"Delete {old} at {source.label}:{number}:{col}: {new} is given already.",
            )
    return Proposal(
        (FixEdit(source.label, _pos(number, col), _pos(number, col + len(old)), new),),
        f"Write {new} instead of {old} at {source.label}:{number}:{col}.",
    )


def _already_given(report: Report, finding: Finding, flag: str) -> bool:
    """``flag`` (or ``flag=VALUE``) is a word of the server command the finding is about: the last one
    that starts at or above the finding's line in its file (a continued command spans lines)."""
    found = parse_at(finding.at)
    if found is None:
        return False
    starts = [
        (where[1], server)
        for server in report.servers
        if (where := parse_at(server.at)) is not None and where[0] == found[0] and where[1] <= found[1]
    ]
    if not starts:
        return False
    server = max(starts, key=lambda pair: pair[0])[1]
    return any(w.text is not None and (w.text == flag or w.text.startswith(flag + "=")) for w in server.argv)


def _takes_no_value(report: Report, flag: str) -> bool:
    """Every bundled release that knows ``flag`` takes it without a value (a switch)."""
    from argtrace.frameworks.schema import takes_no_value

    return report.framework.name is not None and takes_no_value(report.framework.name, flag)


def _flag_in_manifest(
    finding: Finding, source: SourceFile, first: int, new: str
) -> tuple[int, int, str] | None:
    """A compose or Kubernetes command's words all point at the list's line: the flag the message names is
    the first whole YAML item (``- --flag``, ``"--flag"``, ``--flag=...``) from that line on."""
    names = [n for n in re.findall(r"(?<![\w-])-{1,2}[A-Za-z0-9][\w.-]*", finding.message) if n != new]
    if not names:
        return None
    old = names[0]
    token = re.compile(r"(?<![\w.-])" + re.escape(old) + r"(?![\w.-])")
    for number, line in enumerate(source.lines[first - 1 :], start=first):
        hit = token.search(line)
        if hit is not None and not _is_comment(line):
            return number, hit.start() + 1, old
    return None


# --- process: a renamed framework environment variable (PR001, PR002) ------------------------------------

_VAR_FIX = re.compile(r"use ([A-Z_][A-Z0-9_]*)")


def renamed_variable(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """Rename the variable assigned at ``finding.at`` to the name the release reads.

    Only a pure rename is an edit: when the names differ in more than the prefix (``SGL_DISABLE_X`` read
    now as ``SGLANG_ENABLE_X``), the same value would mean the opposite, so the fix stays a text."""
    where = parse_at(finding.at)
    inverted = _INVERTED_FIX.fullmatch((finding.fix or "").strip())
    if inverted is not None and where is not None:
        return _inverted_variable(inverted, where[1], source)
    match = _VAR_FIX.fullmatch((finding.fix or "").strip())
    if match is None or where is None:
        return None
    new = match.group(1)
    line = source.line(where[1])
    if line is None:
        return None
    olds = [m for m in re.finditer(r"\b([A-Z_][A-Z0-9_]*)=", line) if m.group(1) in finding.message]
    if len(olds) != 1:
        return None
    old = olds[0].group(1)
    if not renames_alike(finding.code, old, new, finding.message):
        return None
    col = olds[0].start(1) + 1
    return Proposal(
        (FixEdit(source.label, _pos(where[1], col), _pos(where[1], col + len(old)), new),),
        f"Rename {old} to {new} at {source.label}:{where[1]}:{col}.",
    )


# PR002 for a rename of the opposite sense (layers/renamed_env.py): the new name with the opposite value.
_INVERTED_FIX = re.compile(r"write ([A-Z_][A-Z0-9_]*)=(\S+) instead of ([A-Z_][A-Z0-9_]*)=(\S+)")


def _inverted_variable(match: re.Match[str], line_no: int, source: SourceFile) -> Proposal | None:
    """Replace ``OLD=VALUE`` (exactly as written, unquoted) by ``NEW=OPPOSITE`` on the finding's line."""
    new, opposite, old, value = match.groups()
    line = source.line(line_no)
    if line is None:
        return None
    hits = [m for m in re.finditer(rf"\b{re.escape(old)}=(\S*)", line) if m.group(1) == value]
    if len(hits) != 1:
        return None
    col = hits[0].start() + 1
    return Proposal(
        (
            FixEdit(
                source.label,
                _pos(line_no, col),
                _pos(line_no, col + len(hits[0].group(0))),
                f"{new}={opposite}",
            ),
        ),
        f"Write {new}={opposite} instead of {old}={value} at {source.label}:{line_no}:{col} (the new name "
        "means the opposite).",
    )


def _declared_rename(message: str, old: str, new: str) -> bool:
    """PR001's message says a release renamed one of the two names to the other (layers/process_unread.py's
    ``_renamed_between``): the same setting, in either direction, unless ENABLE/DISABLE flips its sense."""
    if f"renamed {old} to {new}" not in message and f"renamed {new} to {old}" not in message:
        return False
    words = {"ENABLE", "DISABLE"}
    return words & set(old.split("_")) == words & set(new.split("_"))


def renames_alike(code: str, old: str, new: str, message: str = "") -> bool:
    """The value of ``old`` means the same under ``new``. PR001's name is argtrace's nearest guess: a pure
    rename only, unless its ``message`` says a release renamed one to the other. PR002's is the release's own
    declared replacement (``SGLANG_GC_LOG`` -> ``SGLANG_LOG_GC``), read with the same meaning unless
    ENABLE/DISABLE flips it (the value would invert)."""
    if code == "PR001" and _declared_rename(message, old, new):
        return True
    if code == "PR002":
        words = {"ENABLE", "DISABLE"}
        return words & set(old.split("_")) == words & set(new.split("_"))
    return _same_meaning(old, new)


def _same_meaning(old: str, new: str) -> bool:
    """The names differ only in the framework prefix (SGL_ / SGLANG_), or by a small typo."""
    import difflib

    def core(name: str) -> str:
        for prefix in ("SGLANG_", "SGL_", "VLLM_"):
            if name.startswith(prefix):
                return name[len(prefix) :]
        return name

    a, b = core(old), core(new)
    if a == b:
        return True
    flip = {"ENABLE", "DISABLE"}
    if flip & set(a.split("_")) and flip & set(b.split("_")) and set(a.split("_")) != set(b.split("_")):
        return False
    return difflib.SequenceMatcher(None, a, b).ratio() >= 0.85


LINE_PRODUCERS: Mapping[str, Producer] = {
    "SH002": crlf,
    "SH003": blanks_after_backslash,
    "SH052": bash_shebang,
    "SH004": missing_continuation,
    "PA001": renamed_flag,
    "PA002": renamed_flag,
    "PA003": renamed_flag,
    "PA004": renamed_flag,
    "PA005": renamed_flag,
    "PA007": renamed_flag,
    "PA014": renamed_flag,
    "PA015": renamed_flag,
    "PA016": renamed_flag,
    "PR001": renamed_variable,
    "PR002": renamed_variable,
}


# What ``argtrace fix`` edits, per code (the rule pages say it; docs/fixes.md lists the same).
_RENAME = "writes the flag the finding names in place of the one at the finding's position"
LINE_NOTES: Mapping[str, str] = {
    "SH002": "deletes the `\\r` at the end of every line of the file",
    "SH003": "deletes the blanks after the backslash",
    "SH052": "makes the first line `#!/bin/bash`",
    "SH004": "moves a comment that sits inside the continued command above the command; otherwise adds the "
    "missing backslash to the line before",
    **{code: _RENAME for code in LINE_PRODUCERS if code.startswith("PA")},
    "PR001": "renames the variable to the one the release reads, when the two differ only in the prefix or "
    "a typo, or another release renamed one to the other (then, when ENABLE/DISABLE flips its meaning, with "
    "the opposite boolean value)",
    "PR002": "renames the variable to the replacement the release declares, in the script, an env file or a "
    "compose/Kubernetes `env`; when ENABLE/DISABLE flips its meaning (`SGL_DISABLE_X=1` read now as "
    "`SGLANG_ENABLE_X`, which SGLang fills with the old value as it is) it writes the new name with the "
    "opposite boolean value (`SGLANG_ENABLE_X=0`) in the script, and nothing for a value that is not a "
    "boolean",
    "RS001": "for SGLang's Mamba radix-cache refusal: the edit of the shell hazard that cut "
    "`extra_buffer` off, else the strategy flag with `extra_buffer`, else `--disable-radix-cache`, whichever "
    "the framework's own resolution, re-run, accepts first",
}
