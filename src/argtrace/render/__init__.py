"""Renderers read a finished report and never compute: one canonical dict (``to_dict``), redacted once
(``redaction.redact_report_dict``), then drawn as text (rich, control characters made visible by
``boundary.visible_data``) or dumped as JSON. stderr goes through ``boundary.RedactingStream`` (cli.main)."""

from __future__ import annotations

from argtrace.model import Report


def render_report(report: Report, *, fmt: str, show_secrets: bool = False, verbose: bool = False) -> str:
    from argtrace.render.json import to_dict
    from argtrace.render.redaction import redact_report_dict

    data = to_dict(report, verbose=verbose)
    if not show_secrets:
        data = redact_report_dict(data)
    if fmt == "json":
        from argtrace.render.json import dumps

        return dumps(data)
    from argtrace.render.boundary import visible_data
    from argtrace.render.text import render_text

    # Escapes from scripts and logs are shown, not obeyed (JSON escapes control characters itself).
    return render_text(visible_data(data))
