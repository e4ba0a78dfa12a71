"""Edits of a flag's value or of a repeated flag (issue 13's "more codes"), the causes users hit most in the
test cases: an unset or empty variable that makes a flag lose its value (SH007, SH026), a flag written
without its value (PA012), a flag given twice (PA006), standard error redirected before standard output
(SH010). (PA024, a flag a later release drops, has no edit:
where the analysed release already has the new spelling it reports the old one as deprecated, PA005, whose
edit renames it.)

A default comes from the analysed release's own option table (``--port`` -> 30000 in SGLang): the edit
makes the launch start the way the framework would without the flag, and the fix text says it is the
default so that the user can put the value meant instead. The re-check has the last word.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from argtrace.fixes.edits import Producer, Proposal, SourceFile, parse_at
from argtrace.fixes.words import word_end
from argtrace.model import Finding, FixEdit, Report


def _default(report: Report, flag: str) -> str | None:
    """The analysed release's default for ``flag`` as one shell-safe word, or None (no default, a flag
    without a value, a list or text with blanks: nothing to write)."""
    from argtrace.frameworks.schema import choose_schema

    name, release = report.framework.name, report.framework.release
    if name is None or release is None:
        return None
    try:
        spec = choose_schema(name, release)[0].option(flag)
    except Exception:  # an unknown release: no default argtrace can vouch for
        return None
    if spec is None or spec.action != "store" or spec.nargs not in (None, "?"):
        return None
    if _NAMES_A_MODEL.search(spec.dest):
        # What the server serves is no default to fall back on: vLLM's `--model` defaults to its demo model
        # (facebook/opt-125m), which a launch that lost its model must not quietly start instead.
        return None
    default = spec.default
    if default is None or isinstance(default, (bool, list, dict, tuple)):
        return None
    text = str(default)
    return text if re.fullmatch(r"[\w.:/@+-]+", text) else None


# dests that name what the server loads or serves: model, model_path, tokenizer, served_model_name,
# speculative_draft_model_path, ...
_NAMES_A_MODEL = re.compile(r"(?:^|_)(?:model|tokenizer)(?:_|$)")


def _edit(source: SourceFile, number: int, start: int, end: int, text: str) -> FixEdit:
    return FixEdit(source.label, f"{number}:{start + 1}", f"{number}:{end + 1}", text)


def _flag_at(
    finding: Finding, source: SourceFile, find: Callable[[str], re.Match[str] | None]
) -> tuple[re.Match[str], int, str, int] | None:
    """The flag ``find`` reads in the finding's message and the finding's place in ``source``: (the match,
    the line number, that line, the 0-based column); ``None`` unless the finding has all of them."""
    where = parse_at(finding.at)
    flag = find(finding.message)
    if where is None or where[2] is None or flag is None:
        return None
    line = source.line(where[1])
    if line is None:
        return None
    return flag, where[1], line, where[2] - 1


# --- SH007 / SH026: `--port $2` with $2 unset, `--port $PORT` with PORT empty ------------------------------

# "takes `--host` as its value" (a flag follows), "gets no value" (the command ends there)
_TAKES = re.compile(r"`(--?[\w-]+)` (?:takes `[^`]*` as its value|gets no value)")
_EXPANSION = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def lost_value(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """The bare ``$NAME`` at the position becomes ``${NAME:-DEFAULT}``: unset or empty, the flag gets the
    framework's default instead of the next flag as its value (or of no value, at the command's end)."""
    found = _flag_at(finding, source, _TAKES.search)
    if found is None:
        return None
    flag, number, line, col = found
    word = line[col : word_end(line, col)]
    match = _EXPANSION.fullmatch(word)
    default = _default(report, flag.group(1))
    if match is None or default is None:
        return None
    name = match.group(1) or match.group(2)
    new = f"${{{name}:-{default}}}"
    instead = "no value" if flag.group(0).endswith("gets no value") else "the next flag"
    return Proposal(
        (_edit(source, number, col, col + len(word), new),),
        f"Write {new} at {source.label}:{number}:{col + 1}: when ${name} is unset or empty, "
        f"{flag.group(1)} gets {report.framework.name}'s default, {default}, instead of {instead} (or "
        f"pass the value meant: `${{{name}:?...}}` stops early instead).",
    )


# --- TP012: compose's `--port ${PORT}` with PORT unset where compose runs --------------------------------

_COMPOSE_REF = re.compile(r"(?<!\$)\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*)(?![\w{]))")


def compose_default(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """TP012 on a compose ``command:``/``entrypoint:`` word after a flag: the reference ``${NAME}`` (or
    ``$NAME``) becomes ``${NAME:-DEFAULT}`` with the release's default for the flag, compose's own default
    syntax (Compose specification, Interpolation: "`${VAR:-default}` -> value of VAR if set and non-empty,
    otherwise default"); only where the reference is written once on the finding's line. Kubernetes'
    ``$(NAME)`` has no default syntax, and a required ``${NAME:?err}`` means the user wants no default."""
    where = parse_at(finding.at)
    first = finding.evidence[0].text if finding.evidence else ""
    flag = re.fullmatch(r"(--?[\w-]+) (\S.*)", first)
    if where is None or flag is None or "is required (`?`)" in finding.message:
        return None
    if not source.label.lower().endswith((".yaml", ".yml")):
        return None
    name = (finding.evidence[1].text if len(finding.evidence) > 1 else "").strip()
    line = source.line(where[1]) or ""
    hits = [m for m in _COMPOSE_REF.finditer(line) if name in (m.group(1), m.group(2))]
    default = _default(report, flag.group(1))
    if len(hits) != 1 or default is None:
        return None
    hit = hits[0]
    new = f"${{{name}:-{default}}}"
    return Proposal(
        (_edit(source, where[1], hit.start(), hit.end(), new),),
        f"Write {new} at {source.label}:{where[1]}:{hit.start() + 1}: when {name} is unset or empty where "
        f"`docker compose` runs, {flag.group(1)} gets {report.framework.name}'s default, {default} (or set "
        f"{name} there or in .env; `${{{name}:?...}}` makes compose stop instead).",
    )


# --- PA012: `--port --host 0.0.0.0` ------------------------------------------------------------------------

_NEEDS = re.compile(r"(--?[\w-]+) needs a value but gets none")


def missing_value(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """A flag written with nothing after it but another flag (or the command's end) gets the framework's
    default written after it; never where an expansion follows (that is SH007/SH026's, whose edit fixes
    it)."""
    found = _flag_at(finding, source, _NEEDS.match)
    if found is None:
        return None
    flag, number, line, col = found
    end = word_end(line, col)
    if line[col:end] != flag.group(1):
        return None
    rest = line[end:].rstrip("\r\n").lstrip(" \t")
    if rest and not rest.startswith(("-", "\\", ";", "&", "|", "#")):
        return None  # a word follows that is not a flag: the value vanished from it, not from the file
    if rest.split(None, 1)[0].split("=", 1)[0] == flag.group(1) if rest else False:
        # `--port --port 8000`: the flag is written again at once with its value, which is the one meant;
        # the first, empty one is what stops argparse
        stop = len(line) - len(line[end:].lstrip(" \t"))
        return Proposal(
            (_edit(source, number, col, stop, ""),),
            f"Delete the first {flag.group(1)} at {source.label}:{number}:{col + 1}: it is written again "
            "right after it with its value, the one meant.",
        )
    default = _default(report, flag.group(1))
    if default is None:
        return None
    return Proposal(
        (_edit(source, number, end, end, f" {default}"),),
        f"Give {flag.group(1)} its value at {source.label}:{number}:{end + 1}: {default} is "
        f"{report.framework.name}'s default (write the one meant).",
    )


# --- PA006: `--port 30000 --port 30001` --------------------------------------------------------------------

_TIMES = re.compile(r"(--?[\w-]+) is given (\d+) times \((.*)\); argparse keeps the last")


def repeated_flag(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """Every occurrence but the last is deleted: argparse keeps the last, so the launch means the same and
    says it once. Only occurrences written literally on the finding's line or the lines of its command."""
    where = parse_at(finding.at)
    match = _TIMES.match(finding.message)
    if where is None or match is None:
        return None
    flag = match.group(1)
    given = [g.strip() for g in match.group(3).split(", ")]
    if len(given) != int(match.group(2)) or len(given) < 2:
        return None
    lines = source.lines
    first = where[1]
    if not 1 <= first <= len(lines):
        return None
    while first > 1 and lines[first - 2].rstrip("\r\n").endswith("\\"):
        first -= 1  # the command's first line
    edits: list[FixEdit] = []
    # where the next occurrence is looked for: after the previous one, which may be on the same line
    start_line, start_col = first, 0
    for occurrence in given[:-1]:
        value = occurrence[len(flag) :].lstrip(" =")
        shape = re.escape(flag) + (r"(?:[ \t]+|=)" + re.escape(value) if value else "")
        pattern = re.compile(r"(?<![\w-])" + shape + r"(?![\w.:/-])")
        found = None
        for number in range(start_line, min(len(lines), where[1] + 50) + 1):
            hit = pattern.search(lines[number - 1], start_col if number == start_line else 0)
            if hit is not None:
                found = (number, hit)
                break
        if found is None:
            return None
        number, hit = found
        line = lines[number - 1]
        begin = hit.start()
        while begin > 0 and line[begin - 1] in " \t":
            begin -= 1
        body = line.rstrip("\r\n")
        if (
            re.fullmatch(r"[ \t]*", line[:begin])
            and re.fullmatch(r"[ \t]*\\?", body[hit.end() :])
            and number > first
        ):
            edits.append(FixEdit(source.label, f"{number}:1", f"{number + 1}:1", ""))  # the line held only it
        else:
            edits.append(_edit(source, number, begin, hit.end(), ""))
        start_line, start_col = number, hit.end()
    kept = given[-1]
    return Proposal(
        tuple(edits),
        f"Delete {', '.join(given[:-1])} from the command in {source.label} (line {first}): argparse keeps "
        f"the last, {kept}, so the launch says once what it already does.",
    )


# --- SH010: `2>&1 > server.log` ----------------------------------------------------------------------------

_ERR_FIRST = re.compile(r"(?<![\w&>])2>&1([ \t]+)(>>?[ \t]*(?:\"[^\"]*\"|'[^']*'|[^\s;&|<>]+))")


def stderr_order(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """``2>&1 > FILE`` becomes ``> FILE 2>&1`` in the server's command (its first line and the lines it
    continues on): bash applies redirections left to right, so standard error must follow standard output
    into the file."""
    where = parse_at(finding.at)
    if where is None:
        return None
    lines = source.lines
    number = where[1]
    while 1 <= number <= len(lines):
        line = lines[number - 1]
        hits = list(_ERR_FIRST.finditer(line))
        if len(hits) == 1:
            hit = hits[0]
            swapped = f"{hit.group(2)} 2>&1"
            return Proposal(
                (_edit(source, number, hit.start(), hit.end(), swapped),),
                f"Write {swapped} at {source.label}:{number}:{hit.start() + 1}: standard error follows "
                "standard output into the file only when `2>&1` comes after it.",
            )
        if len(hits) > 1 or not line.rstrip("\r\n").endswith("\\"):
            return None
        number += 1
    return None


FLAG_PRODUCERS: Mapping[str, Producer] = {
    "SH007": lost_value,
    "SH026": lost_value,
    "PA012": missing_value,
    "PA006": repeated_flag,
    "SH010": stderr_order,
    "TP012": compose_default,
}
FLAG_NOTES: Mapping[str, str] = {
    "SH007": "writes the bare `$VAR` as `${VAR:-DEFAULT}` with the release's default for the flag",
    "SH026": "writes the bare `$VAR` as `${VAR:-DEFAULT}` with the release's default for the flag",
    "PA012": "writes the release's default after a flag that has no value, when a flag or the end follows",
    "PA006": "deletes every occurrence of the flag but the last (the one argparse keeps)",
    "SH010": "writes `2>&1 > FILE` as `> FILE 2>&1`",
    "TP012": "in a compose `command:`/`entrypoint:`, writes `${VAR}` after a flag as `${VAR:-DEFAULT}` with "
    "the release's default for the flag",
}
