"""The layered report for people: the server argv, one row per setting, findings under their setting.

Reads only the (already redacted) report dict. Section renderers for later layers register in
``SECTION_RENDERERS``; unknown sections get a compact generic view.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
CORE_KEYS = {
    "schema_version",
    "argtrace_version",
    "command",
    "framework",
    "process",
    "servers",
    "settings",
    "findings",
    "notes",
}


def _show(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value if value != "" else "''"
    return json.dumps(value, ensure_ascii=False)


def _finding_text(finding: Mapping[str, Any], indent: str = "") -> Text:
    severity = finding.get("severity", "info")
    text = Text(indent)
    text.append(f"{severity:<7} ", style=SEVERITY_STYLE.get(severity, ""))
    text.append(f"{finding.get('code')} ", style="bold")
    text.append(f"[{finding.get('layer')}] ", style="dim")
    if finding.get("at"):
        text.append(f"{finding['at']}: ", style="dim")
    text.append(str(finding.get("message", "")))
    for evidence in finding.get("evidence") or []:
        where = f"{evidence.get('at')}: " if evidence.get("at") else ""
        text.append(f"\n{indent}          evidence ({evidence.get('layer')}) {where}", style="dim")
        text.append(str(evidence.get("text", "")))
    if finding.get("fix"):
        text.append(f"\n{indent}          fix: ", style="green")
        text.append(str(finding["fix"]))
    return text


def _same(a: Any, b: Any) -> bool:
    """Equal as a person reads them: ``"0.80"`` (a shell word) and ``0.8`` (parsed) are the same value."""
    if a == b or _show(a) == _show(b):
        return True
    try:
        return float(str(a)) == float(str(b))
    except ValueError:
        return str(a).lower() == str(b).lower() and {str(a).lower()} <= {"true", "false"}


def _changes(setting: Mapping[str, Any]) -> list[str]:
    """Where the value changed between layers: ``layer at (by): old -> new``, unknown values included."""
    out: list[str] = []
    previous: Any = None
    first = True
    for obs in setting.get("history") or []:
        where = " ".join(p for p in (obs.get("at"), f"({obs['by']})" if obs.get("by") else None) if p)
        if obs.get("known") is False:
            out.append(f"{obs['layer']}: unknown ({obs.get('reason')}) {where}".rstrip())
        elif not first and not _same(previous, obs.get("value")):
            out.append(f"{obs['layer']}: {_show(previous)} -> {_show(obs.get('value'))}  {where}".rstrip())
        previous, first = obs.get("value"), False
    return out


def _settings_table(data: Mapping[str, Any]) -> Table | None:
    settings = data.get("settings") or []
    if not settings:
        return None
    table = Table(
        title=f"Settings ({len(settings)})", title_justify="left", expand=False, box=None, pad_edge=False
    )
    table.add_column("flag / setting", style="bold", no_wrap=True)
    table.add_column("intended", overflow="fold", max_width=40)
    table.add_column("effective", style="bold", overflow="fold", max_width=40)
    table.add_column("where it changed", overflow="fold")
    by_setting: dict[str, list[Mapping[str, Any]]] = {}
    for finding in data.get("findings") or []:
        if finding.get("setting"):
            by_setting.setdefault(finding["setting"], []).append(finding)
    for setting in settings:
        label = setting.get("flag") or setting["name"]
        changes = _changes(setting)
        table.add_row(
            escape(label),
            escape(_show(setting.get("intended"))),
            escape(_show(setting.get("effective"))),
            escape("\n".join(changes)),
        )
        for finding in by_setting.pop(setting["name"], []):
            table.add_row(_finding_text(finding, "  "), "", "", "")
    return table


def _render_servers(data: Mapping[str, Any], out: list[Any]) -> None:
    servers = data.get("servers") or []
    process = data.get("process")
    for index, server in enumerate(servers, start=1):
        chosen = process is not None and server.get("at") == process.get("at")
        label = f"Server {index} of {len(servers)}" + (
            " (described below)" if chosen and len(servers) > 1 else ""
        )
        out.append(
            Text(
                f"{label} at {server.get('at')}: {server.get('framework')} {server.get('entrypoint')}",
                style="bold",
            )
        )
        argv = " ".join(
            "<?>" if w is None else (w if w and " " not in w else repr(w)) for w in server.get("argv") or []
        )
        out.append(Text("  " + argv))
    if process and process.get("env"):
        env = ", ".join(f"{k}={v}" for k, v in sorted(process["env"].items()) if k not in {"PATH"})
        if env:
            out.append(Text("  env: " + env, style="dim"))


SECTION_RENDERERS: dict[str, Callable[[Any], Any]] = {}


def render_text(data: Mapping[str, Any]) -> str:
    tty = sys.stdout.isatty()
    width = shutil.get_terminal_size((140, 40)).columns if tty else 140
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        force_terminal=tty,
        color_system="auto" if tty else None,
        highlight=False,
        soft_wrap=False,
    )
    framework = data.get("framework") or {}
    header = Text(f"argtrace {data.get('command')}", style="bold")
    if framework.get("name"):
        header.append(f" — {framework['name']} {framework.get('version') or '?'} ({framework.get('source')})")
    console.print(header)
    parts: list[Any] = []
    _render_servers(data, parts)
    for part in parts:
        console.print(part)
    for note in data.get("notes") or []:
        console.print(Text(f"note: {note}", style="dim"))
    table = _settings_table(data)
    shown_in_table = {s["name"] for s in data.get("settings") or []}
    if table is not None:
        console.print(table)
    for key, value in data.items():
        if key in CORE_KEYS or value is None:
            continue
        renderer = SECTION_RENDERERS.get(key)
        if renderer is not None:
            console.print(renderer(value))
    rest = [f for f in data.get("findings") or [] if f.get("setting") not in shown_in_table]
    if rest:
        console.print(Text("Findings", style="bold"))
        for finding in rest:
            console.print(_finding_text(finding, "  "))
    counts = {
        sev: sum(1 for f in data.get("findings") or [] if f.get("severity") == sev) for sev in SEVERITY_STYLE
    }
    console.print(Text(f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info"))
    return buffer.getvalue()
