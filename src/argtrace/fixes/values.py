"""Edits of a value or name written in a script, an env file or a manifest, and of a ``--config`` YAML key
(issue 13's leftovers): a repeated GPU in ``CUDA_VISIBLE_DEVICES`` (PR006), quotes an env file hands on
(TP017, and PR009 for the same value) or a compose list-form ``environment:`` item (TP019), a renamed
variable in a compose or Kubernetes ``env`` (PR001/PR002), a flag and its value in one exec-form item
(TP011), an upload's unquoted here-document delimiter (TP007), a misspelt or renamed key of a ``--config``
file (PA001-PA016 at ``cfg.yaml``).

As in ``edits.py`` every edit is re-read from the file: the assignment, key or item must be written there
as the finding describes, and be the only one, or there is no edit.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from argtrace.fixes.edits import Producer, Proposal, SourceFile, parse_at, renames_alike
from argtrace.model import Finding, FixEdit, Report

_YAML = (".yaml", ".yml")


def _is_yaml(source: SourceFile) -> bool:
    return source.label.lower().endswith(_YAML)


def _lines(source: SourceFile) -> Iterator[tuple[int, str]]:
    """(number, text) of the lines that are not comments."""
    for number, line in enumerate(source.lines, start=1):
        if not line.lstrip(" \t").startswith("#"):
            yield number, line


def _edit(source: SourceFile, number: int, start: int, end: int, text: str) -> FixEdit:
    return FixEdit(source.label, f"{number}:{start + 1}", f"{number}:{end + 1}", text)


# --- where a variable is written ---------------------------------------------------------------------------


def _value_span(line: str, start: int) -> tuple[int, int]:
    """The value that starts at ``start`` up to the end of the line's text, an unquoted ``#`` comment or
    (outside quotes) a blank."""
    body = line.rstrip("\r\n")
    if start < len(body) and body[start] in "'\"":
        close = body.find(body[start], start + 1)
        return (start, close + 1) if close > start else (start, len(body))
    end = start
    while end < len(body) and body[end] not in " \t#":
        end += 1
    return start, end


def assignments(source: SourceFile, name: str, line_hint: int | None) -> list[tuple[int, int, int, int]]:
    """Where ``name`` gets its value in ``source``: (line, name start, value start, value end), 0-based
    columns. A script or env file line ``[export ]NAME=VALUE`` at the finding's line; in YAML (whose
    findings point at the command, not at the variable) every ``NAME=VALUE`` item, ``NAME: VALUE`` key and
    ``name: NAME`` followed by its ``value: VALUE``."""
    out: list[tuple[int, int, int, int]] = []
    assign = re.compile(r"(?:^|[\s\"'-])(" + re.escape(name) + r")=")
    if not _is_yaml(source):
        if line_hint is None:
            return []
        line = source.line(line_hint) or ""
        hits = list(assign.finditer(line))
        return [(line_hint, m.start(1), *_value_span(line, m.end())) for m in hits]
    key = re.compile(r"^\s*(?:-\s+)?[\"']?(" + re.escape(name) + r")[\"']?\s*:\s*(?=\S)")
    entry = re.compile(r"^\s*(?:-\s+)?name\s*:\s*[\"']?(" + re.escape(name) + r")[\"']?\s*$")
    value_key = re.compile(r"^\s*value\s*:\s*(?=\S)")
    lines = source.lines
    for number, line in _lines(source):
        item = re.match(r"^\s*-\s+([\"']?)(" + re.escape(name) + r")=", line)
        if (
            item is not None
        ):  # compose `environment:` as a list: `- NAME=VALUE`, the item's quotes around both
            end = len(line.rstrip("\r\n"))
            if item.group(1) and line[:end].endswith(item.group(1)):
                end -= 1
            out.append((number, item.start(2), item.end(), end))
            continue
        found = key.match(line)
        if found is not None:
            out.append((number, found.start(1), *_value_span(line, found.end())))
            continue
        named = entry.match(line)
        if named is not None:
            for offset in (1, 2):  # `value:` is the next key of the same item
                following = lines[number - 1 + offset] if number - 1 + offset < len(lines) else ""
                value = value_key.match(following)
                if value is not None:
                    out.append((number, named.start(1), -(number + offset), value.end()))
                    break
    return out


def _value_edit(
    source: SourceFile, found: tuple[int, int, int, int], new: str
) -> tuple[FixEdit, str, str] | None:
    """The edit that writes ``new`` as the value, quoted as the old one was; with the old value's text and
    the position it is at."""
    number, _, start, end = found
    if start < 0:  # `name:` on one line, `value:` on a later one (Kubernetes env)
        number = -start
        line = source.line(number) or ""
        start, end = _value_span(line, end)
    line = source.line(number) or ""
    old = line[start:end]
    quote = old[0] if old[:1] in ("'", '"') and old.endswith(old[0]) and len(old) >= 2 else ""
    inner_start, inner_end = (start + 1, end - 1) if quote else (start, end)
    if line[inner_start:inner_end] == new:
        return None
    return (
        _edit(source, number, inner_start, inner_end, new),
        line[inner_start:inner_end],
        f"{number}:{inner_start + 1}",
    )


# --- PR006: CUDA_VISIBLE_DEVICES with a repeated or invalid entry ------------------------------------------


def distinct_devices(text: str) -> str | None:
    """Each GPU once and no invalid (``-1``) entry, in the order written; None when nothing is left or
    nothing changes."""
    kept: list[str] = []
    for item in (x.strip() for x in text.split(",")):
        if item and not re.fullmatch(r"-\d+", item) and item not in kept:
            kept.append(item)
    new = ",".join(kept)
    return new if kept and new != text.strip() else None


def visible_devices(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """PR006 where CUDA_VISIBLE_DEVICES is written (the script, an env file, a manifest's env)."""
    name = "CUDA_VISIBLE_DEVICES"
    where = parse_at(finding.at)
    found = assignments(source, name, where[1] if where else None)
    if len(found) != 1:
        return None
    if finding.message == f"{name} is set but empty: the server sees no GPU at all":
        return _drop_empty(source, name, found[0])
    if not finding.message.startswith(f"{name}="):
        return None
    value = finding.message[len(name) + 1 :].split(" ", 1)[0].rstrip(":")
    new = distinct_devices(value)
    made = _value_edit(source, found[0], new) if new else None
    if made is None or made[1] != value:
        return None
    edit, old, at = made
    return Proposal(
        (edit,),
        f"Write {name}={new} at {source.label}:{at} (instead of {old}): each GPU once, no invalid entry.",
    )


def _drop_empty(source: SourceFile, name: str, found: tuple[int, int, int, int]) -> Proposal | None:
    """An empty assignment in a script or env file is deleted (unset, every GPU is visible): a command's
    ``NAME= `` prefix with the blanks after it, or the whole ``[export ]NAME=`` line."""
    number, start, value_start, value_end = found
    line = source.line(number) or ""
    if _is_yaml(source) or value_start != value_end:
        return None
    body = line.rstrip("\r\n")
    before, after = body[:start], body[value_end:]
    if re.fullmatch(r"[ \t]*(?:export[ \t]+)?", before) and not after.strip():
        edit = FixEdit(source.label, f"{number}:1", f"{number + 1}:1", "")
        where = f"{source.label} line {number}"
    elif after[:1] in (" ", "\t") and after.strip():
        blanks = len(after) - len(after.lstrip(" \t"))
        edit = _edit(source, number, start, value_end + blanks, "")
        where = f"{source.label}:{number}:{start + 1}"
    else:
        return None
    return Proposal(
        (edit,),
        f"Delete the empty {name}= at {where}: set but empty it hides every GPU; unset, the server sees "
        "them all.",
    )


# --- TP017 / PR009: quotes that reach the server -----------------------------------------------------------


def unquote(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """TP017 (a quoted value in a ``docker run --env-file``), and PR009 when the wrong type is those quotes:
    the value is written without them. Only where the quotes reached the process (the message shows the
    value with them), never a shell script's ``X="1"`` (bash removes those)."""
    where = parse_at(finding.at)
    match = re.match(r"([A-Z_a-z][A-Z0-9_a-z]*)", finding.message)
    if where is None or match is None or _is_yaml(source):
        return None
    name = match.group(1)
    found = assignments(source, name, where[1])
    if len(found) != 1:
        return None
    number, _, start, end = found[0]
    line = source.line(number) or ""
    raw = line[start:end]
    if len(raw) < 3 or raw[0] not in "'\"" or raw[-1] != raw[0]:
        return None
    if finding.code == "PR009" and not finding.message.startswith(f"{name}={raw}:"):
        return None
    if finding.code == "TP017" and "is quoted" not in finding.message:
        return None
    if finding.code == "TP017" and "and the text after them" in finding.message:
        # docker keeps the note after the closing quote too: the value is the text between the quotes alone
        end = len(line.rstrip("\r\n"))
    return Proposal(
        (_edit(source, number, start, end, raw[1:-1]),),
        f"Write {name}={raw[1:-1]} without quotes at {source.label}:{number}:{start + 1}: an env file for "
        "`docker run --env-file` is read literally, quotes included.",
    )


def compose_unquote(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """TP019: the list-form compose item ``- NAME="value"`` at the finding's line loses the quotes that
    compose would hand on (only a value quoted from end to end, written once on that line)."""
    where = parse_at(finding.at)
    match = re.match(r"([A-Z_a-z][A-Z0-9_a-z]*) in `environment:` is quoted", finding.message)
    if where is None or match is None or not _is_yaml(source):
        return None
    name = match.group(1)
    found = [a for a in assignments(source, name, None) if a[0] == where[1]]
    if len(found) != 1:
        return None
    number, _, start, end = found[0]
    raw = (source.line(number) or "")[start:end]
    if len(raw) < 3 or raw[0] not in "'\"" or raw[-1] != raw[0]:
        return None
    # the value itself, as TP017's text has it: output masks a secret one (the mask the diff shows too);
    # a placeholder word after a secret name would be masked as if it were the value
    return Proposal(
        (_edit(source, number, start, end, raw[1:-1]),),
        f"Write {name}={raw[1:-1]} without quotes at {source.label}:{number}:{start + 1}: compose passes a "
        "list item's value as written, quotes included.",
    )


# --- PR001 / PR002 in a compose or Kubernetes env ----------------------------------------------------------

_VAR_FIX = re.compile(r"use ([A-Z_][A-Z0-9_]*)")


def manifest_variable(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """The variable renamed where the manifest's ``environment:``/``env:`` names it (the finding points at
    the container's command, so the name is looked up, and must be written once)."""
    match = _VAR_FIX.fullmatch((finding.fix or "").strip())
    name = re.match(r"[A-Z_][A-Z0-9_]*", finding.message)
    if not _is_yaml(source) or match is None or name is None:
        return None
    old, new = name.group(0), match.group(1)
    if old == new or not renames_alike(finding.code, old, new, finding.message):
        return None
    found = assignments(source, old, None)
    if len(found) != 1:
        return None
    number, col = found[0][0], found[0][1]
    return Proposal(
        (_edit(source, number, col, col + len(old), new),),
        f"Rename {old} to {new} at {source.label}:{number}:{col + 1}.",
    )


# --- TP011: a flag and its value in one exec-form item -----------------------------------------------------

_TWO_ITEMS = re.compile(
    r"Give the flag and its value as two items: `- (\S+)` and `- (.+?)` \(or write `.+`\)\."
)


def one_item_flag(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """TP011: ``--tp-size 2`` in one list item becomes ``--tp-size=2``, one word argparse splits itself
    (the item's quotes and the list's shape stay; a value with blanks is left alone: it may be two)."""
    match = _TWO_ITEMS.fullmatch((finding.fix or "").strip())
    where = parse_at(finding.at)
    if match is None or where is None or not _is_yaml(source):
        return None
    flag, rest = match.group(1), match.group(2)
    if re.search(r"\s", rest):
        return None
    item = re.compile(r"(?<![\w-])" + re.escape(flag) + r"[ \t]+" + re.escape(rest) + r"(?![\w.-])")
    hits = [(n, m) for n, line in _lines(source) if n >= where[1] for m in item.finditer(line)]
    if not hits:
        return None
    number, hit = hits[0]
    return Proposal(
        (_edit(source, number, hit.start(), hit.end(), f"{flag}={rest}"),),
        f"Write {flag}={rest} at {source.label}:{number}:{hit.start() + 1}: one list item is one argv word, "
        "and argparse splits `--flag=value` itself.",
    )


_ONE_PROGRAM = re.compile(
    r"the `(?:command|entrypoint:?)` (?:list )?item '(.+)' is ONE argv word: no shell splits it"
)


def exec_form_item(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """TP011: a flag and its value in one item (``one_item_flag``), or a whole command line as the one
    item of an exec-form ``command`` (llm-d#1126: ``["vllm serve openai/gpt-oss-20b"]``), which becomes one
    item per word, in the list's own style: ``[vllm, serve, openai/gpt-oss-20b]`` in a flow list, one
    ``- WORD`` line each in a block list. Only a line split into plain words (no quotes, no ``$``, nothing
    YAML would read differently unquoted) is rewritten."""
    flag = one_item_flag(finding, source, report)
    if flag is not None:
        return flag
    match = _ONE_PROGRAM.match(finding.message)
    where = parse_at(finding.at)
    if match is None or where is None or not _is_yaml(source):
        return None
    text = match.group(1)
    words = text.split()
    if not all(re.fullmatch(r"[\w./@+-][\w./@+=:-]*", w) for w in words) or len(words) < 2:
        return None
    line = source.line(where[1]) or ""
    hits = [m for m in re.finditer(r"(['\"]?)" + re.escape(text) + r"\1", line) if m.group(0)]
    if len(hits) != 1:
        return None
    hit = hits[0]
    body = line.rstrip("\r\n")
    block = re.fullmatch(r"([ \t]*)-[ \t]+" + re.escape(hit.group(0)) + r"[ \t]*", body)
    if block is not None:
        indent = block.group(1)
        new = "".join(f"{indent}- {w}\n" for w in words)
        edit = FixEdit(source.label, f"{where[1]}:1", f"{where[1] + 1}:1", new)
    else:
        edit = _edit(source, where[1], hit.start(), hit.end(), ", ".join(words))
    return Proposal(
        (edit,),
        f"Give each word its own item at {source.label}:{where[1]}: "
        f"{', '.join(words)}; an exec-form list item is one argv word, and no shell splits it.",
    )


# --- TP024: `docker run --gpus device=0,1` -----------------------------------------------------------------

_GPUS_FIX = re.compile(r"Write `--gpus ('\"device=([^\"']+)\"')`")


def gpus_device_quotes(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """TP024: the ``--gpus`` value ``device=0,1`` (bare, or in quotes the shell removes) becomes
    ``'"device=0,1"'``, so that the double quotes reach docker's CSV reader; on the command's line or a line
    it continues on, where it is written once."""
    match = _GPUS_FIX.match(finding.fix or "")
    where = parse_at(finding.at)
    if match is None or where is None:
        return None
    quoted, ids = match.group(1), match.group(2)
    word = re.compile(r"(?<![\w-])--gpus(?:=|[ \t]+)((['\"]?)device=" + re.escape(ids) + r"\2)(?![\w,])")
    number = where[1]
    hits: list[tuple[int, re.Match[str]]] = []
    while (line := source.line(number)) is not None:
        hits += [(number, m) for m in word.finditer(line)]
        if not line.rstrip("\r\n").endswith("\\"):
            break
        number += 1
    if len(hits) != 1:
        return None
    number, hit = hits[0]
    return Proposal(
        (_edit(source, number, hit.start(1), hit.end(1), quoted),),
        f"Write --gpus {quoted} at {source.label}:{number}:{hit.start(1) + 1}: the double quotes reach "
        "docker and keep the device list one field.",
    )


# --- PA001-PA016 at a --config YAML key --------------------------------------------------------------------

_FLAG_FIX = re.compile(r"(?:use|write|switch to) --([A-Za-z0-9][\w.-]*)(?: in full)?")


def config_key(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """A flag the finding names as misspelt or renamed, written as a key of the ``--config`` YAML (whose
    findings point at the file, not a line): the key becomes the flag the finding names, without its
    dashes."""
    match = _FLAG_FIX.fullmatch((finding.fix or "").strip())
    named = re.match(r"--([A-Za-z0-9][\w.-]*)", finding.message)
    if match is None or named is None or not _is_yaml(source):
        return None
    old, new = named.group(1), match.group(1)
    spellings = {old, old.replace("-", "_"), old.replace("_", "-")}
    key = re.compile(r"^([ \t]*)([\"']?)(" + "|".join(map(re.escape, spellings)) + r")\2[ \t]*:")
    hits = [(n, m) for n, line in _lines(source) if (m := key.match(line)) is not None]
    if len(hits) != 1:
        return None
    number, hit = hits[0]
    written = replacement = hit.group(3)
    # SGLang turns each key into `--KEY` as written (an underscore spelling is no flag there): the flag's own
    # spelling, which both frameworks accept
    replacement = new
    if written == replacement:
        return None
    start = hit.start(3)
    return Proposal(
        (_edit(source, number, start, start + len(written), replacement),),
        f"Write {replacement} instead of {written} at {source.label}:{number}:{start + 1} (the --config "
        "file's key is the flag without its dashes).",
    )


# --- TP007: a here-document uploaded with an unquoted delimiter --------------------------------------------

_HEREDOC = re.compile(r"<<(-?)[ \t]*([A-Za-z_][\w]*)(?![\w'\"])")


def quote_delimiter(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    """TP007: the delimiter of the here-document the body line belongs to is quoted (``<<EOF`` ->
    ``<<'EOF'``), so the local shell sends ``$2`` and ``$(...)`` as written instead of expanding them."""
    where = parse_at(finding.at)
    if where is None or finding.severity == "info":
        return None  # info: the script's own values reach the node, which may well be what it means
    lines = source.lines
    for number in range(min(where[1], len(lines)), 0, -1):
        hits = list(_HEREDOC.finditer(lines[number - 1]))
        if not hits:
            continue
        hit = hits[-1]
        word, strip = hit.group(2), hit.group(1) == "-"
        ends = [
            n
            for n in range(number + 1, len(lines) + 1)
            if (lines[n - 1].rstrip("\r\n").lstrip("\t") if strip else lines[n - 1].rstrip("\r\n")) == word
        ]
        if not ends or ends[0] < where[1] or len(hits) != 1:
            return None  # the body line is not inside this here-document, or two start on one line
        start = hit.start(2)
        return Proposal(
            (_edit(source, number, start, start + len(word), f"'{word}'"),),
            f"Quote the here-document's delimiter at {source.label}:{number}:{start + 1} "
            f"(`<<{hit.group(1)}'{word}'`): the body is then sent as written, and the node's shell expands "
            "it when the script runs.",
        )
    return None


# --- TP021: a folded block continued with backslashes ----------------------------------------------------

_FOLDED_HEADER = re.compile(r"(?:^|(?<=[\s:\-\[,]))>(?=[-+1-9]{0,2}[ \t]*(?:#.*)?$)")


def literal_block(finding: Finding, source: SourceFile, report: Report) -> Proposal | None:
    r"""TP021: the folded block's indicator ``>`` (at the finding's line, where the block's node starts)
    becomes ``|``: a literal block keeps its line breaks (YAML 1.2, 8.1.2 Literal Style), so each ``\``
    before one continues the shell's line again; the chomping and indentation indicators stay."""
    where = parse_at(finding.at)
    if where is None or not _is_yaml(source):
        return None
    line = (source.line(where[1]) or "").rstrip("\r\n")
    hits = list(_FOLDED_HEADER.finditer(line))
    if len(hits) != 1:
        return None
    col = hits[0].start()
    if re.search(r"`(?:command|entrypoint):` string", finding.message):
        return _drop_backslashes(source, where[1], line)
    return Proposal(
        (_edit(source, where[1], col, col + 1, "|"),),
        f"Write the block as a literal scalar: `{line[col:].split()[0].replace('>', '|', 1)}` at "
        f"{source.label}:{where[1]}:{col + 1}: a literal block keeps its line breaks, so each `\\` at a "
        "line's end continues the command (or drop the backslashes: a folded block joins the lines itself).",
    )


def _drop_backslashes(source: SourceFile, header: int, line: str) -> Proposal | None:
    """A compose string ``command:`` is split by compose, not a shell: a line break in a literal block
    would stay inside a word after ``\\`` (shlex, go-shellwords), so the block stays folded and the
    backslashes that end its lines go (the folding joins the lines with a space itself)."""
    indent = len(line) - len(line.lstrip(" "))
    edits: list[FixEdit] = []
    for number in range(header + 1, len(source.lines) + 1):
        text = (source.line(number) or "").rstrip("\r\n")
        if text.strip() and len(text) - len(text.lstrip(" ")) <= indent:
            break
        if (len(text) - len(text.rstrip("\\"))) % 2 == 0:
            continue  # no backslash at the end, or an escaped one (`\\\\`): a character of the word
        end = len(text) - 1
        start = len(text[:end].rstrip(" \t"))
        edits.append(_edit(source, number, start, len(text), ""))
    if not edits:
        return None
    return Proposal(
        tuple(edits),
        f"Delete the backslashes at the ends of the folded block's lines ({source.label} "
        + (
            f"line {_line_of(edits[0])}"
            if len(edits) == 1
            else f"lines {_line_of(edits[0])}-{_line_of(edits[-1])}"
        )
        + "): the folding joins the lines with a space itself, and compose splits the words.",
    )


def _line_of(edit: FixEdit) -> str:
    return edit.start.split(":", 1)[0]


VALUE_PRODUCERS: Mapping[str, Producer] = {
    "PR006": visible_devices,
    "PR009": unquote,
    "TP017": unquote,
    "TP019": compose_unquote,
    "TP011": exec_form_item,
    "TP007": quote_delimiter,
    "TP021": literal_block,
    "TP024": gpus_device_quotes,
}
# A finding about a variable of a manifest points at the container's command: these look the name up.
MANIFEST_PRODUCERS: Mapping[str, Producer] = {"PR001": manifest_variable, "PR002": manifest_variable}
VALUE_NOTES: Mapping[str, str] = {
    "PR006": "writes CUDA_VISIBLE_DEVICES with each GPU once and no invalid entry, where it is assigned "
    "(script, env file, compose/Kubernetes env)",
    "PR009": "deletes the quotes an env file hands on as part of the value",
    "TP017": "deletes the quotes around the value in the env file",
    "TP019": "deletes the quotes around the value of the list-form `environment:` item",
    "TP011": "writes the item `--flag value` as `--flag=value`; a whole command line in one `command` item "
    "becomes one item per word",
    "TP007": "quotes the here-document's delimiter (`<<'EOF'`)",
    "TP024": "writes the `--gpus` value `device=0,1` as `'\"device=0,1\"'`, so that docker gets the quotes",
    "TP021": "writes the folded block's indicator `>` as `|` (a literal block: the backslashes continue the "
    "lines again)",
}
