"""Which producer makes the edits of which code, and the first pass over a report's findings."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from argtrace.fixes.edits import LINE_NOTES, LINE_PRODUCERS, Producer, Proposal, SourceFile, parse_at
from argtrace.model import Finding, Report

# Findings at a --config file (``at`` is the bare path): its key (``values.config_key``).
CONFIG_CODES = ("PA001", "PA002", "PA003", "PA004", "PA005", "PA007", "PA014", "PA015", "PA016")
# The codes of the producer tables after edits.py's, in the order they make the whole table (a later one's
# producer wins a code): a check imports words.py, values.py, flags.py or supervisor.py only for a finding
# whose code one of them produces (the four were ~4 M instructions of a short check that needed none of
# them, issue 18). tests/test_startup28.py keeps each set equal to its module's table: a producer added to
# a table needs its code here too.
WORD_CODES = frozenset({"PA009", "PA017", "PA022", "PA025", "SH006", "SH008", "SH022", "SH027", "TP104"})
VALUE_CODES = frozenset({"PR006", "PR009", "TP007", "TP011", "TP017", "TP019", "TP021", "TP024"})
FLAG_CODES = frozenset({"PA006", "PA012", "SH007", "SH010", "SH026", "TP012"})
SUPERVISOR_CODES = frozenset({"TP013", "TP100"})
MANIFEST_CODES = frozenset({"PR001", "PR002"})  # values.py's MANIFEST_PRODUCERS


def producer_of(code: str) -> Producer | None:
    """``producers()[code]``, importing only the module whose table has it."""
    found = LINE_PRODUCERS.get(code)
    if code in WORD_CODES:
        from argtrace.fixes.words import WORD_PRODUCERS

        found = WORD_PRODUCERS.get(code, found)
    if code in VALUE_CODES:
        from argtrace.fixes.values import VALUE_PRODUCERS

        found = VALUE_PRODUCERS.get(code, found)
    if code in FLAG_CODES:
        from argtrace.fixes.flags import FLAG_PRODUCERS

        found = FLAG_PRODUCERS.get(code, found)
    if code in SUPERVISOR_CODES:
        from argtrace.fixes.supervisor import SUPERVISOR_PRODUCERS

        found = SUPERVISOR_PRODUCERS.get(code, found)
    return found


def producers() -> dict[str, Producer]:
    """Which producer makes the edits of which code: every table (each module imported)."""
    from argtrace.fixes.flags import FLAG_PRODUCERS
    from argtrace.fixes.supervisor import SUPERVISOR_PRODUCERS
    from argtrace.fixes.values import VALUE_PRODUCERS
    from argtrace.fixes.words import WORD_PRODUCERS

    return {**LINE_PRODUCERS, **WORD_PRODUCERS, **VALUE_PRODUCERS, **FLAG_PRODUCERS, **SUPERVISOR_PRODUCERS}


def edit_notes() -> dict[str, str]:
    """What ``argtrace fix`` edits, per code: the rule pages say it (rules/docs.py), docs/fixes.md too."""
    from argtrace.fixes.flags import FLAG_NOTES
    from argtrace.fixes.supervisor import SUPERVISOR_NOTES
    from argtrace.fixes.values import VALUE_NOTES
    from argtrace.fixes.words import WORD_NOTES

    return {**LINE_NOTES, **WORD_NOTES, **VALUE_NOTES, **FLAG_NOTES, **SUPERVISOR_NOTES}


def propose(finding: Finding, sources: Mapping[str, SourceFile], report: Report) -> Proposal | None:
    """The edits for one finding, or None (no producer, the file is not one of the launch's, no match).
    A producer that trips over text it did not expect proposes nothing: a fix is never worth a failed
    check (``ARGTRACE_DEBUG`` shows the error)."""
    try:
        return _propose(finding, sources, report)
    except (IndexError, ValueError, KeyError, TypeError, AttributeError):
        import os

        if os.environ.get("ARGTRACE_DEBUG"):
            raise
        return None


def _propose(finding: Finding, sources: Mapping[str, SourceFile], report: Report) -> Proposal | None:
    if finding.code in CONFIG_CODES and parse_at(finding.at) is None:
        # a --config file's key: `at` is the file, as the command names it
        config = [s for s in sources.values() if finding.at in (s.named, s.label)]
        if len(config) != 1:
            return None
        from argtrace.fixes.values import config_key

        return config_key(finding, config[0], report)
    producer = producer_of(finding.code)
    where = parse_at(finding.at)
    if producer is None or where is None or where[0] not in sources:
        return None
    found = producer(finding, sources[where[0]], report)
    if found is None and finding.code in MANIFEST_CODES:
        from argtrace.fixes.values import MANIFEST_PRODUCERS

        other = MANIFEST_PRODUCERS.get(finding.code)
        if other is not None:
            found = other(finding, sources[where[0]], report)
    return found


def with_proposals(
    findings: Sequence[Finding], sources: Mapping[str, SourceFile], report: Report
) -> list[Finding]:
    """The findings with their edits and case-specific fix texts, their consequences (causes.py) too: a
    finding caused by what another finding's edit repairs (the stray `'\\r'` or `' '` word of SH002/SH003,
    the "--port needs a value" of SH007/SH026) shares that edit. A consequence keeps its edit even when
    folded: the cause takes it when it has none of its own (attach.py, proven by the re-check)."""
    flat: list[Finding] = []
    owners: list[int] = []  # the index in ``findings`` of each flat finding's cause (its own for a cause)
    for index, finding in enumerate(findings):
        for one in (replace(finding, consequences=()), *finding.consequences):
            flat.append(one)
            owners.append(index)
    done = _with_proposals(flat, sources, report)
    out: list[Finding] = []
    for index, finding in zip(owners, done, strict=True):
        if len(out) == index:
            out.append(finding)
        else:
            out[index] = replace(out[index], consequences=(*out[index].consequences, finding))
    return out


def _with_proposals(
    findings: Sequence[Finding], sources: Mapping[str, SourceFile], report: Report
) -> list[Finding]:
    out: list[Finding] = []
    by_line: dict[tuple[str, int], Proposal] = {}
    by_item: dict[str, Proposal] = {}
    for finding in findings:
        proposal = propose(finding, sources, report)
        if proposal is None:
            out.append(finding)
            continue
        out.append(replace(finding, fix=proposal.fix, fix_edits=proposal.edits))
        if finding.code in ("SH007", "SH026"):
            # the parser's "--port needs a value" follows from the vanished word this edit gives a default
            lost = re.search(r"`(--?[\w-]+)` (?:takes `|gets no value)", finding.message)
            if lost is not None:
                by_item[lost.group(1) + " needs a value"] = proposal
        if finding.code == "TP011":
            # the parser's finding about the one-word item ("--tp 1 is not a flag") has this cause
            item = re.search(r"item '([^']+)' is ONE", finding.message)
            if item is not None:
                by_item[item.group(1)] = proposal
        if finding.code in ("SH002", "SH003"):
            for at in [finding.at, *(e.at for e in finding.evidence)]:
                where = parse_at(at)
                if where is not None:
                    by_line[(where[0], where[1])] = proposal
    if by_item:
        out = [_share_item(f, by_item) for f in out]
    if not by_line:
        return out
    shared = []
    for finding in out:
        where = parse_at(finding.at)
        cause = by_line.get((where[0], where[1])) if where is not None else None
        if not finding.fix_edits and cause is not None and finding.code.startswith("PA"):
            finding = replace(finding, fix=cause.fix, fix_edits=cause.edits)
        shared.append(finding)
    return shared


def _share_item(finding: Finding, by_item: Mapping[str, Proposal]) -> Finding:
    """A parser finding that names a one-word item TP011 fixes takes TP011's edit (its own guess, a flag
    near ``--tp 1``, would rename the wrong thing); a PA012 about the flag whose value an unset or empty
    variable removed (SH007/SH026) takes that variable's default, even where its own edit would fit: a
    value written after the flag on its line leaves the expansion on the next line to add a word once the
    variable is set."""
    if not finding.code.startswith("PA"):
        return finding
    for item, proposal in by_item.items():
        if finding.message.startswith(item + " "):
            return replace(finding, fix=proposal.fix, fix_edits=proposal.edits)
    return finding
