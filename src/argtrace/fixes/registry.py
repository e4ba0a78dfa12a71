"""Which producer makes the edits of which code, and the first pass over a report's findings."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from argtrace.fixes.edits import LINE_NOTES, LINE_PRODUCERS, Producer, Proposal, SourceFile, parse_at
from argtrace.fixes.flags import FLAG_NOTES, FLAG_PRODUCERS
from argtrace.fixes.supervisor import SUPERVISOR_NOTES, SUPERVISOR_PRODUCERS
from argtrace.fixes.values import CONFIG_CODES, MANIFEST_PRODUCERS, VALUE_NOTES, VALUE_PRODUCERS, config_key
from argtrace.fixes.words import WORD_NOTES, WORD_PRODUCERS
from argtrace.model import Finding, Report

PRODUCERS: Mapping[str, Producer] = {
    **LINE_PRODUCERS,
    **WORD_PRODUCERS,
    **VALUE_PRODUCERS,
    **FLAG_PRODUCERS,
    **SUPERVISOR_PRODUCERS,
}
# What ``argtrace fix`` edits, per code: the rule pages say it (rules/docs.py), docs/fixes.md lists it.
EDIT_NOTES: Mapping[str, str] = {**LINE_NOTES, **WORD_NOTES, **VALUE_NOTES, **FLAG_NOTES, **SUPERVISOR_NOTES}


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
        return config_key(finding, config[0], report) if len(config) == 1 else None
    producer = PRODUCERS.get(finding.code)
    where = parse_at(finding.at)
    if producer is None or where is None or where[0] not in sources:
        return None
    found = producer(finding, sources[where[0]], report)
    other = MANIFEST_PRODUCERS.get(finding.code)
    if found is None and other is not None:
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
