"""The layered report for people: the server argv, one row per setting, findings under their setting.

Reads only the (already redacted) report dict. Section renderers for later layers register in
``SECTION_RENDERERS``; unknown sections get a compact generic view.
"""

from __future__ import annotations

import importlib
import io
import json
import shutil
import sys
from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console
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
    if finding.get("assumed"):
        parts = []
        for a in finding["assumed"]:
            what = {"gpu": "GPU ", "model-config": "model config "}.get(str(a.get("what")), "")
            parts.append(f"{what}{a.get('value')} (pass {a.get('option')})")
        text.append(f"\n{indent}          rests on an assumption: ", style="magenta")
        text.append(", ".join(parts))
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
        elif obs.get("separated"):
            out.append(f"{obs['layer']}: {_show(obs.get('value'))} cut off from the server command  {where}")
        elif obs.get("absent"):
            out.append(f"{obs['layer']}: never arrived  {where}".rstrip())
        elif obs.get("default") and previous is None and not first:
            out.append(f"{obs['layer']}: its default {_show(obs.get('value'))}")
        elif not first and not _same(previous, obs.get("value")):
            out.append(f"{obs['layer']}: {_show(previous)} -> {_show(obs.get('value'))}  {where}".rstrip())
        previous, first = obs.get("value"), False
    return out


def _cell(value: str, width: int) -> str:
    return value if len(value) <= width else value[: width - 1] + "…"


def _render_settings(data: Mapping[str, Any], console: Console) -> None:
    """One row per setting (flag, intended, effective, where it changed); its findings right under it."""
    settings = data.get("settings") or []
    if not settings:
        return
    by_setting: dict[str, list[Mapping[str, Any]]] = {}
    for finding in data.get("findings") or []:
        if finding.get("setting"):
            by_setting.setdefault(finding["setting"], []).append(finding)
    labels = [s.get("flag") or s["name"] for s in settings]
    w_flag = min(max(len(x) for x in labels), 36)
    w_value = 30
    console.print(Text(f"Settings ({len(settings)})", style="bold"))
    head = (
        f"  {'flag / setting':<{w_flag}}  {'intended':<{w_value}}  {'effective':<{w_value}}  where it changed"
    )
    console.print(Text(head, style="dim"))
    for setting, label in zip(settings, labels, strict=True):
        changes = _changes(setting)
        row = Text("  ")
        row.append(f"{_cell(label, w_flag):<{w_flag}}", style="bold")
        row.append(f"  {_cell(_show(setting.get('intended')), w_value):<{w_value}}  ")
        row.append(f"{_cell(_show(setting.get('effective')), w_value):<{w_value}}", style="bold")
        pad = " " * (2 + w_flag + 2 + w_value + 2 + w_value + 2)
        row.append(("  " + f"\n{pad}".join(changes)) if changes else "")
        console.print(row)
        for finding in by_setting.pop(setting["name"], []):
            console.print(_finding_text(finding, "    "))


def _render_servers(data: Mapping[str, Any], out: list[Any]) -> None:
    servers = data.get("servers") or []
    process = data.get("process")
    for index, server in enumerate(servers, start=1):
        chosen = process is not None and server.get("at") == process.get("at")
        label = f"Server {index} of {len(servers)}" + (
            " (described below)" if chosen and len(servers) > 1 else ""
        )
        loop = f" (in a loop at {server['loop']})" if server.get("loop") else ""
        out.append(
            Text(
                f"{label} at {server.get('at')}: {server.get('framework')} {server.get('entrypoint')}{loop}",
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


# Text views of report sections, owned by their layers and imported only when the section is present.
# A view returns a string or a rich renderable; sections without a view appear in JSON only.
SECTION_VIEWS: Mapping[str, str] = {
    "memory": "argtrace.layers.memory.render:memory_text",
    "log": "argtrace.layers.log.text:render_log_section",
    "timeline": "argtrace.layers.log.text:render_timeline_section",
    "resolution": "argtrace.layers.resolution:render_resolution_section",
    "transport": "argtrace.layers.transport:render_transport_section",
}
# Kept for layers that still register a view at run time; SECTION_VIEWS is the place for new ones.
SECTION_RENDERERS: dict[str, Callable[[Any], Any]] = {}


def _section_view(name: str) -> Callable[[Any], Any] | None:
    if name in SECTION_RENDERERS:
        return SECTION_RENDERERS[name]
    target = SECTION_VIEWS.get(name)
    if target is None:
        return None
    module_name, _, function = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    view = getattr(module, function, None)
    return view if callable(view) else None


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
        soft_wrap=True,
    )
    framework = data.get("framework") or {}
    header = Text(f"argtrace {data.get('command')}", style="bold")
    if framework.get("name") and framework.get("version") is None and framework.get("analysed_with"):
        header.append(
            f" — {framework['name']}, release unknown (analysed as {framework['analysed_with']}; "
            "pass --framework-version)"
        )
    elif framework.get("name"):
        how = framework.get("evidence") or framework.get("source")
        header.append(f" — {framework['name']} {framework.get('version') or '?'} ({how})")
    console.print(header)
    parts: list[Any] = []
    _render_servers(data, parts)
    for part in parts:
        console.print(part)
    for note in data.get("notes") or []:
        console.print(Text(f"note: {note}", style="dim"))
    _render_settings(data, console)
    shown_in_table = {s["name"] for s in data.get("settings") or []}
    for key, value in data.items():
        if key in CORE_KEYS or value is None:
            continue
        view = _section_view(key)
        if view is not None:
            shown = view(value)
            console.print(Text(shown) if isinstance(shown, str) else shown)
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
