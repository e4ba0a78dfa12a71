"""Which producer makes the edits of which code, and the first pass over a report's findings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from argtrace.fixes.edits import LINE_NOTES, LINE_PRODUCERS, Producer, Proposal, SourceFile, parse_at
from argtrace.fixes.words import WORD_NOTES, WORD_PRODUCERS
from argtrace.model import Finding, Report

PRODUCERS: Mapping[str, Producer] = {**LINE_PRODUCERS, **WORD_PRODUCERS}
# What ``argtrace fix`` edits, per code: the rule pages say it (rules/docs.py), docs/fixes.md lists it.
EDIT_NOTES: Mapping[str, str] = {**LINE_NOTES, **WORD_NOTES}


def propose(finding: Finding, sources: Mapping[str, SourceFile], report: Report) -> Proposal | None:
    """The edits for one finding, or None (no producer, the file is not one of the launch's, no match)."""
    producer = PRODUCERS.get(finding.code)
    where = parse_at(finding.at)
    if producer is None or where is None or where[0] not in sources:
        return None
    return producer(finding, sources[where[0]], report)


def with_proposals(
    findings: Sequence[Finding], sources: Mapping[str, SourceFile], report: Report
) -> list[Finding]:
    """The findings with their edits and case-specific fix texts; a finding caused by what another
    finding's edit repairs (the stray `'\\r'` or `' '` word of SH002/SH003) shares that edit."""
    out: list[Finding] = []
    by_line: dict[tuple[str, int], Proposal] = {}
    for finding in findings:
        proposal = propose(finding, sources, report)
        if proposal is None:
            out.append(finding)
            continue
        out.append(replace(finding, fix=proposal.fix, fix_edits=proposal.edits))
        if finding.code in ("SH002", "SH003"):
            for at in [finding.at, *(e.at for e in finding.evidence)]:
                where = parse_at(at)
                if where is not None:
                    by_line[(where[0], where[1])] = proposal
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
