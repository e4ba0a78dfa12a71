"""What one launch's own lines prove: its errors, where it stopped, what the file lacks.

For each chosen launch: each error matched to a catalog signature (the signature's rule: LG003-LG008), an
error no signature knows with the framework's raise site when the message index has it (LG011,
``sites.py``), a launch that died before it logged its configuration (LG001), a file that begins mid-start-up
or an args dump cut short (LG010), the scheduler running fewer requests than the configuration asked for
(LG008), and a launch that stops without an error, with the step it waits in (LG010, ``hang.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from argtrace.layers.log.dates import datetime
from argtrace.layers.log.errors import exception_of
from argtrace.layers.log.hang import waiting_in
from argtrace.layers.log.launch import (
    POST_ARGS_EVENTS,
    ErrorHit,
    Launch,
    LogAnalysis,
    next_missing,
    stopped_after,
)
from argtrace.layers.log.lines import KEEP_LINES
from argtrace.layers.log.pasted import FRAME_GAP as _FRAME_GAP
from argtrace.layers.log.prefix import split_prefix
from argtrace.layers.log.ray_death import watchdog_before
from argtrace.layers.log.redaction import _Redactor
from argtrace.layers.log.signatures import UNNAMED, load_catalog, match_line
from argtrace.layers.log.stages import FRAME_LINE, frames_stage, runtime_module
from argtrace.model import Evidence, Finding, Severity
from argtrace.rules import log as rules

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SEVERITY: dict[str, Severity] = {"error": "error", "warning": "warning", "info": "info"}
_STAGE_TEXT = {
    "import": "importing the framework",
    "arguments": "argument parsing",
    "validation": "argument validation",
    "model_config": "reading the model config",
    "weights": "loading the weights",
    "mamba_cache": "allocating the Mamba state cache",
    "kv_cache": "allocating the KV cache",
    "cuda_graph": "capturing CUDA graphs",
    "warmup": "warming the model up (its dummy runs after the KV cache was allocated)",
    "draft_worker": "starting the speculative draft worker",
    "serving": "serving",
    "distributed": "initialising the distributed (NCCL) group",
    "engine_config": "building vLLM's engine configuration (after its arguments were logged)",
    "model_run": "running the model (its weights loaded; the frames do not name the step)",
    "scheduler_init": "starting SGLang's scheduler: a step of its constructor the frames do not name",
    "unknown": "a step this excerpt does not show",
}


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


def _bare_assert(hit: ErrorHit) -> dict[str, Any] | None:
    """The indexed assert a bare ``AssertionError`` (no message) was raised by, from its traceback's last
    SGLang/vLLM frame (``resolver/assert_lookup.py``); None for any other error."""
    if not hit.traceback or (hit.exception or hit.text).strip() != "AssertionError":
        return None
    from argtrace.resolver.assert_lookup import assert_of_traceback

    try:
        return assert_of_traceback([split_prefix(line).body for line in hit.traceback])
    except Exception:
        return None  # no assert index bundled: the line says what it says


def _raised(hit: ErrorHit) -> str:
    """What a wrapper's own traceback ends in (a scheduler's, a worker's): the exception and the frame that
    raised it, so that the first screen names the failure the wrapper only announces. When the copy holds no
    exception line after the frames (cut before it) but its last frame shows a ``raise X(`` statement, the
    message that statement prints (the message index's raise site, ``resolver/raise_lookup.py``)."""
    if not hit.traceback:
        return ""
    exc = _exception_line(hit.traceback)
    if not exc or exc == hit.text or not _EXCEPTION_TYPE.match(exc):
        cut = cut_raise(hit.traceback)
        if cut is None:
            return _cut_after(hit.traceback) if not exc else ""
        statement, site = cut
        short = "/".join(site.file.split("/")[-2:])
        return (
            f" Its traceback is cut after its last frame ({short}, {site.function}: `{statement[:60]}`); "
            f"that statement raises {site.exception}: '{_head(site.message)}' ({_FW_NAME[site.framework]}'s "
            "source; the exception line is not in the copy)."
        )
    frames = [FRAME_LINE.match(split_prefix(ln).body) for ln in hit.traceback]
    last = next((m for m in reversed(frames) if m), None)
    where = ""
    if last is not None:
        path = last.group("path").replace("\\", "/")
        short = "/".join(path.split("/")[-2:])
        where = f" (raised in {short}, {last.group('fn')})"
    return f" Its traceback ends in {exc[:200]}{where}."


def _cut_after(block: list[str]) -> str:
    """A wrapper's traceback that the copy cuts after a frame, before any exception line (llm-scaler#154's
    "EngineCore encountered a fatal error.", ktransformers#1969's "Scheduler hit an exception"): where it
    stops, so the first screen does not send the reader to lines the copy lacks."""
    frames = [FRAME_LINE.match(split_prefix(ln).body) for ln in block]
    last = next((m for m in reversed(frames) if m), None)
    if last is None:
        return ""
    short = "/".join(last.group("path").replace("\\", "/").split("/")[-2:])
    return (
        f" Its traceback is cut after its last frame ({short}, {last.group('fn')}), before its exception "
        "line: the error that names the cause is not in the copy."
    )


_FW_NAME = {"sglang": "SGLang", "vllm": "vLLM"}


def _capture_fix(framework: str | None, hit: ErrorHit, fix: str) -> str:
    """A wrapper's fix when its traceback runs through the CUDA graph capture and stops before its exception
    line: the capture's own switch first (``hang_text.blocker``, what a capture that hangs gets)."""
    if hit.traceback and _exception_line(hit.traceback):
        return fix
    from argtrace.layers.log.hang_text import blocker

    capture = blocker(framework, "cuda_graph")
    if capture is None:
        return fix
    return f"It failed inside the CUDA graph capture. {capture.fix.split('; ')[0].rstrip('.')}. {fix}"


def _head(template: str) -> str:
    """A message template's words up to its first placeholder (the values a copy would show), one line."""
    head = " ".join(template.split("{", 1)[0].split())
    return head if len(head) >= 20 else " ".join(template.split())[:120]


def cut_raise(block: list[str]) -> tuple[str, Any] | None:
    """``(statement, RaisedAt)`` when ``block`` (a traceback) stops right after a frame whose shown statement
    is ``raise X(``: the indexed message that statement prints; None otherwise."""
    bodies = [split_prefix(line).body for line in block]
    last = None
    for i, body in enumerate(bodies):
        m = FRAME_LINE.match(body)
        if m:
            last = (i, m)
    if last is None:
        return None
    i, m = last
    rest = [b.strip() for b in bodies[i + 1 :] if b.strip() and not set(b.strip()) <= set("^~ ")]
    if len(rest) != 1 or not rest[0].startswith("raise "):
        return None
    from argtrace.resolver.raise_lookup import raised_at  # the message index: only for a cut traceback

    site = raised_at(m.group("path"), m.group("fn"), rest[0])
    return (rest[0], site) if site is not None else None


def cause_of_cut_raise(hit: ErrorHit, framework: str | None, stage: str) -> Any:
    """The catalog signature (not a wrapper) the message of a cut traceback's ``raise`` matches, if any."""
    cut = cut_raise(hit.traceback) if hit.traceback else None
    if cut is None:
        return None
    site = cut[1]
    found = match_line(
        f"{site.exception}: {site.message}", framework=framework or site.framework, stage=stage
    )
    return found[0] if found and not found[0].wrapper else None


# An exception line: ``ValueError: ...``, ``torch.OutOfMemoryError: ...``, a bare ``AssertionError``.
_EXCEPTION_TYPE = re.compile(r"^(?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception|Exit|Interrupt)\b")


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
        raised = _raised(hit) if sig.wrapper else ""
        above = _traceback_above(lc, hit) if sig.wrapper and not raised and "above" in sig.fix else None
        if sig.wrapper and not hit.traceback and not raised and above is None:
            # vLLM's logger.exception prints the traceback on the lines after the wrapper's: one the copy cuts
            # before its exception line (llm-scaler#154's "EngineCore encountered a fatal error.")
            after = _cut_at_end(lc)
            raised = _cut_after(after[1]) if after is not None and after[0] > hit.line else ""
        above_said = ""
        if above is not None:
            above_line, above_frame, above_stage = above
            if hit.stage in UNNAMED and above_stage:
                hit.stage, where = above_stage, _STAGE_TEXT.get(above_stage, above_stage)
            # first: the first screen cuts a long message, and this is where the cause is
            above_said = (
                f"Another process's traceback above it (from line {above_line}) stops in {above_frame}, cut "
                "before its exception: the cause is there. "
            )
        # a wrapper whose cut traceback stops at a raise the catalog knows: that error's meaning and fix
        cause = cause_of_cut_raise(hit, lc.framework, hit.stage) if sig.wrapper and raised else None
        named_cause = f": its cause is [{cause.id}] {cause.meaning}" if cause is not None else ""
        # a library's error under the wrapper's traceback (transformers, Triton, FlashInfer): the cause, and
        # the framework frame where it surfaced
        lib = None
        if sig.wrapper and cause is None:
            from argtrace.layers.log.beneath import beneath  # a wrapper's traceback only (its import: 20 ms)

            lib = beneath("\n".join([hit.text, *hit.traceback]))
        if lib is not None and lib.exception:
            named_cause = f": its cause: {lib.sentence()}"
        watchdog = watchdog_before(analysis.scan, hit.line) if sig.id == "ray-worker-died" else None
        if watchdog is not None:
            # the dead worker's native frames are torch's NCCL watchdog's: its collective is the cause
            timeout = next(s for s in load_catalog().signatures if s.id == "nccl-watchdog-collective-timeout")
            # first: the first screen cuts a long message, and this is the cause
            above_said = (
                f"torch's NCCL watchdog took the worker down: its last lines (line {watchdog[0]}) are the "
                f"watchdog's native frames ({watchdog[1]}), after a collective of its group failed or timed "
                "out; that collective is the cause. "
            )
            cause = timeout
        kind = None
        if sig.id == "vllm-unknown-env" and "name" in hit.groups:
            from argtrace.layers.log.unknown_env import unknown_env  # the release index: only for this line

            kind = unknown_env(hit.groups["name"])
        env_said = kind.sentence if kind is not None else ""
        head = (
            f"[{sig.id}] {above_said}{sig.meaning} (during {where}){named_cause}.{implied}{values}{env_said}"
        )
        head += raised
        message = f"{head} Line{times}: {hit.text[:300]}"
        severity: Severity | None = _SEVERITY.get(kind.severity if kind is not None else sig.severity or "")
        fix = cause.fix if cause is not None else (lib.fix if lib and lib.exception and lib.fix else sig.fix)
        if kind is not None and kind.fix:
            fix = kind.fix
        if sig.wrapper and cause is None and not (lib and lib.exception) and hit.stage == "cuda_graph":
            # a wrapper's traceback through the CUDA graph capture (sglang#29562: SGLang's piecewise prefill
            # graphs) whose exception the copy lacks: the step's own switch, as for a cut traceback, tells
            # whether the capture is what fails
            fix = _capture_fix(lc.framework, hit, fix)
        out.append(
            rule.finding(
                red.text(message),
                at=at(hit.line),
                setting=sig.settings[0] if sig.settings else None,
                evidence=_evidence(at, hit, red),
                fix=fix,
                severity=severity,
                launch=lc.index,
            )
        )
    site_post_args = False
    if fatal is not None and fatal.signature is None:
        from argtrace.layers.log.sites import site_hint  # the message index: only for an unknown error

        named = settings_named(fatal.text, lc.settings())
        hint = site_hint(fatal.text, lc.framework) if fatal.exception else None
        stage = hint.stage if hint and hint.stage and not fatal.traceback else fatal.stage
        if hint is not None and not fatal.traceback and stage == "validation" and runtime_module(hint.file):
            # no frames, no configuration line: the raise site itself runs only in the started server
            # (a scheduler, a worker), so the launch was past its configuration line (the launch summary
            # says so too)
            stage, site_post_args = "unknown", True
            fatal.stage = stage
            lc.post_args_evidence = True
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
        bare = _bare_assert(fatal) if hint is None else None
        if bare is not None:
            # a bare AssertionError: the assert index (generated from the wheels) knows the statement its
            # traceback's last framework frame points at, its whole condition and what it reads
            name = {"vllm": "vLLM", "sglang": "SGLang"}[bare["framework"]]
            lines = ",".join(str(n) for n in bare["lines"][:3])
            flags = [s["flag"] for s in bare["settings"] if s.get("how") != "named"]
            reads = f", which reads {', '.join(flags)}" if flags else ""
            also += (
                f" {name} asserts `{bare['condition']}` there, in {bare['function']} "
                f"({bare['file']}{':' + lines if lines else ''}; {bare['releases']}){reads}."
            )
            if flags:
                fix = (
                    f"Change {', '.join(flags)} so that `{bare['condition']}` holds (`argtrace why` on the "
                    "traceback shows the site and its operands)."
                )
            else:
                # no server argument read: its operands (a local's assignment, the model's configuration)
                # say what decided it; a local spelled like a setting is a lead, not a read
                said = [bare["operands"]] if bare["operands"] else []
                said += [f"the model's {', '.join(bare['model'][:3])}"] if bare["model"] else []
                if said:
                    also += f" Its operands: {'; '.join(said)}."
                named_like = [s for s in bare["settings"] if s.get("how") == "named"]
                if named_like:
                    spelled = ", ".join(f"{s['name']} is spelled like {s['flag']}" for s in named_like)
                    fix = (
                        f"Make `{bare['condition']}` hold; {spelled} (by name only: `argtrace why` on the "
                        "traceback shows the site and its operands)."
                    )
        if fix is None and stage == "cuda_graph":
            # an error no signature and no raise site explains, inside the capture: the step's own switch
            # (the one a capture that hangs gets) tells whether the capture is what fails
            from argtrace.layers.log.hang_text import blocker

            capture = blocker(lc.framework, "cuda_graph")
            if capture is not None:
                # the step's switches, not what a hang needs besides (which rank NCCL waits for)
                fix = f"It failed inside the CUDA graph capture. {capture.fix.split('; ')[0].rstrip('.')}."
        setting = named[0] if named else (hint.dests[0] if hint and hint.dests else None)
        if setting is None and bare is not None and bare["settings"]:
            setting = next((s["name"] for s in bare["settings"] if s.get("how") != "named"), None)
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
    post_args = bool(set(lc.events) & POST_ARGS_EVENTS) or lc.post_args_evidence or site_post_args
    # An excerpt that starts past the configuration line says what the file lacks, not that the launch went
    # wrong: a note, so a working launch's excerpt gives no warning.
    excerpt = lc.args_dump is None and post_args
    excerpt_at = len(out)  # where the excerpt's note goes: a cut traceback's note goes before it
    if excerpt:
        out.append(
            rules.LG010.finding(
                f"Launch {lc.index} {rules.LG010_EXCERPT} (its first line here, {lc.first_line}, is already "
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
    # an error whose step no line shows (a lone quoted exception line) says nothing of the configuration line
    unplaced = fatal is not None and fatal.stage == "unknown"
    ended = fatal is not None or lc.usage_error or headless
    if lc.args_dump is None and not post_args and not unplaced and ended:
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
    # A dump cut short with no line of the launch after it: the file ends inside it, where a copy or a
    # viewer cut the line (sglang PR#26473's copy wraps ``server_args=ServerArgs(...`` and stops inside it).
    # The server wrote the line whole before anything else, so what the file lacks after it says nothing
    # about the launch: notes, not warnings.
    dump_cut_at_end = args is not None and args.parsed.truncated and lc.last_line <= args.line
    if args is not None and args.parsed.truncated:
        last = list(args.parsed.values)[-1] if args.parsed.values else None
        out.append(
            rules.LG010.finding(
                f"The {args.source} dump at line {args.line} is cut short: {len(args.parsed.values)} "
                "setting(s) "
                f"read{f', the last complete one {last}' if last else ''}; settings after it are unknown.",
                at=at(args.line),
                # the line was whole where the server wrote it: the fix is to read it there (not a hang's)
                fix="Read the line whole where the server wrote it (the file, the terminal or the journal; a "
                "copy or a viewer cut it here).",
                severity="info" if dump_cut_at_end else None,
                launch=lc.index,
            )
        )
    # (a cut traceback through argument validation is LG001's "died during argument validation" above)
    cut_tb = _cut_at_end(lc) if fatal is None and not lc.usage_error and not headless else None
    if cut_tb is not None:
        # before the note that the file is an excerpt: where it stops is the answer (the first screen's)
        out.insert(excerpt_at, _cut_traceback_note(lc, cut_tb, at))
    elif fatal is None and not lc.ready and (lc.dumps or lc.events or lc.begun) and not lc.usage_error:
        last_event = stopped_after(lc)
        nxt = next_missing(lc)
        before = f" and before {nxt}" if nxt else ""
        if nxt is not None and nxt == last_event:
            # a capture began after one ended (SGLang's piecewise capture after the decode graphs')
            before = " and before the capture begun after it ended"
        cut = "" if analysis.scan.ends_with_newline else " The file ends in the middle of a line."
        if lc.lines_dropped:
            cut += (
                f" {lc.lines_dropped:,} of this launch's anchor lines were not read (of a log of more than "
                f"{2 * KEEP_LINES:,} of them, the first and last are read, and every launch's first "
                "lines): what ended it may be among them."
            )
        # a blog post or tutorial quoting a launch's lines between its paragraphs stops where its author did
        from argtrace.layers.log.no_launch import quoted_in_prose  # only for a launch that stops

        document = not analysis.scan.gzip and quoted_in_prose(analysis.scan.path)
        if document:
            cut += (
                " The file quotes the log between paragraphs of prose (a document, not the server's file): "
                "where the quote stops is where its author cut it."
            )
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
                f"error{before}: the server is still starting, was killed "
                "without a "
                f"trace (the OOM killer writes to dmesg, not here), or the log was cut.{cut}"
                f"{note.text if note else ''}",
                at=at(lc.last_line),
                fix=note.fix if note else None,
                # A file that is an excerpt at its start is as likely cut at its end by whoever copied it,
                # and a file written moments ago at its last line's time is a start still under way.
                severity="info"
                if excerpt or document or dump_cut_at_end or lc.lines_dropped or (note and note.still_writing)
                else None,
                launch=lc.index,
                # where the log stops is observed; that the launch is stuck there is assumed
                basis="assumed" if note and note.fix else None,
            )
        )
    return out


def _traceback_above(lc: Launch, hit: ErrorHit) -> tuple[int, str, str | None] | None:
    """``(first line, last frame, stage)`` of the frames a launch holds above a wrapper that sends the reader
    up ("the worker's traceback is above it"), other than the wrapper's own: another process's traceback
    interleaved before it (vllm#39774: a worker's frames inside PyNcclCommunicator, then the engine's). The
    last frame is where that traceback was going when the copy cut it; its frames give the stage."""
    own = set(hit.traceback)
    mine = lc.procs.get(hit.line)
    # another process's frames: a tag other than the wrapper's own (untagged frames when it has none)
    frames = [
        (n, text)
        for n, text in lc.loose_frames
        if n < hit.line and (lc.procs.get(n, mine) != mine if mine is not None else text not in own)
    ]
    for n, block in lc.tracebacks:
        if n < hit.line and (mine is None or lc.procs.get(n, mine) != mine):
            frames += [
                (n, split_prefix(b).body.strip()) for b in block if FRAME_LINE.match(split_prefix(b).body)
            ]
    matched = [(n, m) for n, text in sorted(frames) if (m := FRAME_LINE.match(text))]
    if not matched:
        return None
    first, last = matched[0][0], matched[-1][1]
    short = "/".join(last.group("path").replace("\\", "/").split("/")[-2:])
    stage = frames_stage([f"  {t}" for _n, t in sorted(frames)], "")
    return first, f"{short}, in {last.group('fn')}", stage if stage not in (None, "validation") else None


def _cut_at_end(lc: Launch) -> tuple[int, list[str]] | None:
    """``(line, frames)`` when the launch's last lines are a traceback the file cuts before its exception line
    (a copy that stops inside it): the ``Traceback`` block kept with its line, or frames logged without it
    (an excerpt that starts inside the traceback: vLLM's ``ERROR .. [multiproc_executor.py:879]   File``)."""
    if lc.tracebacks:
        line, block = lc.tracebacks[-1]
        if line + len(block) > lc.last_line and exception_of(block) is None:
            bodies = [split_prefix(b).body for b in block]
            if any(FRAME_LINE.match(b) for b in bodies):
                return line, bodies
        return None
    # the lines after the last frame, with no error among them: its source line and ``^^^`` marker, the
    # next frame cut inside its path (vllm#54526: ``...   File "/usr/local/lib/python3.12/.../vllm/v1/spec_``)
    if lc.loose_frames and lc.loose_frames[-1][0] >= lc.last_line - _FRAME_GAP and not lc.errors:
        return lc.loose_frames[0][0], [f"  {text}" for _n, text in lc.loose_frames]
    return None


def _cut_traceback_note(lc: Launch, cut: tuple[int, list[str]], at: Any) -> Finding:
    """The note for a launch whose copy stops inside a traceback: something failed there (the launch, or one
    request, as far as the frames tell); the exception (the cause) is not in the file. Where the last frame
    shows a ``raise X(`` the message index knows, its message. A note: what failed is not in the file, so no
    fix can be checked against it."""
    line, bodies = cut
    frames = [m for m in (FRAME_LINE.match(b) for b in bodies) if m]
    last = frames[-1]
    short = "/".join(last.group("path").replace("\\", "/").split("/")[-2:])
    raised = cut_raise(bodies)
    said = ""
    if raised is not None:
        statement, site = raised
        said = (
            f" The frame's statement `{statement[:60]}` raises {site.exception}: '{_head(site.message)}' "
            f"({_FW_NAME[site.framework]}'s source)."
        )
    fix = (
        "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
        "`argtrace why` on the exception line names its raise site and the settings it reads."
    )
    template = ""
    stage = frames_stage([f"  {b.strip()}" for b in bodies], "")
    during = f" (during {_STAGE_TEXT[stage]})" if stage in _STAGE_TEXT and stage != "validation" else ""
    # serving, or frames of a request's handling: one request may have failed (the server answers it with an
    # error and goes on serving); frames of a start-up step: the launch; else the copy does not say which
    if stage != "import" and (
        lc.ready or stage == "serving" or any(_REQUEST_FRAME.search(m.group(0)) for m in frames)
    ):
        what = "something failed while it served (one request, or the server)"
    elif stage in _STAGE_TEXT and stage not in ("validation", "unknown"):
        what = "the launch was failing there"
    else:
        what = "something failed there (the launch, or one request: the copy does not say which)"
    if stage == "cuda_graph":
        # the step's own switch (what a capture that hangs gets) tells whether the capture is what fails
        from argtrace.layers.log.hang_text import blocker

        capture = blocker(lc.framework, "cuda_graph")
        if capture is not None:
            fix = f"It failed inside the CUDA graph capture. {capture.fix.split('; ')[0].rstrip('.')}. {fix}"
    if any(_CHAT_TEMPLATE_FRAME.search(m.group(0)) for m in frames[-3:]):
        # the frames are the chat template's rendering: what failed is the template on the request it got
        template = (
            " Its last frames render the chat template (the model's, or the file --chat-template names): the "
            "template failed on the request it was given (a model without a template, a template without "
            "the request's features such as tools, or a request it refuses)."
        )
        fix = (
            "Check the chat template: pass one that renders these requests with --chat-template (the model's "
            f"is missing or broken), or change the request the template refuses. {fix}"
        )
    return rules.LG010.finding(
        f"Launch {lc.index} stops inside a traceback (from line {line}){during} that the file cuts before "
        f"its exception line: {what}, and the exception that names the cause is not in the copy.{template} "
        f"Its last frame: {short}, in {last.group('fn')}.{said}{_library_frames(bodies)}",
        at=at(line),
        fix=fix,
        severity="info",
        launch=lc.index,
        # that the template is what failed is read from where the frames are, not from an exception
        basis="framework-code" if template else None,
    )


def _library_frames(bodies: list[str]) -> str:
    """A sentence when the cut frames end inside a library (FlashInfer, Triton, transformers) called from a
    framework frame: what was running when the copy stops, and where the server's code called it."""
    from argtrace.layers.log.beneath import beneath  # a cut traceback only (its import: 20 ms)

    lib = beneath("\n".join(bodies))
    if lib is None or lib.exception:
        return ""
    known = f" {lib.known.fix}." if lib.known is not None else ""
    return f" The frames end inside {lib.library}: {lib.sentence()}.{known}"


# Frames of a request's handling: the HTTP stack (uvicorn, starlette, fastapi) and the OpenAI endpoints.
_REQUEST_FRAME = re.compile(
    r"uvicorn/|starlette/|fastapi/|entrypoints/openai/|/serving_\w+\.py|http_server\.py"
)

# Frames of a chat template's rendering: transformers' apply_chat_template/render_jinja_template, vLLM's
# apply_hf_chat_template and its renderers' render_chat*, SGLang's template manager applying it.
_CHAT_TEMPLATE_FRAME = re.compile(
    r"chat_template_utils\.py|apply_hf_chat_template|render_jinja_template|in render_chat\w*$|"
    r"in apply_chat_template$"
)


def _cut_validation_traceback(lc: Launch) -> str | None:
    """The stage (validation, arguments) of a traceback of ``lc`` that stops before its exception line and
    whose frames are the framework's argument handling, which runs before the args line is written."""
    for _line, block in lc.tracebacks:
        if exception_of(block) is None:
            stage = frames_stage(block, "")
            if stage in ("validation", "arguments"):
                return stage
    return None
