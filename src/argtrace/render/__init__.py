"""Renderers read a finished report and never compute: one canonical dict (``to_dict``), redacted once
(``redaction.redact_report_dict``), then drawn as text (rich, control characters made visible by
``boundary.visible_data``), dumped as JSON, or written in one of the CI formats (``CI_FORMATS``, one module
each). stderr goes through ``boundary.RedactingStream`` (cli.main)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # cli.main imports render.boundary for every command, --help included
    from argtrace.model import Report

# --format NAME -> (module, function). Each reads the redacted report dict (docs/ci.md).
CI_FORMATS = {
    "sarif": ("argtrace.render.sarif", "render_sarif"),
    "github": ("argtrace.render.github", "render_github"),
    "gcc": ("argtrace.render.gcc", "render_gcc"),
    "junit": ("argtrace.render.junit", "render_junit"),
    "json-lines": ("argtrace.render.jsonlines", "render_json_lines"),
}
FORMATS = ("text", "json", *CI_FORMATS)
READ_BY_PEOPLE = frozenset({"github", "gcc"})


def render_report(report: Report, *, fmt: str, show_secrets: bool = False, verbose: bool = False) -> str:
    from argtrace.render.json import to_dict
    from argtrace.render.redaction import redact_report_dict

    data = to_dict(report, verbose=verbose)
    if not show_secrets:
        data = redact_report_dict(data)
    if fmt == "json":
        from argtrace.render.json import dumps

        return dumps(data)
    from argtrace.render.boundary import readable_data, visible_data

    if fmt in CI_FORMATS:
        import importlib

        module, function = CI_FORMATS[fmt]
        draw = getattr(importlib.import_module(module), function)
        # sarif, junit and json-lines escape control characters themselves (JSON, XML), but an annotation
        # or a gcc line is read on a terminal: every format gets the visible form, one rule for all. The
        # lines people read (github, gcc) also cut very long values; the machine formats keep them whole.
        shown = readable_data(data) if fmt in READ_BY_PEOPLE else visible_data(data)
        text: str = draw(shown)
        return text
    from argtrace.render.text import render_text

    # Escapes from scripts and logs are shown, not obeyed (JSON escapes control characters itself).
    return render_text(readable_data(data))
