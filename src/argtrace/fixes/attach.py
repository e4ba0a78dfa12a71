"""The entry point: a check report's findings get their edits, texts and verification."""

from __future__ import annotations

from dataclasses import replace

from argtrace.check import COMMAND_LABEL, CheckOptions, read_script
from argtrace.fixes.edits import Proposal, SourceFile
from argtrace.fixes.environment import with_env_proposals
from argtrace.fixes.registry import with_proposals
from argtrace.fixes.verify import VERIFIED_SEVERITIES, Rechecker, decode, is_observed, verify_findings
from argtrace.model import Finding, Report


def launch_sources(options: CheckOptions) -> dict[str, SourceFile]:
    """The files the launch was read from, by the label the findings use."""
    if options.command_string is not None:
        return {COMMAND_LABEL: SourceFile(COMMAND_LABEL, options.command_string)}
    if options.script is None:
        return {}
    data = options.script_data if options.script_data is not None else read_script(options.script)[0]
    return {options.script: SourceFile(options.script, decode(data))}


def all_sources(options: CheckOptions, report: Report) -> dict[str, SourceFile]:
    """The launch files and the env and config files they make the launch read (``files.py``)."""
    from argtrace.fixes.files import read_sources

    sources = launch_sources(options)
    return {**sources, **read_sources(report, sources)}


# Causes whose consequences' edits fix the wrong thing: a `docker run` option in a manifest's args (TP023) is
# dropped and set on the container, not renamed to the flag the parser finds near it (`--block-size`).
NO_BORROWED_EDITS = frozenset({"TP023"})


def attach_fixes(report: Report, options: CheckOptions, *, verify: bool = True) -> Report:
    """``report`` with edits, case-specific fix texts and verification on its findings (in place)."""
    if report.command != "check" or "python" in report.sections:
        # a Python launch's commands are argtrace's writing of its calls: an edit placed in that text
        # would land on other characters of the .py or .ipynb (the fix texts still say what to change)
        return report
    sources = all_sources(options, report)
    findings = with_proposals(report.findings, sources, report)
    # a variable the launch inherits (--env, the caller's) is changed in the environment, not in a file
    findings = with_env_proposals(findings, report, options.env)
    # second pass: fixes that read the whole report (settings.py), tried in order by the re-check
    candidates: dict[int, list[Proposal]] = {}
    for index, finding in enumerate(findings):
        if finding.fix_edits or finding.severity not in VERIFIED_SEVERITIES:
            continue
        taken = [] if finding.code in NO_BORROWED_EDITS else _from_consequences(finding)
        if taken:
            # the cause's own producer had nothing (or no default to write) where a consequence's had:
            # the cause carries that edit, and the re-check proves it removes the cause itself
            candidates[index] = taken
            findings[index] = replace(finding, fix=taken[0].fix, fix_edits=taken[0].edits)
            continue
        elif finding.code == "RS001":
            from argtrace.fixes.settings import mamba_candidates  # here: most checks need no second pass

            found = mamba_candidates(finding, report, sources, findings)
        elif is_observed(finding):
            from argtrace.fixes.settings import already_passed, observed_candidates

            found = observed_candidates(finding, report, sources, findings)
            text = None if found else already_passed(finding, report)
            if text is not None:
                findings[index] = replace(finding, fix=text)
        else:
            continue
        if found:
            candidates[index] = found
            findings[index] = replace(finding, fix=found[0].fix, fix_edits=found[0].edits)
    report.findings = findings
    if verify and any(f.fix_edits for g in report.findings for f in (g, *g.consequences)):
        report.findings = verify_findings(report, Rechecker(options, sources), candidates)
    return report


def _from_consequences(finding: Finding) -> list[Proposal]:
    """The distinct edits of a cause's consequences, in their order, when the cause has none."""
    found: dict[tuple[object, ...], Proposal] = {}
    for consequence in finding.consequences:
        if consequence.fix_edits and consequence.fix is not None:
            found.setdefault(tuple(consequence.fix_edits), Proposal(consequence.fix_edits, consequence.fix))
    return list(found.values())
