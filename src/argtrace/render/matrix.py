"""The text view of the ``multinode`` section: one table per multi-node launch, a column per node (its pod,
role or ``server N``) and a row per setting that is not the same on every node.

Reads only the report dict (``layers/multinode.py:matrix_section`` builds the section). A row the nodes
must agree on (PA030's settings, the image) is marked ``!``; the others differ by design (ranks,
``--headless``, ports). A value the parser took from the framework's default says ``(default)``; ``?`` is a
value not known statically (a variable of the cluster, each task's own rank).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [columns, *rows]) for i in range(len(columns))]
    line = lambda cells: "  " + "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()  # noqa: E731
    return [line(columns), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def render_matrix_section(section: Mapping[str, Any]) -> str:
    out: list[str] = []
    for launch in section.get("launches") or []:
        columns = [str(c) for c in launch.get("columns") or []]
        servers = ", ".join(str(s) for s in launch.get("servers") or [])
        out.append(f"Multi-node launch ({launch.get('framework')}, servers {servers}): {len(columns)} nodes")
        if launch.get("assumed"):
            # grouped by the model alone: its findings are information (layers/multinode.py:grouped)
            out.append(f"  assumed one launch: {launch['assumed']}")
        rows = launch.get("rows") or []
        if not rows:
            out.append("  every setting is the same on every node")
            continue
        table = [
            [("! " if row.get("must_agree") else "  ") + str(row.get("setting")), *map(str, row["values"])]
            for row in rows
        ]
        out.extend(_table(["  setting", *columns], table))
        if any(row.get("must_agree") for row in rows):
            out.append("  ! the nodes must agree on this setting")
    return "\n".join(out)
