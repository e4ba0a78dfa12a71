"""The layered report for people: the server argv, one row per setting, findings under their setting.

Reads only the (already redacted) report dict. Section renderers for later layers register in
``SECTION_RENDERERS``; unknown sections get a compact generic view.
"""

from __future__ import annotations

import importlib
import io
import json
import sys
from collections.abc import Callable, Mapping, Sequence

from rich.console import Console
from rich.text import Text

from argtrace.model import SEVERITIES
from argtrace.render.screen import (
    ABOUT_THE_ANALYSIS,
    LEAD_COMMANDS,
    SEVERITY_STYLE,
    diagnosis_lines,
    diagnosis_order,
    explains,
    line_places,
    marked,
    more_line,
    one_line,
    output_width,
    reach_line,
    repeated_notes,
    severity_rank,
    short_places,
    shortened,
    shown_settings,
    written,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
    text.append(marked(str(finding.get("message", ""))))
    for evidence in finding.get("evidence") or []:
        where = f"{evidence.get('at')}: " if evidence.get("at") else ""
        text.append(f"\n{indent}          evidence ({evidence.get('layer')}) {where}", style="dim")
        text.append(marked(str(evidence.get("text", ""))))
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
            out.append(
                f"{obs['layer']}: {_marked_value(obs.get('value'))} cut off from the server command  {where}"
            )
        elif obs.get("absent"):
            out.append(f"{obs['layer']}: never arrived  {where}".rstrip())
        elif obs.get("default") and previous is None and not first:
            out.append(f"{obs['layer']}: its default {_marked_value(obs.get('value'))}")
        elif not first and not _same(previous, obs.get("value")):
            change = f"{_marked_value(previous)} -> {_marked_value(obs.get('value'))}"
            out.append(f"{obs['layer']}: {change}  {where}".rstrip())
        previous, first = obs.get("value"), False
    return out


def _marked_value(value: Any) -> str:
    """A value as shown, look-alike characters named (the ``—`` for no value is the renderer's own)."""
    return "—" if value is None else marked(_show(value))


def _render_settings(data: Mapping[str, Any], console: Console) -> None:
    """The settings the user wrote or a layer changed: ``flag  intended -> effective``, then where it
    changed, one line per layer; the codes of the findings about a setting follow it (text in Details)."""
    settings, hidden = shown_settings(data.get("settings") or [])
    if not settings and not hidden:
        return
    codes: dict[str, list[str]] = {}
    shell_at: dict[str, list[str]] = {}
    # the rows are the described server's: a finding placed at another server's command is about that
    # server's setting of the same name (RS080 on a PD decode server beside the prefill server described)
    described = (data.get("process") or {}).get("at")
    others = {s.get("at") for s in data.get("servers") or [] if s.get("at") and s.get("at") != described}
    for finding in data.get("findings") or []:
        if "cause" in finding:
            continue
        if finding.get("setting") and finding.get("at") not in others:
            codes.setdefault(finding["setting"], []).append(str(finding.get("code")))
        if finding.get("layer") == "shell" and finding.get("at"):
            shell_at.setdefault(finding["at"], []).append(str(finding.get("code")))
    # A value the shell separated from the server command (a comment ending a continued line: SH004) names
    # no setting, yet it is why the value never arrived: its code comes first on the setting's row.
    for setting in data.get("settings") or []:
        cut = [h.get("at") for h in setting.get("history") or [] if h.get("separated")]
        first = [c for at in cut for c in shell_at.get(at, [])]
        if first:
            codes[setting["name"]] = list(dict.fromkeys([*first, *codes.get(setting["name"], [])]))
    title = f"Settings ({len(settings)})"
    if hidden:
        title += f"; {hidden} more that only the parser's or the resolver's defaults set: --all-settings"
    console.print(Text(title, style="bold"))
    labels = [s.get("flag") or s["name"] for s in settings]
    w_flag = min(max((len(x) for x in labels), default=0), 32)
    for setting, label in zip(settings, labels, strict=True):
        intended, effective = setting.get("intended"), setting.get("effective")
        value = _marked_value(effective)
        if written(setting) and not _same(intended, effective):
            value = f"{_marked_value(intended)} -> {value}"
        row = Text("  ")
        row.append(f"{label:<{w_flag}}", style="bold")
        row.append(f"  {value}")
        by = _written_by(setting)
        if by:
            row.append(f"  ({by})", style="dim")
        if codes.get(setting["name"]):
            row.append(f"  ({', '.join(codes[setting['name']])})", style="dim")
        console.print(row)
        for change in _changes(setting):
            console.print(Text(f"      {change}", style="dim"))


def _written_by(setting: Mapping[str, Any]) -> str | None:
    """Who wrote a value the user did not: a launcher in front of the server (TRL's ``trl vllm-serve``
    writes its defaults and its own flags into the ``vllm serve`` argv, frameworks/trl_vllm_serve.py)."""
    if any(h.get("layer") == "shell" for h in setting.get("history") or []):
        return None
    for h in setting.get("history") or []:
        via = str(h.get("via") or "")
        if h.get("layer") == "process" and via.startswith(("TRL's default", "written by TRL")):
            return "TRL's default" if via.startswith("TRL's default") else "set by TRL"
    return None


def _render_servers(data: Mapping[str, Any], out: list[Any], places: Mapping[str, str]) -> None:
    servers = data.get("servers") or []
    process = data.get("process")
    for index, server in enumerate(servers, start=1):
        chosen = process is not None and server.get("at") == process.get("at")
        label = f"Server {index} of {len(servers)}" + (
            " (described below)" if chosen and len(servers) > 1 else ""
        )
        loop = f" (in a loop at {server['loop']})" if server.get("loop") else ""
        at = places.get(str(server.get("at")), server.get("at"))
        out.append(
            Text(
                f"{label} at {at}: {server.get('framework')} {server.get('entrypoint')}{loop}",
                style="bold",
            )
        )
        argv = " ".join(
            "<?>" if w is None else (w if w and " " not in w else repr(w)) for w in server.get("argv") or []
        )
        out.append(Text("  " + marked(argv)))
    if process and process.get("env"):
        # a value not known here (a Kubernetes secretKeyRef, an ECS secret) is shown as unknown words are
        env = ", ".join(
            f"{k}={'<?>' if v is None else v}" for k, v in sorted(process["env"].items()) if k not in {"PATH"}
        )
        if env:
            out.append(Text("  env: " + marked(env), style="dim"))


# Text views of report sections, owned by their layers and imported only when the section is present.
# A view returns a string or a rich renderable; sections without a view appear in JSON only.
SECTION_VIEWS: Mapping[str, str] = {
    "memory": "argtrace.layers.memory.render:memory_text",
    "log": "argtrace.layers.log.text:render_log_section",
    "timeline": "argtrace.layers.log.text:render_timeline_section",
    "resolution": "argtrace.layers.resolution:render_resolution_section",
    "transport": "argtrace.layers.transport:render_transport_section",
    "fleet": "argtrace.render.fleet:fleet_text",
    "drift": "argtrace.render.fleet:drift_text",
    "multinode": "argtrace.render.matrix:render_matrix_section",
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


# check.py's note for a launch with no server; the text leaves it out when SH019 or TP104 says so, or SH040
# says a start was found and not followed (the note contradicted it; JSON keeps it).
NO_SERVER_NOTE = "no SGLang or vLLM server start was found in "
NO_SERVER_CODES = frozenset({"SH019", "SH040", "TP104"})
# Commands whose notes follow their sections: ``why``'s notes repeat what its view opens with (no site
# matches well, none at all) and stood above the answer (bench/first_screens_log_why.py).
NOTES_LAST = frozenset({"why"})
# Commands whose report is a listing, not a verdict: no "0 error(s)" line at their end.
NO_VERDICT_LINE = frozenset({"resolver", "ps", "why"})


def first_screen_places(data: Mapping[str, Any], width: int) -> dict[str, str]:
    """The places the first screen names (the causes', the servers'), long ones by their file name."""
    places = [str(f["at"]) for f in data.get("findings") or [] if "cause" not in f and f.get("at")]
    places += [str(s["at"]) for s in data.get("servers") or [] if s.get("at")]
    read = _the_file_read(data)
    if read is not None:
        every = [
            *places,
            *(
                str(e["at"])
                for f in data.get("findings") or []
                for e in f.get("evidence") or []
                if e.get("at")
            ),
        ]
        return {**short_places(places, width), **line_places(every, read)}
    return short_places(places, width)


def _the_file_read(data: Mapping[str, Any]) -> str | None:
    """The one file a ``log`` report reads (its header names it; its places are its lines)."""
    section = data.get("log")
    if data.get("command") != "log" or not isinstance(section, Mapping) or not section.get("path"):
        return None
    return str(section["path"])


def _render_diagnosis(
    data: Mapping[str, Any], console: Console, width: int, places: Mapping[str, str]
) -> None:
    """The causes first: each one line, then why and the fix (``render/screen.py``)."""
    findings = [f for f in data.get("findings") or [] if "cause" not in f]
    if not findings:
        return
    folded = sum(len(f.get("consequences") or []) for f in findings)
    title = f"Diagnosis: {_severity_counts(findings)}"
    if folded:
        title += f"; {folded} more finding{' follows' if folded == 1 else 's follow'} from them"
    console.print(Text(title, style="bold"))
    alarm = any(severity_rank(f) < SEVERITIES.index("info") for f in findings)
    reach = []
    order = diagnosis_order(findings)
    more = repeated_notes(findings, order)
    for n, index in enumerate(order):
        if index not in more and any(index in later for later in more.values()):
            continue  # told on its first note's "+ N more" line
        brief = alarm and severity_rank(findings[index]) == SEVERITIES.index("info")
        if brief and findings[index].get("code") in ABOUT_THE_ANALYSIS:
            # one line together, after the launch's own findings (LG010's excerpt note, about what the
            # file holds, keeps its headline: its words say more than its rule's title)
            reach.append(findings[index])
            continue
        lead = n == 0 and data.get("command") in LEAD_COMMANDS
        for line in diagnosis_lines(findings[index], width, places, brief=brief, lead=lead):
            console.print(line)
        if more.get(index):
            console.print(more_line(findings[index], [findings[i] for i in more[index]], width, places))
    if reach:
        console.print(reach_line(reach, width))


def _severity_counts(findings: Sequence[Mapping[str, Any]]) -> str:
    """``1 error, 2 warnings, 3 info``: what the causes on the first screen are, worst first. A count of
    "causes" alone read as that many problems when most were notes (the release not known, a deprecation)."""
    counts = [(sev, sum(1 for f in findings if f.get("severity") == sev)) for sev in SEVERITY_STYLE]
    nouns = {"error": ("error", "errors"), "warning": ("warning", "warnings"), "info": ("info", "info")}
    return ", ".join(f"{n} {nouns[sev][n != 1]}" for sev, n in counts if n)


def _render_details(data: Mapping[str, Any], console: Console) -> None:
    """Every finding in full; with ``--verbose`` each consequence too, after the cause it follows from."""
    findings = data.get("findings") or []
    if not findings:
        return
    console.print(Text("Details", style="bold"))
    number = {id(f): n for n, f in enumerate((f for f in findings if "cause" not in f), start=1)}
    for finding in findings:
        if "cause" in finding:
            cause = findings[finding["cause"]]
            text = _finding_text(finding, "      ")
            text.append(
                f"\n          follows from #{number.get(id(cause), '?')} {cause.get('code')}", style="dim"
            )
            console.print(text)
            continue
        text = Text(f"  #{number[id(finding)]} ", style="bold")
        text.append_text(_finding_text(finding, "  "))
        console.print(text)
        if explains(finding) and not any(f.get("cause") is not None for f in findings):
            console.print(Text(f"          {explains(finding)} (--verbose lists them)", style="dim"))


def _render_notes(data: Mapping[str, Any], console: Console) -> None:
    said = {f.get("code") for f in data.get("findings") or []}
    for note in data.get("notes") or []:
        if said & NO_SERVER_CODES and note.startswith(NO_SERVER_NOTE):
            continue  # SH019, SH040 or TP104 (the tool stops before any server) says it already
        console.print(Text(f"note: {note}", style="dim"))


def header_line(data: Mapping[str, Any], width: int, places: Mapping[str, str]) -> str:
    """The report's first line: the command, the file a ``log`` reads, the framework and its release, and how
    the release was read, in ``width`` columns. On 93 of the 142 class-a real cases it wrapped over two or
    three lines above the first finding (bench/first_screen_audit.py): the longest form that fits is
    taken, naming the release evidence's file by its name, then dropping that place, then the evidence,
    then the advice (PR011 and the JSON keep them); a ``log``'s file is named by its file name when its
    path would take a quarter of the line (``short_places``)."""
    framework = data.get("framework") or {}
    read = _the_file_read(data)
    if read is not None:
        read = short_places([read], width).get(read, read)
    command = f"argtrace {data.get('command')}" + (f" {read}" if read else "")
    name = framework.get("name")
    forms: list[str] = []
    if name and framework.get("version") is None and framework.get("analysed_with"):
        analysed = framework["analysed_with"]
        forms = [
            f"{command} — {name}, release unknown (analysed as {analysed}; pass --framework-version)",
            f"{command} — {name} release unknown, analysed as {analysed} (--framework-version)",
            f"{command} — {name} release unknown, analysed as {analysed}",
        ]
    elif name:
        version = framework.get("version") or "?"
        how = shortened(str(framework.get("evidence") or framework.get("source")), places)
        forms = [f"{command} — {name} {version} ({how})"]
        # "image vllm/vllm-openai:v0.15.1 at FILE:23": the place is the longest part, and the least needed
        if " at " in how:
            said, place = how.rsplit(" at ", 1)
            forms.append(f"{command} — {name} {version} ({said} at {place.rsplit('/', 1)[-1]})")
            forms.append(f"{command} — {name} {version} ({said})")
        forms.append(f"{command} — {name} {version}")
    else:
        forms = [command]
    fitting = [form for form in forms if len(form) <= width]
    return fitting[0] if fitting else one_line(forms[-1], width)


def render_text(data: Mapping[str, Any]) -> str:
    tty = sys.stdout.isatty()
    width = output_width(tty)
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        force_terminal=tty,
        color_system="auto" if tty else None,
        highlight=False,
        soft_wrap=False,
    )
    places = first_screen_places(data, width)
    console.print(Text(header_line(data, width, places), style="bold"))
    _render_diagnosis(data, console, width, places)
    parts: list[Any] = []
    _render_servers(data, parts, places)
    for part in parts:
        console.print(part)
    if data.get("command") not in NOTES_LAST:
        _render_notes(data, console)
    _render_settings(data, console)
    for key, value in data.items():
        if key in CORE_KEYS or value is None:
            continue
        view = _section_view(key)
        if view is not None:
            shown = view(value)
            console.print(Text(shown) if isinstance(shown, str) else shown)
    if data.get("command") in NOTES_LAST:
        _render_notes(data, console)
    _render_details(data, console)
    if data.get("command") not in NO_VERDICT_LINE:
        # every finding counts, consequences too (they fail the check as much as their cause does)
        causes = [f for f in data.get("findings") or [] if "cause" not in f]
        every = [*causes, *(c for f in causes for c in f.get("consequences") or [])]
        counts = {sev: sum(1 for f in every if f.get("severity") == sev) for sev in SEVERITY_STYLE}
        line = f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info"
        if len(every) > len(causes):
            line += f" from {len(causes)} cause(s)"
        console.print(Text(line))
    return buffer.getvalue()
