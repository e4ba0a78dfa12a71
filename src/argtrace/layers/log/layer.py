"""The log layer's entry point: a log file in, observations, findings and report sections out.

``analyze_log`` reads the file where it lies (``read_log``, through the host seam), builds its launches
(``analyze.py``), picks the ones asked for (``--launch``) and gathers what the modules beside it say: a file
with no server launch (``no_launch.py``), each launch's own findings (``findings.py``), the comparison with
the intended values and the launch time (``intent.py``), the observations and the ``log`` and ``timeline``
sections (``sections.py``), every secret the log holds masked (``redaction.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping
from pathlib import Path

from argtrace.layers.log.analyze import build_launches
from argtrace.layers.log.dates import datetime
from argtrace.layers.log.findings import _launch_findings
from argtrace.layers.log.launch import Launch, iter_events
from argtrace.layers.log.prefix import clamp_year, year_for
from argtrace.layers.log.reader import Scan
from argtrace.layers.log.redaction import _PLACEHOLDERS, _Redactor, _secret_dest
from argtrace.layers.log.sections import _log_section, _observations, jsonable
from argtrace.model import Finding, LayerResult
from argtrace.redact import is_secret_name, remember
from argtrace.rules import log as rules

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _naive(dt: datetime | None) -> datetime | None:
    if dt is None or dt.tzinfo is None:
        return dt
    return dt.astimezone().replace(tzinfo=None)


def parse_time(text: str) -> datetime:
    """ISO 8601 (``2026-11-30T08:00:00``, with or without zone, ``Z`` allowed)."""
    value = text.strip()
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    return datetime.fromisoformat(value)


def analyze_log(
    path: Path | str,
    label: str,
    *,
    intended: Mapping[str, Any] | None = None,
    framework: str | None = None,
    launched_after: datetime | None = None,
    launch: int | str | None = None,
    show_secrets: bool = False,
    settings_filter: str | None = None,
    launched_after_label: str = "--launched-after",
    pid: int | None = None,
    earlier: Mapping[str, tuple[str, Any]] | None = None,
    only: Collection[str] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> LayerResult:
    """Read one server log; observations (layer ``log``) for the chosen launch, findings for all chosen.

    ``launch`` is a 1-based launch number, ``"all"``, or ``None`` for the last launch. ``intended`` maps dest
    names to the values the user meant; each is compared with what the log shows. ``launched_after`` marks a
    log whose chosen launch (or whose file) is older as stale; ``launched_after_label`` says where that time
    came from in messages (``--launched-after``, or ``the modification time of launch.sh``). ``pid``, when
    the running server's PID is known (``check --pid``), is compared with the PIDs the launch logged.
    ``earlier`` maps a setting to the deepest earlier layer's ``(layer, value)`` (``check``): it decides
    which explanation a contradiction supports (did not arrive / arrived and was rewritten / other launch).
    ``only`` limits the observations to these settings (plus the ones a finding names): ``check`` passes the
    settings its other layers know, so a 300-field dump does not become 300 rows; ``log.args`` keeps it all.
    ``defaults`` maps intended settings to the parser's default (``check``): vLLM's "non-default args" dump
    leaves out a value equal to it, and one that differs but is missing there is a sign of another launch.
    """
    result = LayerResult()
    scan, mtime = read_log(path, label)
    after = _naive(launched_after)
    analysis = build_launches(scan, framework=framework, year_hint=year_for(mtime, after))
    for lc in analysis.launches:
        if lc.start is not None:
            lc.start = clamp_year(lc.start, mtime)
    secrets: set[str] = set()
    for lc in analysis.launches:
        for dump in lc.dumps:
            for key, value in dump.parsed.values.items():
                if _secret_dest(key) or is_secret_name(key):
                    # vLLM's --api-key is a list: every element is a secret.
                    items = value if isinstance(value, (list, tuple)) else [value]
                    secrets |= {v for v in items if isinstance(v, str) and v not in _PLACEHOLDERS}
    remember(*secrets)
    red = _Redactor(secrets, show_secrets)

    selected = _select(analysis.launches, launch)
    at = _at_factory(label)
    findings: list[Finding] = []
    if not analysis.launches or not any(_is_server_launch(lc) for lc in analysis.launches):
        from argtrace.layers.log.no_launch import _not_a_log  # only a file with no server launch

        findings.append(_not_a_log(scan, label, at))
    if scan.leading_nuls:
        findings.append(
            rules.LG010.finding(
                f"{label} starts with {scan.leading_nuls} NUL byte(s): it was truncated (`> log`, "
                "logrotate copytruncate) while a process still had it open and kept writing at its old "
                "offset; the lines after the hole may come from that older process, not from a new launch.",
                at=f"{label}:1",
                fix="Stop the old server before truncating or reusing its log (check with `fuser LOG` or "
                "`lsof LOG`), or give each launch its own log file.",
                launch=selected[-1].index if selected else None,
            )
        )
    if scan.gzip_problem:
        findings.append(
            rules.LG010.finding(
                f"{label}: {scan.gzip_problem}; the {scan.total_lines} line(s) before the break were "
                "analysed, anything after it is unknown.",
                at=f"{label}:{max(scan.total_lines, 1)}",
                fix="Read the log again once it is complete (or the uncompressed original); `gzip -t LOG` "
                "tests the file.",
                launch=selected[-1].index if selected else None,
            )
        )
    for lc in selected:
        if not _is_server_launch(lc):
            continue
        findings.extend(_launch_findings(lc, analysis, at, red, mtime))
        if lc.fatal is not None and lc is analysis.launches[-1]:  # the lines after its death are its own
            from argtrace.layers.log.health_after import health_after_death

            findings.extend(health_after_death(scan, lc, label))
        if after is None and not intended:
            continue  # nothing to compare the log with: intent.py is not imported
        from argtrace.layers.log.intent import _intent_findings, _staleness

        findings.extend(_staleness(lc, analysis, label, at, after, mtime, red, launched_after_label))
        if intended:
            findings.extend(
                _intent_findings(
                    lc,
                    analysis,
                    intended,
                    at,
                    after,
                    mtime,
                    red,
                    launched_after_label,
                    pid,
                    earlier,
                    defaults,
                )
            )
    result.findings = findings
    if selected:
        chosen = selected[-1]
        result.observations = _observations(chosen, at, red, settings_filter, intended)
        if only is not None:
            keep = set(only) | {f.setting for f in findings if f.setting}
            result.observations = {k: v for k, v in result.observations.items() if k in keep}
        if intended:
            result.intended = dict(intended)
    result.sections["log"] = _log_section(analysis, selected, label, at, red, mtime)
    result.sections["timeline"] = [
        {"launch": lc.index, "event": ev.name, "at": at(ev.line), "time": ev.time, **jsonable(ev.fields)}
        for lc in selected
        for ev in iter_events(lc)
    ]
    return result


def read_log(path: Path | str, label: str) -> tuple[Scan, datetime]:
    """The log's kept lines and its modification time, read where the log lies (``argtrace --host``: on the
    node, whose collector runs this reader and sends back only the kept lines)."""
    from argtrace.layers.hostlog import log_reader
    from argtrace.model import UsageError
    from argtrace.remote.host import HostError, current_host

    host = current_host()
    text = str(path)
    try:
        scan = host.scan_log(text, log_reader(), label)
        st = host.stat(text)
    except HostError as exc:
        # ssh.py (its threads, selectors) is imported only by a command run over ssh: no other host raises
        # its TransportError, which goes up as it is
        ssh = sys.modules.get("argtrace.remote.ssh")
        if ssh is not None and isinstance(exc, ssh.TransportError):
            raise
        message = str(exc)
        reason = message[len(text) + 2 :] if message.startswith(text + ": ") else message
        raise UsageError(f"cannot read log {host.describe(label)}: {reason}") from exc
    if st.mtime is None:
        raise UsageError(f"cannot read log {host.describe(label)}: it disappeared while being read")
    return scan, datetime.fromtimestamp(st.mtime)


def _at_factory(label: str) -> Any:
    def at(line: int | None) -> str | None:
        return f"{label}:{line}" if line else None

    return at


def _is_server_launch(lc: Launch) -> bool:
    return bool(lc.framework or lc.dumps or lc.events or lc.errors or lc.usage_error or lc.begun)


def _select(launches: list[Launch], launch: int | str | None) -> list[Launch]:
    if not launches:
        return []
    if launch is None or launch == "last":
        return [launches[-1]]
    if launch == "all":
        return list(launches)
    try:
        n = int(launch)
    except (TypeError, ValueError):
        from argtrace.model import UsageError

        raise UsageError(f"--launch takes a number, 'last' or 'all', not {launch!r}") from None
    if n < 0:
        n = len(launches) + 1 + n
    if not 1 <= n <= len(launches):
        from argtrace.model import UsageError

        raise UsageError(f"the log holds {len(launches)} launch(es); there is no launch {launch}")
    return [launches[n - 1]]
