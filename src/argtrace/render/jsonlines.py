"""``--format json-lines``: one finding per line, a JSON object each (a stable contract, docs/ci.md).

Each object is the finding exactly as in ``--format json`` (same keys, same meaning) plus ``file``,
``line``, ``col`` (where a CI system should show it, relative to the working directory; ``null`` when it has
no place) and ``fingerprint`` (the same one as SARIF's ``partialFingerprints`` and ``--baseline``).
"""

from __future__ import annotations

import json

from argtrace.render.places import fingerprints, places

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def render_json_lines(data: dict[str, Any]) -> str:
    out = []
    findings = data.get("findings") or []
    for finding, place, print_ in zip(findings, places(data), fingerprints(data), strict=True):
        record = {**finding, "file": place.uri, "line": place.line, "col": place.col, "fingerprint": print_}
        out.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
    return "".join(line + "\n" for line in out)
