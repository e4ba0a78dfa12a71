"""Fixes that are proven (issue 13): edits computed from the real files, verified by re-checking.

``attach_fixes(report, options)`` gives each finding of a ``check`` report its ``fix_edits`` (from the real
text of the user's script, manifest or ``-c`` command, ``edits.py``), a fix text that names that file, and
``fix_verified`` (``verify.py``). ``argtrace fix`` (``commands/fix.py``) turns the verified edits into a
unified diff or writes them (``diff.py``).
"""

from __future__ import annotations

from argtrace.check import COMMAND_LABEL, CheckOptions, read_script
from argtrace.fixes.edits import SourceFile, with_proposals
from argtrace.fixes.verify import Rechecker, decode, verify_findings
from argtrace.model import Report


def launch_sources(options: CheckOptions) -> dict[str, SourceFile]:
    """The files the launch was read from, by the label the findings use."""
    if options.command_string is not None:
        return {COMMAND_LABEL: SourceFile(COMMAND_LABEL, options.command_string)}
    if options.script is None:
        return {}
    data = options.script_data if options.script_data is not None else read_script(options.script)[0]
    return {options.script: SourceFile(options.script, decode(data))}


def attach_fixes(report: Report, options: CheckOptions, *, verify: bool = True) -> Report:
    """``report`` with edits, case-specific fix texts and verification on its findings (in place)."""
    if report.command != "check":
        return report
    sources = launch_sources(options)
    report.findings = with_proposals(report.findings, sources, report)
    if verify and any(f.fix_edits for f in report.findings):
        report.findings = verify_findings(report, Rechecker(options, sources))
    return report
