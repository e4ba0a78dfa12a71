"""Text views of the ``log`` and ``timeline`` report sections (for ``render/text.py``'s SECTION_RENDERERS).

They read the already-redacted section values and never compute anything about the log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from argtrace.layers.log.lines import KEEP_LINES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def render_log_section(section: Mapping[str, Any]) -> Any:
    parts: list[Any] = []
    name = str(section.get("path")).rsplit("/", 1)[-1]
    head = (
        # the file by its name: the report's header and Details name it whole (its full path ran over
        # three lines of an 80-column first screen, bench/first_screen_audit.py)
        f"Log {name}: {section.get('lines')} lines, {section.get('size')} bytes"
        f"{' (gzip)' if section.get('gzip') else ''}, {section.get('launch_count')} launch(es), "
        f"framework {section.get('framework') or '?'} {section.get('version') or ''}".rstrip()
    )
    parts.append(Text(head, style="bold"))
    dropped = (section.get("scan") or {}).get("lines_dropped")
    if dropped:
        # the scan's memory bound (lines.Kept): say what was not read, so no one takes a quiet middle for one
        parts.append(
            Text(
                f"{dropped:,} anchor lines between the first and the last were not read (a log of more than "
                f"{2 * KEEP_LINES:,} of them is read from both ends, with every launch's first lines)"
            )
        )
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("launch", "lines", "started", "state", "stopped after", "stage", "args", "error"):
        table.add_column(col, overflow="fold")
    selected = set(section.get("selected") or [])
    for lc in section.get("launches") or []:
        err = lc.get("error") or {}
        err_text = ""
        if err:
            where = str(err.get("at") or "").rsplit(":", 1)[-1]
            err_text = f"{err.get('code')} {err.get('signature') or ''} line {where}".strip()
        args = "line " + str(lc["args_at"]).rsplit(":", 1)[-1] if lc.get("args_at") else "not logged"
        if lc.get("args_truncated"):
            args += " (cut)"
        lines = lc.get("lines") or ["", ""]
        table.add_row(
            f"{'*' if lc.get('launch') in selected else ' '}{lc.get('launch')}",
            f"{lines[0]}-{lines[1]}",
            str(lc.get("started") or "-"),
            str(lc.get("state")),
            str(lc.get("stopped_after") or "-"),
            str(lc.get("stage") or "-"),
            escape(args),
            escape(err_text),
        )
    parts.append(table)
    for lc in section.get("launches") or []:
        err = lc.get("error") or {}
        if lc.get("launch") in selected and err.get("traceback"):
            tb = [ln for ln in err["traceback"] if ln.strip()][-8:]
            parts.append(Text(f"traceback of launch {lc.get('launch')} (last lines):", style="dim"))
            parts.append(Text("\n".join("  " + ln for ln in tb), style="dim"))
    return Group(*parts)


def render_timeline_section(events: Sequence[Mapping[str, Any]]) -> Any:
    if not events:
        return Text("Timeline: no start-up event was logged", style="bold")
    table = Table(title="Timeline", title_justify="left", show_header=True, header_style="bold", box=None)
    for col in ("launch", "event", "line", "time", "detail"):
        table.add_column(col, overflow="fold")
    for ev in events:
        detail = ", ".join(
            f"{k}={v}" for k, v in ev.items() if k not in ("launch", "event", "at", "time") and v is not None
        )
        line = str(ev.get("at") or "").rsplit(":", 1)[-1]
        table.add_row(
            str(ev.get("launch")), str(ev.get("event")), line, str(ev.get("time") or "-"), escape(detail)
        )
    return table


def register() -> None:
    """Add both views to the text renderer (idempotent)."""
    from argtrace.render import text

    text.SECTION_RENDERERS.setdefault("log", render_log_section)
    text.SECTION_RENDERERS.setdefault("timeline", render_timeline_section)
