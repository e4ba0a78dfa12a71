"""The first screen of the text report: the diagnosis, then the server command, then the settings.

Pieces of ``render/text.py`` that decide what a person sees first, and how wide it may be:

* :func:`output_width`: ``COLUMNS`` when set, else the terminal's width, else 100 (not a terminal).
* :func:`diagnosis_lines`: the causes, most severe (with what follows from them) and earliest layer first,
  each one line ``SEVERITY CODE FILE:LINE:COL what happened`` cut to the width, then at most four lines:
  the rest of the message, the findings it explains, the fix, and for an alarm read with an assumption,
  that it is one and what was assumed (``assumption_line``). The full text is in "Details".
  Beside an error or a warning an ``info`` cause is its headline alone: the first screen goes to what
  fails (bench/first_screens.py counts those lines on the kept failure cases).
* :func:`reach_line`: beside an error or a warning, the ``info`` findings about argtrace's reach
  (``ABOUT_THE_ANALYSIS``) in one line; :func:`assumption_line`: an alarm read with an assumption says so
  (bench/first_screen_audit.py measured both on the 142 class-a real cases).
* ``lead``: the first cause of a report whose command is in ``LEAD_COMMANDS`` (``log``) is told whole enough
  to act on: its message over up to four lines, its fix over up to five (cut to one line, the change itself
  fell off the screen on 25 of the 29 log cases bench/first_screens_log_why.py reads), and one line on what
  it rests on (the log line it read, or that it is an assumption).
* :func:`line_places`: in a report about one file (``log``), a place in it is ``line N``; the header names it.
* :func:`short_places`: the place a headline names, without its directories when the path is absolute,
  would take more than a quarter of the line, and no other file of the report has the same name (a launch
  passed by its full path left the message a few columns, or none: the headline ran over five lines); the
  server line and the header's evidence name it the same way. Details keep the full path.
* :func:`marked`: look-alike characters a script may carry (an en dash for ``--``, smart quotes, NBSP)
  written as ``<U+2013 EN DASH>``; control and zero-width characters are already escaped by
  ``boundary.visible_data``.
* :func:`shown_settings`: the settings the user wrote or a layer changed; the ones only the parser's or a
  resolver's defaults filled in are counted, and listed with ``--all-settings``.
"""

from __future__ import annotations

import os
import re
import shutil
import unicodedata
from collections.abc import Mapping, Sequence

from rich.text import Text

from argtrace.model import LAYERS, SEVERITIES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NOT_A_TERMINAL_WIDTH = 100
MIN_WIDTH = 40
SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
# Typographic characters that pass for ASCII ones in a terminal: `–-port`, `“$MODEL”`.
_LOOKALIKES = re.compile("[\u2010-\u2015\u2018-\u201f\u2212\u00a0\u2007\u202f\ufe63\uff0d]")
# boundary.visible writes NBSP and the narrow spaces as \xa0 / \u202f: named here too
_ESCAPED_SPACES = re.compile(r"\\(?:xa0|u2007|u202f)")


def output_width(tty: bool) -> int:
    """The width every line fits: ``COLUMNS`` when it is a number, the terminal's, or 100 off a terminal."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), MIN_WIDTH)
    if tty:
        return max(shutil.get_terminal_size((NOT_A_TERMINAL_WIDTH, 40)).columns, MIN_WIDTH)
    return NOT_A_TERMINAL_WIDTH


def _name(ch: str) -> str:
    return f"<U+{ord(ch):04X} {unicodedata.name(ch, 'UNNAMED')}>"


def marked(text: str) -> str:
    """``text`` with typographic look-alikes and (escaped) odd spaces named: ``<U+2013 EN DASH>``."""
    text = _LOOKALIKES.sub(lambda m: _name(m.group(0)), text)
    return _ESCAPED_SPACES.sub(lambda m: _name(chr(int(m.group(0)[2:], 16))), text)


def split_line(text: str, width: int) -> tuple[str, str]:
    """``text`` on one line of at most ``width`` columns, cut at a word when one ends in its second half
    (an ellipsis marks the cut), and the rest."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat, ""
    cut = flat.rfind(" ", 0, width)
    if cut < width // 2:
        cut = max(width - 1, 0)
    return flat[:cut] + "…", flat[cut:].lstrip()


def one_line(text: str, width: int) -> str:
    """The first line of ``text`` cut to ``width`` columns (an ellipsis marks the cut)."""
    return split_line(text, width)[0]


# Findings about argtrace's own reach, not about the launch: PR008, the named release is read with its
# family's bundled stand-in; PR011, nothing shows the release (the header says which one was read);
# PR007, the launcher is not on this machine's PATH; RS004, resolution was skipped; SH040, a server start
# through a program argtrace does not follow. Ranked before the
# launch's own findings by their layer (process), they pushed the launch's own finding down the first
# screen (bench/first_screens.py, docs/real_cases.md "First screens of the earlier batches"); beside an
# error or a warning the ``info`` ones are one line together (``reach_line``): on the class-a real
# cases they were most of the info headlines beside an alarm (bench/first_screen_audit.py).
ABOUT_THE_ANALYSIS = frozenset({"MM003", "PR007", "PR008", "PR011", "RS004", "SH040"})


def severity_rank(finding: Mapping[str, Any]) -> int:
    """The most severe of the finding and its consequences, as an index of ``SEVERITIES`` (0 = error)."""
    severities = [finding.get("severity"), *(c.get("severity") for c in finding.get("consequences") or [])]
    return min(SEVERITIES.index(s) if s in SEVERITIES else len(SEVERITIES) for s in severities)


def about_the_analysis(finding: Mapping[str, Any]) -> bool:
    """PR008's stand-in release, and the log's LG010 note that the file begins mid-start-up (about what
    the file holds: it came above the launch's own LG010, where it stops, on the hang batch's screens)."""
    if finding.get("code") == "LG010":
        from argtrace.rules.log import LG010_EXCERPT

        return LG010_EXCERPT in str(finding.get("message"))
    return finding.get("code") in ABOUT_THE_ANALYSIS


def rests_on_assumption(finding: Mapping[str, Any]) -> bool:
    """The finding's own claim is read with an assumption (``basis: assumed``): a value the caller may set,
    a GPU or model config taken for granted. Of one severity, what the evidence shows comes first."""
    return finding.get("basis") == "assumed"


def shellcheck_note(finding: Mapping[str, Any]) -> bool:
    """A shellcheck note (``SC2086``: quote this) that nothing else follows from: advice on the script's
    style, not on what the server sees. Ranked by their layer (shell), they came before the launch's own
    parser notes (fa26's Kimi K2 page: 23 SC2086 above 21 PA013 and the PA007 abbreviations)."""
    return (
        str(finding.get("code", "")).startswith("SC")
        and severity_rank(finding) == SEVERITIES.index("info")
        and not finding.get("consequences")
    )


def _rank(finding: Mapping[str, Any]) -> tuple[int, int, int, int, int]:
    layer = finding.get("layer")
    return (
        severity_rank(finding),
        about_the_analysis(finding),
        shellcheck_note(finding),
        rests_on_assumption(finding),
        LAYERS.index(layer) if layer in LAYERS else len(LAYERS),
    )


def diagnosis_order(findings: Sequence[Mapping[str, Any]]) -> list[int]:
    """Indexes of the causes: most severe first (a cause counts its consequences' severity), the launch's
    own before those about argtrace's reach (``ABOUT_THE_ANALYSIS``), argtrace's own before shellcheck's
    notes (``shellcheck_note``), what the evidence shows before what rests on an assumption
    (``rests_on_assumption``), then the earliest layer, then as reported."""
    return sorted(range(len(findings)), key=lambda i: (*_rank(findings[i]), i))


def repeated_notes(findings: Sequence[Mapping[str, Any]], order: Sequence[int]) -> dict[int, list[int]]:
    """For each ``info`` cause whose code an earlier ``info`` cause (in ``order``) does not have, the later
    ``info`` causes of that code, when there are any: the first screen tells the first and names the others
    on one line (``more_line``). One script's unquoted words gave 23 SC2086 and 21 PA013 headlines, and a
    resolution's own variables five RS006 ones, above the launch's servers (fa26's Kimi K2 page; 148 of the
    1,060 kept launches repeated an info code). Errors and warnings are each told; the findings about
    argtrace's reach have their own line (``reach_line``)."""
    first: dict[str, int] = {}
    more: dict[int, list[int]] = {}
    for index in order:
        finding = findings[index]
        if severity_rank(finding) != SEVERITIES.index("info") or about_the_analysis(finding):
            continue
        code = str(finding.get("code"))
        if code in first:
            more[first[code]].append(index)
        else:
            first[code] = index
            more[index] = []
    return {index: later for index, later in more.items() if later}


# A message that names its subject first: "SGLANG_ENABLE_TORCH_COMPILE: None -> '0' by ...", "--host: ..."
# (a flag or an upper-case variable: "shellcheck: Double quote ..." names the tool, not a subject)
_SUBJECT = re.compile(r"^`?(--?[A-Za-z][\w.-]{0,58}|[A-Z][A-Z0-9_]{2,59})`?: ")


def _named(finding: Mapping[str, Any], places: Mapping[str, str] | None) -> str:
    """A repeated note in a few words: the variable or flag its message names first, else its place as the
    headline would name it (a framework's file beside a variable's name said nothing the name did not)."""
    subject = _SUBJECT.match(str(finding.get("message") or ""))
    if subject:
        return subject.group(1)
    at = str(finding.get("at") or "")
    return (places or {}).get(at, at) or one_line(str(finding.get("message") or ""), 40)


def more_line(
    first: Mapping[str, Any],
    later: Sequence[Mapping[str, Any]],
    width: int,
    places: Mapping[str, str] | None = None,
) -> Text:
    """The line under a repeated note's first headline: the variables or flags their messages name first
    (``+ 4 more RS006 (Details): SGLANG_A, ...``), else their lines when they are in the first's file
    (``+ 22 more SC2086 (Details): lines 32, 37, ...``), else each named (``_named``)."""
    path = _path_of(str(first.get("at") or ""))
    lines = [_PLACE.match(str(f.get("at") or "")) for f in later]
    subjects = all(_SUBJECT.match(str(f.get("message") or "")) for f in later)
    if not subjects and path and all(m and m.group("path") == path and m.group("line") for m in lines):
        named = list(dict.fromkeys(m.group("line")[1:].split(":", 1)[0] for m in lines if m))
        items = ("lines " if len(named) > 1 else "line ") + ", ".join(named)
    else:  # each by the subject its message names first (all of them do), else by its place
        items = ", ".join(dict.fromkeys(marked(_named(f, places)) for f in later))
    said = f"+ {len(later)} more {first.get('code')} (Details): {items}"
    return Text("  " + one_line(said, width - 2), style="dim")


REACH_HEAD = "INFO on what argtrace could read: "


def reach_line(findings: Sequence[Mapping[str, Any]], width: int) -> Text:
    """One line for the ``info`` findings about argtrace's reach beside an error or a warning: their codes
    and titles (``INFO on what argtrace could read: PR011 nothing shows which release runs, RS004 ...``),
    or their codes alone when the titles do not fit; their text is in Details."""
    from argtrace.rules import rule_by_code

    codes = list(dict.fromkeys(str(f.get("code")) for f in findings))
    titled = []
    for code in codes:
        rule = rule_by_code(code)
        titled.append(f"{code} {rule.title[0].lower()}{rule.title[1:]}" if rule else code)
    said = REACH_HEAD + ", ".join(titled)
    if len(said) > width:
        said = REACH_HEAD + ", ".join(codes) + " (Details)"
    line = Text(REACH_HEAD.split(" ", 1)[0] + " ", style=SEVERITY_STYLE["info"])
    line.append(one_line(said[len("INFO ") :], width - len("INFO ")), style="dim")
    return line


def explains(finding: Mapping[str, Any]) -> str | None:
    """ "explains 17 findings: SC2215 x13, SH023, PA001 x2, PA020" for a cause with consequences."""
    codes = [str(c.get("code")) for c in finding.get("consequences") or []]
    if not codes:
        return None
    counts: dict[str, int] = {}
    for code in codes:
        counts[code] = counts.get(code, 0) + 1
    listed = ", ".join(code if n == 1 else f"{code} x{n}" for code, n in counts.items())
    return f"explains {len(codes)} finding{'s' if len(codes) != 1 else ''}: {listed}"


# A place is ``PATH:LINE[:COL]`` (or a bare path); ``<-c>`` and URLs have no directory to drop.
_PLACE = re.compile(r"^(?P<path>.*?)(?P<line>:\d+(?::\d+)?)?$")
# The fewest columns a headline's message keeps; with less, the message starts on the next line.
MIN_MESSAGE = 20


def _path_of(at: str) -> str:
    m = _PLACE.match(at)
    return m.group("path") if m else at


def short_places(places: Sequence[str], width: int) -> dict[str, str]:
    """Each place as a headline names it: an absolute path longer than a quarter of ``width`` loses its
    directories, unless another path of ``places`` has the same file name (then which file is meant needs
    them). A relative path is kept as the user wrote it."""
    paths = {_path_of(at) for at in places}
    names: dict[str, set[str]] = {}
    for path in paths:
        names.setdefault(path.rsplit("/", 1)[-1], set()).add(path)
    out: dict[str, str] = {}
    for at in places:
        path = _path_of(at)
        name = path.rsplit("/", 1)[-1]
        if path.startswith("/") and len(path) > width // 4 and len(names[name]) == 1:
            out[at] = name + at[len(path) :]
    return out


# A place in the file the report reads (``argtrace log FILE``: every finding is in FILE), named by its line.
LINE = "line "


def line_places(places: Sequence[str], path: str) -> dict[str, str]:
    """``PATH:N`` as ``line N`` for the places in ``path``, the file the whole report reads (the header names
    it once): a log's name took the headline's room on every finding (bench/first_screens_log_why.py)."""
    out: dict[str, str] = {}
    for at in places:
        m = _PLACE.match(at)
        if m and m.group("path") == path and m.group("line"):
            out[at] = LINE + m.group("line")[1:].split(":", 1)[0]
    return out


def shortened(text: str, places: Mapping[str, str] | None) -> str:
    """``text`` with each path ``places`` shortens written short (a fix names its file: "... at PATH:3")."""
    for at, short in (places or {}).items():
        if short.startswith(LINE):
            continue  # the file the report reads keeps its name in a message: "line N" alone names no file
        path = _path_of(at)
        if path in text:
            text = text.replace(path, _path_of(short))
    return text


# Commands whose first cause is told whole (``lead``): ``log``'s causes are few, long, and the answer.
LEAD_COMMANDS = frozenset({"log"})
LEAD_MESSAGE_LINES = 4  # under the headline
LEAD_FIX_LINES = 5


def wrapped(text: str, width: int, most: int) -> list[str]:
    """``text`` in at most ``most`` lines of ``width`` columns, the last cut with an ellipsis if need be."""
    out: list[str] = []
    rest = " ".join(text.split())
    while rest and len(out) < most:
        if len(rest) <= width:
            out.append(rest)
            break
        cut = rest.rfind(" ", 0, width + 1)
        if cut < width // 2:
            cut = width
        if len(out) == most - 1:
            out.append(split_line(rest, width)[0])
            break
        out.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    return out


def rests_on(finding: Mapping[str, Any], places: Mapping[str, str] | None, width: int) -> Text | None:
    """One line on what the finding rests on: the line it read (its first evidence) or its place, and
    whether it is an assumption (``basis``, ``assumed``). None when the finding says neither."""
    basis = finding.get("basis")
    evidence = (finding.get("evidence") or [{}])[0]
    at = str(evidence.get("at") or finding.get("at") or "")
    where = (places or {}).get(at, at)
    if basis == "assumed" or finding.get("assumed"):
        said = f"{where} (observed), read with an assumption (basis: assumed)" if where else "an assumption"
    elif basis and where:
        said = f"{where} ({basis})" + (f": {evidence['text']}" if evidence.get("text") else "")
    else:
        return None
    room = width - len("  rests on: ")
    said = " ".join(marked(said).split())
    line = Text("  rests on: ", style="magenta" if basis == "assumed" else "dim")
    # the line read is quoted as far as it fits, cut anywhere: its start is what identifies it
    line.append(said if len(said) <= room else said[: room - 1] + "…", style="dim")
    return line


def diagnosis_lines(
    finding: Mapping[str, Any],
    width: int,
    places: Mapping[str, str] | None = None,
    *,
    brief: bool = False,
    lead: bool = False,
) -> list[Text]:
    """One cause: the headline, then why and the fix, each one line of at most ``width`` columns; ``brief``:
    the headline alone (an ``info`` cause beside errors or warnings); ``lead``: the message and the fix over
    a few lines each, then what it rests on (``LEAD_COMMANDS``). A place in ``places`` is written as it maps
    (``short_places``, ``line_places``)."""
    severity = str(finding.get("severity", "info"))
    head = f"{severity.upper()} {finding.get('code')} "
    at = str(finding["at"]) if finding.get("at") else ""
    where = f"{(places or {}).get(at, at)} " if at else ""
    message = shortened(marked(str(finding.get("message", ""))), places)
    headline = Text(head, style=SEVERITY_STYLE.get(severity, ""))
    lines = [headline]
    room = width - len(head) - len(where)
    if room < MIN_MESSAGE:
        # a place too long for the line: it closes the headline, the message gets a line of its own
        room = width - len(head)
        # cut from the left: the file name and line are what the place is read for
        headline.append(where if len(where) <= room else "…" + where.rstrip()[-(room - 1) :], style="dim")
        shown, rest = split_line(message, width - 2)
        if lead and rest:
            shown = wrapped(message, width - 2, 2)[0]
            rest = " ".join(message.split())[len(shown) :].lstrip()
        lines.append(Text("  " + shown))
    else:
        headline.append(where, style="dim")
        shown, rest = split_line(message, room)
        if lead and rest:  # the message goes on under the headline: cut at a word, no ellipsis
            shown = wrapped(message, room, 2)[0]
            rest = " ".join(message.split())[len(shown) :].lstrip()
        headline.append(shown)
    if brief:
        return lines  # the headline, and the message's first line when the place filled the headline
    if lead:
        lines += [Text("  " + line) for line in wrapped(rest, width - 2, LEAD_MESSAGE_LINES)]
        if finding.get("fix"):
            fix_lines = wrapped(shortened(marked(str(finding["fix"])), places), width - 7, LEAD_FIX_LINES)
            for n, text in enumerate(fix_lines):
                fix = Text("  fix: " if n == 0 else "       ", style="green")
                fix.append(text)
                lines.append(fix)
        basis = rests_on(finding, places, width)
        if basis is not None:
            lines.append(basis)
        # what follows from it comes last: above the fix it pushed the change off the lines a log's reader
        # reads first (`log` folds LG001 under the error it quotes, causes.py same-raise)
        if explains(finding):
            lines.append(Text("  " + one_line(str(explains(finding)), width - 2), style="dim"))
        return lines
    # the rest of the message, then what follows from it: the "explains" line in its place cut the
    # message of a cause with consequences to its headline ("brace expansion turns the unquoted…")
    if rest:
        lines.append(Text("  " + one_line(rest, width - 2), style="dim"))
    if explains(finding):
        lines.append(Text("  " + one_line(str(explains(finding)), width - 2), style="dim"))
    if finding.get("fix"):
        fix = Text("  fix: ", style="green")
        fix.append(one_line(shortened(marked(str(finding["fix"])), places), width - 7))
        lines.append(fix)
    assumption = assumption_line(finding, width)
    if assumption is not None:
        lines.append(assumption)
    return lines


ASSUMPTION = "  rests on an assumption"
_ASSUMED_WHAT = {"gpu": "GPU ", "model-config": "model config "}


def assumption_line(finding: Mapping[str, Any], width: int) -> Text | None:
    """For an error or a warning read with an assumption (``basis: assumed``), one line that says so, with
    what was assumed when the finding lists it (``rests on an assumption: GPU h100 (pass --gpu)``): 31 of
    the alarms of the 142 class-a real cases rested on one and their first screens did not say it
    (bench/first_screen_audit.py; only Details did). None for what the evidence shows, and for ``info``."""
    if finding.get("basis") != "assumed" or finding.get("severity") not in ("error", "warning"):
        return None
    items = [
        f"{_ASSUMED_WHAT.get(str(a.get('what')), '')}{a.get('value')} (pass {a.get('option')})"
        for a in finding.get("assumed") or []
    ]
    said = ASSUMPTION.strip() + (": " + ", ".join(items) if items else " (its message says which)")
    return Text("  " + one_line(said, width - 2), style="magenta")


def written(setting: Mapping[str, Any]) -> bool:
    return any(o.get("layer") in ("transport", "shell", "process") for o in setting.get("history") or [])


def _observed(setting: Mapping[str, Any]) -> bool:
    return any(o.get("layer") in ("log", "live") for o in setting.get("history") or [])


def shown_settings(settings: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], int]:
    """The settings for the first screen and how many were left out (defaults only a resolver or the
    parser filled in). ``--all-settings`` adds the parser's defaults as settings of one observation each:
    then every setting is shown."""
    all_settings = any(
        len(s.get("history") or []) == 1 and (s.get("history") or [{}])[0].get("default") for s in settings
    )
    if all_settings:
        return list(settings), 0
    shown = [s for s in settings if written(s) or _observed(s)]
    return shown, len(settings) - len(shown)
