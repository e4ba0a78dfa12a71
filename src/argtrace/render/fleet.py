"""Text views of ``argtrace fleet``'s sections: the groups of replicas, and the drift as a matrix (one
column per replica, one row per setting that differs), like the multi-node matrix of issue 22. Reads the
finished report only."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from rich.table import Table
from rich.text import Text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_CELL = 40


def _cell(value: Any, default: bool = False) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    if len(text) > MAX_CELL:
        text = text[: MAX_CELL - 1] + "…"
    return f"{text} (default)" if default else text


def fleet_text(section: Mapping[str, Any]) -> Any:
    """The groups (framework, model, role: the replicas in it) and the targets that did not answer."""
    lines = [Text("Replicas", style="bold")]
    for group in section.get("groups") or []:
        role = f", role {group['role']}" if group.get("role") else ""
        lines.append(Text(f"  {group.get('framework')} {_cell(group.get('model'))}{role}:"))
        lines += [Text(f"    {target}") for target in group.get("targets") or []]
    for miss in section.get("unanswered") or []:
        lines.append(Text(f"  no answer: {miss['target']}: {miss['why']}", style="dim"))
    return Text("\n").join(lines)


def drift_text(drift: Sequence[Mapping[str, Any]]) -> Any:
    """One table per group that drifts: a row per setting, a column per replica."""
    if not drift:
        return Text("Drift: none (every group's replicas agree)")
    by_group: dict[str, list[Mapping[str, Any]]] = {}
    for entry in drift:
        key = json.dumps([entry.get("model"), entry.get("role")], default=str)
        by_group.setdefault(key, []).append(entry)
    tables: list[Any] = []
    for entries in by_group.values():
        targets: list[str] = []
        for entry in entries:
            targets += [v["target"] for v in entry["values"] if v["target"] not in targets]
        role = f" ({entries[0]['role']})" if entries[0].get("role") else ""
        table = Table(title=f"Drift: {_cell(entries[0].get('model'))}{role}", title_justify="left")
        # the setting names stay whole; the replicas' columns fold their long URLs instead
        table.add_column("setting", no_wrap=True, min_width=max(len(e["setting"]) for e in entries))
        for target in targets:
            table.add_column(target, overflow="fold")
        for entry in entries:
            cells = {v["target"]: _cell(v["value"], bool(v.get("default"))) for v in entry["values"]}
            table.add_row(entry["setting"], *(cells.get(t, "") for t in targets))
        tables.append(table)
    from rich.console import Group

    return Group(*tables)
