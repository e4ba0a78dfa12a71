"""The log layer's entry point: a log file in, observations, findings and report sections out."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Collection, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from argtrace.layers.log.analyze import (
    EVENTS,
    POST_ARGS_EVENTS,
    SETTING_ALIASES,
    Dump,
    ErrorHit,
    Launch,
    LogAnalysis,
    build_launches,
    clamp_year,
    exception_of,
    iter_events,
    lookup,
    next_missing,
    same_value,
    split_prefix,
    stopped_after,
    year_for,
)
from argtrace.layers.log.hang import waiting_in, waiting_summary
from argtrace.layers.log.reader import Scan
from argtrace.layers.log.signatures import load_catalog
from argtrace.layers.log.sites import site_hint
from argtrace.layers.log.stages import FRAME_LINE, frames_framework, frames_stage
from argtrace.model import Evidence, Finding, LayerResult, Observation, Severity
from argtrace.redact import is_secret_flag, is_secret_name, mask, remember, scrub
from argtrace.rules import log as rules

# A crash-looping server can leave thousands of launches in one file: the JSON lists the last ones (and any
# chosen with --launch); ``launch_count`` has the total.
MAX_LAUNCH_SUMMARIES = 100
_SEVERITY: dict[str, Severity] = {"error": "error", "warning": "warning", "info": "info"}
_PLACEHOLDERS = frozenset({"[REDACTED]", "***", "<redacted>", ""})
_STAGE_TEXT = {
    "import": "importing the framework",
    "arguments": "argument parsing",
    "validation": "argument validation",
    "model_config": "reading the model config",
    "weights": "loading the weights",
    "mamba_cache": "allocating the Mamba state cache",
    "kv_cache": "allocating the KV cache",
    "cuda_graph": "capturing CUDA graphs",
    "draft_worker": "starting the speculative draft worker",
    "serving": "serving",
    "distributed": "initialising the distributed (NCCL) group",
    "engine_config": "building vLLM's engine configuration (after its arguments were logged)",
    "unknown": "a step this excerpt does not show",
}
_NEXT_EVENT = {
    None: "args_logged",
    "args_logged": "weights_loaded",
    "model_config": "weights_loaded",
    "weights_loaded": "kv_cache_allocated",
    "mamba_cache_allocated": "kv_cache_allocated",
    "kv_cache_allocated": "cuda_graph_captured",
    "memory_pool_end": "cuda_graph_captured",
    "cuda_graph_captured": "server_ready",
    "draft_worker_ready": "server_ready",
    "server_ready": None,
}


def _secret_dest(name: str) -> bool:
    return is_secret_flag("--" + name.replace("_", "-"))


class _Redactor:
    def __init__(self, secrets: set[str], show: bool) -> None:
        self.secrets = {s for s in secrets if s not in _PLACEHOLDERS}
        self.show = show

    def text(self, value: str) -> str:
        return value if self.show else scrub(value, self.secrets)

    def value(self, name: str, value: Any) -> Any:
        if self.show:
            return value
        if isinstance(value, str):
            if _secret_dest(name) and value not in _PLACEHOLDERS:
                return mask(value)
            return scrub(value, self.secrets)
        if isinstance(value, list):
            return [self.value(name, v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(str(k), v) for k, v in value.items()}
        return value


def jsonable(value: Any) -> Any:
    """Values as JSON can carry them (nan/inf as strings)."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return str(value)
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return value


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


# A serving process's steady lines (lines.BORING's forms and the OpenAI API's request lines).
_SERVING_LINE = re.compile(
    r"(?:Decode|Prefill) batch[.,] #|Avg prompt throughput|\"(?:POST|GET) /(?:v1/\S*|generate|health)\S* "
    r"HTTP/1\.1\" \d{3}"
)


def _not_a_log(scan: Scan, label: str, at: Any) -> Finding:
    if scan.bytes_read == 0:
        what = "is empty"
    elif scan.binary:
        what = "looks binary (NUL bytes), not a text log"
    else:
        dump = None if scan.gzip else _argument_dump_piece(scan.path)
        if dump is not None:
            framework, count = dump
            # a piece of the server's own argument dump, cut from its line (vllm#14992's excerpt): the file
            # is the server's, only too little of it to say what it saw; nothing points to another file
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) holding part of a {framework} argument dump "
                f"({count} of its settings as name=value) without the start of its line, so neither the "
                "release nor the launch it belongs to shows: it cannot say what the server saw.",
                at=None,
                severity="info",
                fix="Give argtrace the whole log, from the server's start.",
            )
        frames = None if scan.gzip else _traceback_piece(scan.path)
        if frames is not None:
            framework, count, last = frames
            # frames of the server's own traceback whose indentation and exception line the copy lost
            # (sglang#3460): the server's file, too little of it to name the error
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) holding {count} frame(s) of a {framework} traceback "
                f"(the last in {last}) without its exception line: the error and the settings that led to "
                "it are not in the file.",
                at=None,
                severity="info",
                fix="Give argtrace the whole log, from the server's start, or the full traceback with its "
                "last line (the exception).",
            )
        if _SERVING_LINE.search(scan.last_line):
            # it ends in a running server's steady lines (SGLang's decode/prefill batches, vLLM's throughput
            # stats, the OpenAI API's requests): the server's file, read long after its start
            return rules.LG012.finding(
                f"{label} has {scan.total_lines} line(s) that end in a running server's serving lines "
                f"(`{scan.last_line.strip()[:80]}`): it started and serves; its start-up, and so the values "
                "it started with, are not in the file.",
                at=None,
                severity="info",
                fix="Give argtrace the log from the server's start (an older rotated file, the journal).",
            )
        what = f"has {scan.total_lines} line(s) but none from an SGLang or vLLM server"
    return rules.LG012.finding(f"{label} {what}: it cannot say what the server saw.", at=None)


def _traceback_piece(path: str, limit: int = 1 << 16) -> tuple[str, int, str] | None:
    """(framework, frames, last function) when the file's head holds traceback frames through one
    framework's source files; None otherwise. Read only for a file with no server line."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(limit).decode("utf-8", "replace")
    except OSError:
        return None
    found = [m for m in (FRAME_LINE.match(line) for line in text.splitlines()) if m]
    framework = frames_framework("\n".join(m.group("path") for m in found))
    if framework is None or len(found) < 2:
        return None
    return framework, len(found), found[-1].group("fn")


# How many of a framework's setting names, written ``name=``, make a text a piece of its argument dump
# (``Namespace(...)``/``ServerArgs(...)`` print every field; a config file or prose holds a few at most).
_DUMP_NAMES = 8


def _argument_dump_piece(path: str, limit: int = 1 << 16) -> tuple[str, int] | None:
    """(framework, names) when the file's head holds ``name=value`` pairs of one framework's settings, as
    its argument dump prints them; None otherwise. Read only for a file with no server line."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    try:
        with open(path, "rb") as handle:
            text = handle.read(limit).decode("utf-8", "replace")
    except OSError:
        return None
    names = set(re.findall(r"(?<![\w.])([a-z][a-z0-9_]*)=", text))
    if len(names) < _DUMP_NAMES:
        return None
    best: tuple[str, int] | None = None
    for framework in ("vllm", "sglang"):
        versions = bundled_versions(framework)
        if not versions:
            continue
        dests = {o.dest for o in load_schema(framework, versions[-1]).options}
        count = len(names & dests)
        if count >= _DUMP_NAMES and (best is None or count > best[1]):
            best = (framework, count)
    return best


# --- per-launch findings -------------------------------------------------------------------------------
def _evidence(at: Any, hit: ErrorHit, red: _Redactor) -> list[Evidence]:
    ev = [Evidence("log", at(hit.line), red.text(hit.text[:2000]))]
    if hit.traceback:
        exc = _exception_line(hit.traceback)
        if exc and exc != hit.text:
            ev.append(Evidence("log", None, red.text(exc[:2000])))
        frames = [ln for ln in hit.traceback if ln.strip().startswith("File ")][-3:]
        for fr in frames:
            ev.append(Evidence("log", None, red.text(split_prefix(fr).body.strip()[:500])))
    return ev


def _exception_line(block: list[str]) -> str | None:
    for raw in reversed(block):
        body = split_prefix(raw).body
        if body.strip() and not body.startswith((" ", "\t")) and not body.startswith("During handling"):
            return body.strip()
    return None


_FLAG_IN_TEXT = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)+|[a-z]{3,})(?![\w-])")
_DEST_IN_TEXT = re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")


def settings_named(text: str, logged: Mapping[str, Any]) -> list[str]:
    """Dest names an error message mentions: ``--flag-name`` spellings, and dest names the log knows."""
    names: list[str] = []
    for m in _FLAG_IN_TEXT.finditer(text):
        name = m.group(1).replace("-", "_")
        if name not in names:
            names.append(name)
    for m in _DEST_IN_TEXT.finditer(text):
        name = m.group(1)
        if name in logged and name not in names:
            names.append(name)
    return names


def _capacity_cap(lc: Launch, at: Any) -> list[Finding]:
    """The scheduler running fewer requests than the configuration asked for (SGLang caps silently)."""
    kv = lc.events.get("kv_cache_allocated")
    running = kv.fields.get("slots") if kv is not None else None
    logged = lc.settings()
    asked = logged.get("max_running_requests")
    if not isinstance(running, int) or asked is None or not isinstance(asked[0], int) or running >= asked[0]:
        return []
    assert kv is not None
    where = lc.scheduler_line or kv.line
    mamba_slots = logged.get("max_mamba_cache_size", (None, None))[0]
    mamba_event = lc.events.get("mamba_cache_allocated")
    if mamba_slots is None and mamba_event is not None:
        mamba_slots = mamba_event.fields.get("slots")
    hybrid = mamba_event is not None or mamba_slots is not None
    sig = next((s for s in load_catalog().signatures if s.id == "sglang-max-running-capped-by-mamba"), None)
    if hybrid and sig is not None:
        per_req = (
            f", {mamba_slots // running} slot(s) per request"
            if isinstance(mamba_slots, int) and running
            else ""
        )
        message = (
            f"[{sig.id}] {sig.meaning}: the configuration asks for max_running_requests={asked[0]} (line "
            f"{asked[1].line}) but the scheduler runs with {running} (line {where}); the Mamba state cache "
            f"holds {mamba_slots if mamba_slots is not None else 'an unknown number of'} slots{per_req}."
        )
        return [
            rules.LG008.finding(
                message, at=at(where), setting="max_running_requests", fix=sig.fix, launch=lc.index
            )
        ]
    return [
        rules.LG008.finding(
            f"The configuration asks for max_running_requests={asked[0]} (line {asked[1].line}) but the "
            f"scheduler runs with {running} (line {where}): the memory pools hold fewer requests.",
            at=at(where),
            setting="max_running_requests",
            fix="Give the KV/Mamba pools more memory, or set --max-running-requests to what fits.",
            launch=lc.index,
        )
    ]


def _launch_findings(
    lc: Launch, analysis: LogAnalysis, at: Any, red: _Redactor, mtime: datetime | None = None
) -> list[Finding]:
    out: list[Finding] = []
    fw = lc.framework or "the server"
    fatal = lc.fatal
    for hit in lc.errors:
        sig = hit.signature
        if sig is None:
            continue
        if sig.wrapper and fatal is not None and fatal is not hit:
            continue
        rule = getattr(rules, sig.code)
        where = _STAGE_TEXT.get(hit.stage, hit.stage)
        times = f" (x{hit.count})" if hit.count > 1 else ""
        implied = "".join(
            f" It means {name} was not {cond['not']!r} when checked."
            if "not" in cond
            else f" It means {name} was {cond['is']!r}."
            for name, cond in sig.implies.items()
        )
        values = "".join(
            f" Logged {k}={v}."
            for k, v in hit.groups.items()
            if k not in ("arch", "reason", "args", "value", "flag")
        )
        message = f"[{sig.id}] {sig.meaning} (during {where}).{implied}{values} Line{times}: {hit.text[:300]}"
        severity: Severity | None = _SEVERITY.get(sig.severity or "")
        out.append(
            rule.finding(
                red.text(message),
                at=at(hit.line),
                setting=sig.settings[0] if sig.settings else None,
                evidence=_evidence(at, hit, red),
                fix=sig.fix,
                severity=severity,
                launch=lc.index,
            )
        )
    if fatal is not None and fatal.signature is None:
        named = settings_named(fatal.text, lc.settings())
        hint = site_hint(fatal.text, lc.framework) if fatal.exception else None
        stage = hint.stage if hint and hint.stage and not fatal.traceback else fatal.stage
        where = _STAGE_TEXT.get(stage, stage)
        also = f" Settings named in the error: {', '.join(named)}." if named else ""
        fix = None
        if hint is not None:
            # the framework's own raise site (the message index): what decides the error, and so the fix
            reads = f", which reads {', '.join(hint.flags)}" if hint.flags else ""
            cond = f" when `{hint.condition}`" if hint.condition else ""
            also += f" {hint.framework} raises it in {hint.function} ({hint.file}){cond}{reads}."
            if hint.flags:
                fix = (
                    f"Change {', '.join(hint.flags)} so that `{hint.condition or 'the condition'}` no longer "
                    "holds (`argtrace why` on the message shows the site in every release)."
                )
        setting = named[0] if named else (hint.dests[0] if hint and hint.dests else None)
        out.append(
            rules.LG011.finding(
                red.text(f"Launch {lc.index} died during {where} with: {fatal.text[:300]}.{also}"),
                at=at(fatal.line),
                setting=setting,
                evidence=_evidence(at, fatal, red),
                fix=fix,
                launch=lc.index,
            )
        )
    post_args = bool(set(lc.events) & POST_ARGS_EVENTS) or lc.post_args_evidence
    # An excerpt that starts past the configuration line says what the file lacks, not that the launch went
    # wrong: a note, so a working launch's excerpt gives no warning.
    excerpt = lc.args_dump is None and post_args
    if excerpt:
        out.append(
            rules.LG010.finding(
                f"Launch {lc.index} begins mid-start-up (its first line here, {lc.first_line}, is already "
                "past the configuration line): the beginning of this launch is not in the file (rotated, "
                "truncated or an excerpt), so the values it started with are unknown.",
                at=at(lc.first_line),
                fix="Read the launch from its start: an older rotated file (server.log.1), the terminal or "
                "the service journal; or relaunch with the log kept whole.",
                severity="info",
                launch=lc.index,
            )
        )
    # a traceback through argument validation whose exception line the file lacks (a copy cut it)
    headless = None if fatal or lc.usage_error else _cut_validation_traceback(lc)
    if lc.args_dump is None and not post_args and (fatal is not None or lc.usage_error or headless):
        stage = fatal.stage if fatal else ("arguments" if lc.usage_error else headless or "validation")
        line_word = "server_args=" if fw != "vllm" else "non-default args:"
        out.append(
            rules.LG001.finding(
                f"Launch {lc.index} ({fw}) has no `{line_word}` line: the process died during "
                f"{_STAGE_TEXT.get(stage, stage)}"
                f"{' (its traceback stops before the exception line)' if headless else ''}, before it logged "
                "its configuration, so the values it saw are not in this log (grepping it for a setting "
                "finds nothing).",
                at=at(fatal.line) if fatal else at(lc.first_line),
                evidence=_evidence(at, fatal, red) if fatal else [],
                fix="Read the whole traceback (its last line is the exception); run `argtrace check` on the "
                "launch script to see which values the server would get."
                if headless
                else None,
                launch=lc.index,
            )
        )
    args = lc.args_dump
    out.extend(_capacity_cap(lc, at))
    if args is not None and args.parsed.truncated:
        last = list(args.parsed.values)[-1] if args.parsed.values else None
        out.append(
            rules.LG010.finding(
                f"The {args.source} dump at line {args.line} is cut short: {len(args.parsed.values)} "
                "setting(s) "
                f"read{f', the last complete one {last}' if last else ''}; settings after it are unknown.",
                at=at(args.line),
                launch=lc.index,
            )
        )
    if fatal is None and not lc.ready and (lc.dumps or lc.events or lc.begun) and not lc.usage_error:
        last_event = stopped_after(lc)
        nxt = next_missing(lc)
        cut = "" if analysis.scan.ends_with_newline else " The file ends in the middle of a line."
        waiting = waiting_in(lc)
        note = None
        if waiting is not None:
            from argtrace.layers.log.hang_text import hang_note  # only for a launch that stops

            step, began_line = waiting
            tail = split_prefix(analysis.scan.last_line).time if analysis.scan.last_line else None
            began = f"line {began_line}" if began_line is not None else None
            note = hang_note(
                lc.framework,
                step,
                began,
                last_time=(tail or lc.end) if mtime else None,
                mtime=mtime or datetime.now(),
                now=datetime.now(),
            )
        out.append(
            rules.LG010.finding(
                f"Launch {lc.index} stops after {last_event or 'its first lines'} (line {lc.last_line}) "
                "without an "
                f"error{f' and before {nxt}' if nxt else ''}: the server is still starting, was killed "
                "without a "
                f"trace (the OOM killer writes to dmesg, not here), or the log was cut.{cut}"
                f"{note.text if note else ''}",
                at=at(lc.last_line),
                fix=note.fix if note else None,
                # A file that is an excerpt at its start is as likely cut at its end by whoever copied it,
                # and a file written moments ago at its last line's time is a start still under way.
                severity="info" if excerpt or (note and note.still_writing) else None,
                launch=lc.index,
                # where the log stops is observed; that the launch is stuck there is assumed
                basis="assumed" if note and note.fix else None,
            )
        )
    return out


def _cut_validation_traceback(lc: Launch) -> str | None:
    """The stage (validation, arguments) of a traceback of ``lc`` that stops before its exception line and
    whose frames are the framework's argument handling, which runs before the args line is written."""
    for _line, block in lc.tracebacks:
        if exception_of(block) is None:
            stage = frames_stage(block, "")
            if stage in ("validation", "arguments"):
                return stage
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
            name = _as_intended(implied, intended)
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


# --- observations and sections -----------------------------------------------------------------------------
def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _as_intended(name: str, intended: Mapping[str, Any] | None) -> str:
    """The name the caller uses for a logged setting (an older/newer dest name of the same field)."""
    if intended and name not in intended:
        for alias in SETTING_ALIASES.get(name, ()):
            if alias in intended:
                return alias
    return name


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
                from argtrace.layers.log.analyze import VLLM_CONFIG_ALIASES

                name = VLLM_CONFIG_ALIASES.get(key, key)
            name = _as_intended(name, intended)
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
            name = _as_intended(implied, intended)
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
        stage = {"args_logged": "validation"}.get(nxt or "", None) or {
            "weights_loaded": "weights",
            "kv_cache_allocated": "kv_cache",
            "cuda_graph_captured": "cuda_graph",
            "server_ready": "serving",
        }.get(nxt or "", None)
    summary: dict[str, Any] = {
        "launch": lc.index,
        "next_expected": None if lc.ready or fatal else next_missing(lc),
        "lines": [lc.first_line, lc.last_line],
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
