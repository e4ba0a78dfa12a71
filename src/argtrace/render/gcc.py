"""``--format gcc``: ``file:line:col: error|warning|note: message [CODE]``, one finding per line.

What editors' quickfix lists and ``grep``-style tools parse (shellcheck's ``-f gcc``). For people and
editors, not a stable contract. A finding without a line gives ``file: severity: ...``; one with no file
at all (a ``-c`` command, a URL) is named ``argtrace``.
"""

from __future__ import annotations

from argtrace.render.places import places

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SEVERITY = {"error": "error", "warning": "warning", "info": "note"}


def _one_line(text: str) -> str:
    return " ".join(text.split("\n"))


def render_gcc(data: dict[str, Any]) -> str:
    lines = []
    for finding, place in zip(data.get("findings") or [], places(data), strict=True):
        where = place.uri or "argtrace"
        if place.line is not None:
            where += f":{place.line}" + (f":{place.col}" if place.col is not None else "")
        severity = SEVERITY.get(str(finding.get("severity")), "warning")
        message = _one_line(str(finding.get("message") or ""))
        lines.append(f"{where}: {severity}: {message} [{finding.get('code')}]")
    return "".join(line + "\n" for line in lines)
