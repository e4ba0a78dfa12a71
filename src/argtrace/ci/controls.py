"""Between a command's report and its renderer (``cli``): the checked files, suppression comments,
``--show-suppressed`` and the exit status ``--fail-on`` asks for. docs/ci.md."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: `--help` builds these options without the report model (issue 18)
    import argparse
    from typing import Any

    from argtrace.ci.config import Config
    from argtrace.model import Finding, Report

FAIL_ON = ("error", "warning", "info", "never")
_RANK = {"info": 0, "warning": 1, "error": 2}
# Suppression comments are read from the checked files only; a launch script is kilobytes.
_MAX_READ = 8 * 1024 * 1024


def add_control_options(parser: argparse.ArgumentParser) -> None:
    """The options every command that prints findings takes (``cli._common_options``)."""
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="error",
        help="the least severity that makes the exit status 1 (default: error; never: always 0)",
    )
    parser.add_argument(
        "--show-suppressed",
        action="store_true",
        help="also list the findings that `# argtrace disable=CODE` comments suppressed",
    )
    parser.add_argument(
        "--show-config",
        action="store_true",
        help="list what the configuration file (.argtrace.toml, [tool.argtrace]) set, and from which line",
    )
    parser.add_argument(
        "--baseline", metavar="FILE", help="report only findings not in this baseline (by fingerprint)"
    )
    parser.add_argument(
        "--write-baseline", metavar="FILE", help="write every finding reported to FILE as a baseline"
    )


def exit_status(findings: list[Finding], fail_on: str) -> int:
    if fail_on == "never":
        return 0
    least = _RANK[fail_on]
    # a consequence folded into a milder cause still counts (argtrace.causes; Report.exit_status too)
    every = [*findings, *(c for f in findings for c in f.consequences)]
    return 1 if any(_RANK.get(f.severity, 2) >= least for f in every) else 0


def command_inputs(args: argparse.Namespace) -> list[str]:
    """The files a command was given to check (``check SCRIPT``); ``lint`` sets its own in the report."""
    script = getattr(args, "script", None)
    if getattr(args, "command", None) == "check" and isinstance(script, str) and script:
        return [script]
    return []


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normpath(a) == os.path.normpath(b)


def _read_local(path: str) -> str | None:
    """The text of a regular local file, or ``None`` (a FIFO or device is never opened)."""
    from pathlib import Path  # here: `--help` builds this module's options and needs no paths

    from argtrace.remote.host import current_host

    if current_host().is_remote:
        return None  # under --host the checked file is the node's; comments are read locally only
    try:
        p = Path(path)
        if not p.is_file() or p.stat().st_size > _MAX_READ:
            return None
        return p.read_bytes().decode("utf-8", "replace")
    except OSError:
        return None


def _finding_places(
    report: Report, inputs: list[str], per_finding: list[int] | None
) -> list[tuple[str | None, int | None]]:
    """For each finding: which checked file it is in, and its line there (``None``: no line in it)."""
    from argtrace.render.places import split_at

    out: list[tuple[str | None, int | None]] = []
    for i, finding in enumerate(report.findings):
        owner = inputs[per_finding[i]] if per_finding is not None else (inputs[0] if inputs else None)
        parts = split_at(finding.at)
        if parts is not None:
            path, line, _ = parts
            match = next((p for p in inputs if _same_file(p, path)), None)
            if match is not None:
                out.append((match, line))
                continue
        out.append((owner, None))
    return out


def apply_suppressions(report: Report, show: bool) -> None:
    """Drop the findings that suppression comments in the checked files name; count (and keep, with
    ``--show-suppressed``) them in the ``suppressed`` section, with a note for the text output."""
    inputs = [p for p in report.sections.get("inputs") or [] if isinstance(p, str)]
    if not inputs or not report.findings:
        return
    per = report.sections.get("finding_inputs")
    per_finding = list(per) if isinstance(per, list) and len(per) == len(report.findings) else None
    files = {}
    for path in inputs:
        text = _read_local(path)
        if text is not None and "argtrace" in text:
            # imported only for a file that can hold a directive: most checked files hold none (issue 18)
            from argtrace.ci.suppress import scopes_in
            from argtrace.layers.transport import manifest_kind

            files[path] = scopes_in(text, yaml=manifest_kind(text.encode()) is not None)
    if not any(files.values()):
        return
    from argtrace.ci.suppress import Suppressed, suppressed_findings

    hits = suppressed_findings(report.findings, files, _finding_places(report, inputs, per_finding))
    if not hits:
        return
    from argtrace.render.json import finding_dict

    gone = {h.index for h in hits}
    # A consequence listed as its own finding (``--verbose``: ``cause`` is its cause's index) goes with it.
    for i, finding in enumerate(report.findings):
        cause = getattr(finding, "cause", None)
        if isinstance(cause, int) and cause in gone and i not in gone:
            gone.add(i)
            hits.append(Suppressed(i, next(h.by for h in hits if h.index == cause)))
    listed: list[dict[str, Any]] = []
    for hit in hits:
        item: dict[str, Any] = {"finding": finding_dict(report.findings[hit.index]), "by": hit.by}
        if per_finding is not None:
            item["input"] = per_finding[hit.index]
        listed.append(item)
    report.sections["suppressed"] = {"count": len(hits), "findings": listed if show else []}
    report.findings = [f for i, f in enumerate(report.findings) if i not in gone]
    if per_finding is not None:
        report.sections["finding_inputs"] = [n for i, n in enumerate(per_finding) if i not in gone]
    report.notes.append(
        f"{len(hits)} finding(s) suppressed by `# argtrace disable` comments"
        + ("" if show else " (--show-suppressed lists them)")
    )
    if show:
        for item in listed:
            f = item["finding"]
            report.notes.append(f"suppressed {f['code']} {f['at'] or ''} (by {item['by']}): {f['message']}")


def apply_controls(report: Report, args: argparse.Namespace, config: Config | None = None) -> int:
    """Apply the CI controls to a finished report in place; returns the exit status."""
    from argtrace.ci.config import apply_rules, describe

    inputs = command_inputs(args)
    if inputs and "inputs" not in report.sections:
        report.sections["inputs"] = inputs
    apply_suppressions(report, bool(getattr(args, "show_suppressed", False)))
    apply_rules(report, config)
    describe(config, report, bool(getattr(args, "show_config", False)))
    baseline, write = getattr(args, "baseline", None), getattr(args, "write_baseline", None)
    if baseline is not None or write is not None:  # without either it does nothing: not imported
        from argtrace.ci.baseline import apply_baseline

        apply_baseline(report, baseline, write)
    status = exit_status(report.findings, getattr(args, "fail_on", "error") or "error")
    lint = report.sections.get("lint")
    if isinstance(lint, dict) and any("error" in f for f in lint.get("files") or []):
        status = 2  # a file lint could not read: as a usage error, whatever --fail-on says
    return status
