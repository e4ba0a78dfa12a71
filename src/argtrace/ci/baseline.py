"""``--baseline FILE`` reports only the findings not in it; ``--write-baseline FILE`` writes one.

Findings are matched by fingerprint (``render/places.fingerprints``: code, file, setting and the message
without its line numbers, computed from the redacted report), so a baseline survives lines added above a
finding and holds no secret. The file is JSON: ``{"argtrace_baseline": 1, "findings": [{fingerprint, code,
file, message}]}``; only ``fingerprint`` is read back, the rest is for the people reviewing it.
"""

from __future__ import annotations

import json

from argtrace import safe_json
from argtrace.localfs import read_regular, write_regular
from argtrace.model import Report, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMAT_VERSION = 1
# A baseline holds one short entry per finding: 64 MiB is some 200,000 findings.
MAX_BASELINE_BYTES = 64 * 1024 * 1024


def report_fingerprints(report: Report) -> tuple[list[str], list[dict[str, Any]]]:
    """Each finding's fingerprint and its redacted dict (for the baseline file)."""
    from argtrace.render.json import to_dict
    from argtrace.render.places import fingerprints, places
    from argtrace.render.redaction import redact_report_dict

    data = redact_report_dict(to_dict(report))
    prints = fingerprints(data)
    entries = [
        {"fingerprint": fp, "code": f["code"], "file": place.uri, "message": f["message"]}
        for fp, f, place in zip(prints, data["findings"], places(data), strict=True)
    ]
    return prints, entries


def read_baseline(path: str) -> set[str]:
    try:
        # a FIFO named as the baseline hung the run, /dev/zero filled memory (probe of session 15)
        data = safe_json.loads(read_regular(path, MAX_BASELINE_BYTES).decode("utf-8"))
    except OSError as exc:
        raise UsageError(f"--baseline {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UsageError(f"--baseline {path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("argtrace_baseline") != FORMAT_VERSION:
        raise UsageError(f"--baseline {path}: not an argtrace baseline (written by --write-baseline)")
    return {str(e.get("fingerprint")) for e in data.get("findings") or [] if isinstance(e, dict)}


def write_baseline(path: str, entries: list[dict[str, Any]]) -> None:
    text = json.dumps(
        {"argtrace_baseline": FORMAT_VERSION, "findings": entries}, indent=2, ensure_ascii=False
    )
    try:
        write_regular(path, (text + "\n").encode("utf-8"))  # a FIFO is refused, not waited on
    except OSError as exc:
        raise UsageError(f"--write-baseline {path}: {exc.strerror or exc}") from None


def apply_baseline(report: Report, baseline: str | None, write: str | None) -> None:
    if baseline is None and write is None:
        return
    known = read_baseline(baseline) if baseline is not None else set()
    prints, entries = report_fingerprints(report)
    if write is not None:
        write_baseline(write, entries)
        report.notes.append(f"wrote {len(entries)} finding(s) to the baseline {write}")
    if baseline is None:
        return
    keep = [i for i, fp in enumerate(prints) if fp not in known]
    dropped = len(prints) - len(keep)
    per = report.sections.get("finding_inputs")
    if isinstance(per, list) and len(per) == len(report.findings):
        report.sections["finding_inputs"] = [per[i] for i in keep]
    report.findings = [report.findings[i] for i in keep]
    report.sections["baseline"] = {"file": baseline, "known": dropped}
    report.notes.append(f"{dropped} finding(s) already in the baseline {baseline} not reported")
