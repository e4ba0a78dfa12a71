"""The layer's observations and its ``log`` section: what the report shows of the log.

Observations are the chosen launch's logged values, one per dump, under the names the caller uses (and, for
settings the process died before logging, the value an error implies). The ``log`` section holds the file,
a summary of each launch (state, stage, error, ``waiting_in``; the last ``MAX_LAUNCH_SUMMARIES`` of a
crash-looping server), the chosen launch's arguments with secrets masked, and how the file was read.
``jsonable`` makes values JSON can carry.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from argtrace.layers.log.dates import datetime
from argtrace.layers.log.hang import waiting_summary
from argtrace.layers.log.launch import (
    EVENTS,
    VLLM_CONFIG_ALIASES,
    Launch,
    LogAnalysis,
    as_intended,
    next_missing,
    stopped_after,
)
from argtrace.layers.log.redaction import _Redactor
from argtrace.model import Observation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A crash-looping server can leave thousands of launches in one file: the JSON lists the last ones (and any
# chosen with --launch); ``launch_count`` has the total.
MAX_LAUNCH_SUMMARIES = 100


def jsonable(value: Any) -> Any:
    """Values as JSON can carry them (nan/inf as strings)."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return str(value)
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return value


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _observations(
    lc: Launch,
    at: Any,
    red: _Redactor,
    settings_filter: str | None,
    intended: Mapping[str, Any] | None = None,
) -> dict[str, tuple[str | None, list[Observation]]]:
    obs: dict[str, tuple[str | None, list[Observation]]] = {}
    for dump in lc.dumps:
        for key, value in dump.parsed.values.items():
            name = key
            if dump.source == "engine config":
                name = VLLM_CONFIG_ALIASES.get(key, key)
            name = as_intended(name, intended)
            if settings_filter and settings_filter not in name:
                continue
            _flag_text, items = obs.setdefault(name, (_flag(name), []))
            detail: dict[str, Any] = {"launch": lc.index, "format": dump.parsed.kind}
            if name != key:
                detail["logged_as"] = key
            items.append(
                Observation(
                    layer="log",
                    value=jsonable(value),
                    at=at(dump.line),
                    by=dump.source,
                    detail=detail,
                )
            )
    for hit in lc.errors:
        sig = hit.signature
        if sig is None:
            continue
        for implied, cond in sig.implies.items():
            name = as_intended(implied, intended)
            if name in obs or (settings_filter and settings_filter not in name):
                continue
            said = f"not {cond['not']!r}" if "not" in cond else f"{cond['is']!r}"
            obs[name] = (
                _flag(name),
                [
                    Observation(
                        layer="log",
                        value=cond.get("is"),
                        at=at(hit.line),
                        known="is" in cond,
                        reason=f"not logged (the process died before its args line); the error [{sig.id}] "
                        f"implies it was {said}",
                        by=sig.id,
                        detail={"launch": lc.index, "implies": dict(cond)},
                    )
                ],
            )
    return obs


def _launch_summary(lc: Launch, at: Any, red: _Redactor) -> dict[str, Any]:
    fatal = lc.fatal
    args = lc.args_dump
    state = "failed" if (fatal or lc.usage_error) else ("ready" if lc.ready else "incomplete")
    stage = fatal.stage if fatal else ("arguments" if lc.usage_error else None)
    if state == "incomplete":
        nxt = next_missing(lc)
        if nxt == "args_logged" and lc.post_args_evidence:
            # an excerpt past its configuration line with no start-up step in it: which step is not shown
            stage = "unknown"
        else:
            stage = None
        stage = (
            stage
            or {"args_logged": "validation"}.get(nxt or "", None)
            or {
                "weights_loaded": "weights",
                "kv_cache_allocated": "kv_cache",
                "cuda_graph_captured": "cuda_graph",
                "server_ready": "serving",
            }.get(nxt or "", None)
        )
    summary: dict[str, Any] = {
        "launch": lc.index,
        "next_expected": None if lc.ready or fatal else next_missing(lc),
        "lines": [lc.first_line, lc.last_line],
        # anchor lines the scan's memory bound let go inside this launch (a log of more than it keeps)
        "lines_dropped": lc.lines_dropped,
        "started": lc.start.isoformat(sep=" ") if lc.start else None,
        "framework": lc.framework,
        "version": lc.version,
        "pids": lc.pids,
        "state": state,
        "stopped_after": stopped_after(lc),
        "stage": stage,
        # the start-up step it stopped in (hang.STEP_ORDER) and the line that began it (None: inferred as
        # the step after the last one that ended); that the launch is stuck there is an assumption
        "waiting_in": waiting_summary(lc, at) if state == "incomplete" else None,
        "args_at": at(args.line) if args else None,
        "args_format": args.parsed.kind if args else None,
        "args_truncated": args.parsed.truncated if args else None,
        "settings_logged": len(lc.settings()),
        "error": None,
    }
    if fatal is not None:
        summary["error"] = {
            "at": at(fatal.line),
            "text": red.text(fatal.text[:2000]),
            "signature": fatal.signature.id if fatal.signature else None,
            "code": fatal.signature.code if fatal.signature else "LG011",
            "stage": fatal.stage,
            "traceback": [red.text(x[:500]) for x in fatal.traceback[-40:]],
        }
    return summary


def _log_section(
    analysis: LogAnalysis, selected: list[Launch], label: str, at: Any, red: _Redactor, mtime: datetime
) -> dict[str, Any]:
    scan = analysis.scan
    section: dict[str, Any] = {
        "path": label,
        "size": scan.size,
        "gzip": scan.gzip,
        "lines": scan.total_lines,
        "modified": mtime.isoformat(sep=" ", timespec="seconds"),
        "framework": analysis.framework,
        "version": next((lc.version for lc in reversed(analysis.launches) if lc.version), None),
        "launch_count": len(analysis.launches),
        "selected": [lc.index for lc in selected],
        "launches": [
            _launch_summary(lc, at, red)
            for lc in analysis.launches
            if lc in selected or lc.index > len(analysis.launches) - MAX_LAUNCH_SUMMARIES
        ],
        "events": list(EVENTS),
        "scan": {
            "bytes": scan.bytes_read,
            "kept_lines": len(scan.lines),
            "skipped_blocks": scan.skipped_blocks,
            "searched_blocks": scan.searched_blocks,
            "long_lines": scan.long_lines[:20],
            "binary": scan.binary,
            "ends_with_newline": scan.ends_with_newline,
            "leading_nuls": scan.leading_nuls,
            "lines_dropped": scan.hits_dropped,
            "gzip_problem": scan.gzip_problem,
        },
    }
    if selected:
        chosen = selected[-1]
        section["args"] = {
            name: jsonable(red.value(name, value)) for name, (value, _dump) in chosen.settings().items()
        }
    return section
