"""The log against what the user meant: intended values (LG002, LG013) and the launch's time (LG009).

``--expect NAME=VALUE`` and ``check --log`` give intended values; each is compared with the logged one
(``same_value``: numbers, booleans, enum members and lists as the frameworks print them, ``lookup`` through
renamed settings), and a contradiction is explained by what the other layers saw: the flag did not arrive,
the framework rewrote it, or the log is another launch's (another PID, older than the launch, several other
settings differ). vLLM's ``non-default args`` leaves out values equal to the parser's default. A launch or
file older than ``--launched-after`` is stale (LG009).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from argtrace.layers.log.dates import datetime
from argtrace.layers.log.findings import _evidence
from argtrace.layers.log.launch import SETTING_ALIASES, Dump, Launch, LogAnalysis, as_intended
from argtrace.layers.log.redaction import _Redactor
from argtrace.model import Evidence, Finding
from argtrace.rules import log as rules

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def normalise(value: Any) -> Any:
    """A value reduced for comparison: strings lowered and unquoted, numbers as floats, enums by member."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [normalise(v) for v in value]
    if isinstance(value, dict):
        return {str(k): normalise(v) for k, v in value.items() if k != "__class__"}
    text = str(value).strip().strip("'\"")
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null", ""):
        return None
    try:
        return float(text)
    except ValueError:
        pass
    if re.fullmatch(r"[A-Za-z_]\w*\.[A-Za-z_]\w*", text) and not text.startswith("torch."):
        low = text.split(".", 1)[1].lower()
    if low.startswith("torch."):
        low = low[len("torch.") :]
    return low


def same_value(a: Any, b: Any) -> bool:
    na, nb = normalise(a), normalise(b)
    if na == nb:
        return True
    if isinstance(na, str) and isinstance(nb, list):
        return [normalise(x) for x in re.split(r"[,\s]+", na) if x] == nb
    if isinstance(nb, str) and isinstance(na, list):
        return same_value(b, a)
    return False


def lookup(settings: Mapping[str, tuple[Any, Dump]], name: str) -> tuple[str, Any, Dump] | None:
    for key in (name, *SETTING_ALIASES.get(name, ())):
        if key in settings:
            value, dump = settings[key]
            return key, value, dump
    return None


def _staleness(
    lc: Launch,
    analysis: LogAnalysis,
    label: str,
    at: Any,
    after: datetime | None,
    mtime: datetime,
    red: _Redactor,
    after_label: str = "--launched-after",
) -> list[Finding]:
    if after is None:
        return []
    if lc.start is not None and lc.start < after:
        fatal = lc.fatal
        only = (
            f" The error it holds (line {fatal.line}) is from that earlier run, not from yours."
            if fatal is not None
            else ""
        )
        return [
            rules.LG009.finding(
                f"Launch {lc.index} of {label} started at {lc.start.isoformat(sep=' ')}, before "
                f"{after_label} ({after.isoformat(sep=' ')}): it is a previous run and says nothing "
                "about the launch you made (the log was last written at "
                f"{mtime.isoformat(sep=' ', timespec='seconds')}).{only}",
                at=at(lc.first_line),
                launch=lc.index,
            )
        ]
    if mtime < after:
        return [
            rules.LG009.finding(
                f"{label} was last written at {mtime.isoformat(sep=' ', timespec='seconds')}, before "
                f"{after_label} ({after.isoformat(sep=' ')}): no launch after that time wrote to it.",
                at=None,
                launch=lc.index,
            )
        ]
    return []


def _lost_where(name: str, want: Any, earlier: Mapping[str, tuple[str, Any]] | None) -> str:
    """Which explanation the other layers support for a value the log contradicts."""
    if earlier is None:
        return (
            "the flag did not arrive (shell/parser layers: `argtrace check --log LOG SCRIPT`) or the "
            "framework rewrote it (resolution layer)"
        )
    seen = earlier.get(name)
    if seen is None:
        return (
            "the flag did not arrive: no earlier layer saw a value for it (see the shell and parser findings)"
        )
    layer, value = seen
    if not same_value(want, value):
        return f"the flag did not arrive as written: the {layer} layer already has {value!r}"
    if layer == "resolution":
        return (
            f"the {layer} layer predicts {value!r}, so this log is most likely from another launch (or a "
            "rewrite the resolver does not model)"
        )
    return (
        f"the {layer} layer has {value!r}, so it arrived and the framework changed it before this point "
        "(resolution layer: give it the model's config.json) or this log is from another launch"
    )


def _intent_findings(
    lc: Launch,
    analysis: LogAnalysis,
    intended: Mapping[str, Any],
    at: Any,
    after: datetime | None,
    mtime: datetime,
    red: _Redactor,
    launched_after_label: str = "--launched-after",
    pid: int | None = None,
    earlier: Mapping[str, tuple[str, Any]] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> list[Finding]:
    out: list[Finding] = []
    logged = lc.settings()
    mismatches: list[tuple[str, Any, Any, Dump]] = []
    for name, want in intended.items():
        found = lookup(logged, name)
        if found is None:
            continue
        _key, value, dump = found
        if not same_value(want, value):
            mismatches.append((name, want, value, dump))
    args = lc.args_dump
    non_default_dump = args is not None and args.source == "non-default args" and not args.parsed.truncated
    defaults = defaults or {}
    # intended values the parser's default does not explain, missing from vLLM's non-default dump: each is
    # a setting this launch would have logged, so it counts with the mismatches as a sign of another launch
    unlisted = [
        name
        for name, want in intended.items()
        if non_default_dump
        and lookup(logged, name) is None
        and name in defaults
        and not same_value(want, defaults[name])
    ]
    stale = after is not None and ((lc.start is not None and lc.start < after) or mtime < after)
    for name, want, value, dump in mismatches:
        others = [m[0] for m in mismatches if m[0] != name] + unlisted
        other_pid = pid is not None and bool(lc.pids) and pid not in lc.pids
        if stale:
            verdict = f"the evidence points to another launch: this log predates {launched_after_label}"
        elif other_pid:
            verdict = (
                f"the evidence points to another launch: the running server is PID {pid}, this launch logged "
                f"PID {', '.join(str(x) for x in lc.pids)}"
            )
        elif len(others) >= 3:
            verdict = (
                f"the evidence points to another launch: {len(others)} other settings differ too "
                f"({', '.join(others[:5])})"
            )
        else:
            verdict = "the log is this launch's as far as it shows, so " + _lost_where(name, want, earlier)
        out.append(
            rules.LG002.finding(
                red.text(
                    f"{name}: intended {want!r}, the server logged {value!r} ({dump.source}, launch "
                    f"{lc.index}); "
                    f"{verdict}."
                ),
                at=at(dump.line),
                setting=name,
                evidence=[Evidence("log", at(dump.line), red.text(f"{name}={value!r}"))],
                launch=lc.index,
            )
        )
    for name, want in intended.items():
        if lookup(logged, name) is not None or args is None:
            continue
        if args.parsed.truncated:
            continue
        if args.source == "non-default args":
            if name in defaults and same_value(want, defaults[name]):
                continue  # the parser's default: vLLM never lists it, its absence says nothing
            if name in defaults:
                why = (
                    f"its default is {defaults[name]!r}, so vLLM would list it: it never arrived, or this "
                    "log is another launch's"
                )
            else:
                why = "vLLM lists only non-default values: it was the default, or it never arrived"
        else:
            why = "this framework version has no such field (renamed or removed), so the value was not used"
        out.append(
            rules.LG013.finding(
                f"{name} (intended {want!r}) is not in the {args.source} dump of launch {lc.index}: {why}.",
                at=at(args.line),
                setting=name,
                launch=lc.index,
            )
        )
    # Values the errors prove, for settings the log never printed.
    for hit in lc.errors:
        sig = hit.signature
        if sig is None:
            continue
        for implied, cond in sig.implies.items():
            name = as_intended(implied, intended)
            if name not in intended:
                continue
            want = intended[name]
            contradicts = ("not" in cond and same_value(want, cond["not"])) or (
                "is" in cond and not same_value(want, cond["is"])
            )
            if not contradicts or lookup(logged, name) is not None:
                continue
            said = f"not {cond['not']!r}" if "not" in cond else repr(cond["is"])
            if stale:
                verdict = f"this log predates {launched_after_label}, so it may be another launch's error"
            else:
                verdict = "so " + _lost_where(name, want, earlier)
            out.append(
                rules.LG002.finding(
                    red.text(
                        f"{name}: intended {want!r}, but the error at line {hit.line} ([{sig.id}]) is "
                        "raised only "
                        f"when {name} is {said}; {verdict}."
                    ),
                    at=at(hit.line),
                    setting=name,
                    evidence=_evidence(at, hit, red),
                    launch=lc.index,
                )
            )
    return out
