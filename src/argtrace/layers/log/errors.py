"""A launch's errors: which kept lines are errors, their tracebacks, and the catalog entry each matches.

A kept line no timeline pattern explains, and not a traceback's frame or source line, is a candidate
(``_candidate``; pydantic's ``Value error, ...`` detail line completes the ValidationError above it). A
traceback's own lines end at its exception line (``_trim_traceback``, ``exception_of``). Once a launch is
complete, ``_match_errors`` gives each candidate its stage (from its traceback's frames, else from the
launch's timeline: ``launch.stage_after``), matches it against the signature catalog (``signatures.py``)
once per distinct text, counts repeats, and marks the errors that end a launch (``fatal``).
"""

from __future__ import annotations

from collections.abc import Sequence

from argtrace.layers.log.launch import ErrorHit, Launch, stage_after
from argtrace.layers.log.lazyre import LazyPattern as _lazy
from argtrace.layers.log.prefix import split_prefix
from argtrace.layers.log.signatures import Signature, catch_all, match_cut, match_line
from argtrace.layers.log.stages import (
    AFTER_ARGS_STAGES,
    frames_stage,
    serving_error,
    vllm_engine_config,
    worker_method_stage,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_ARGPARSE_ERROR = _lazy(r"^(?P<prog>[\w.\-]+): error: (?P<msg>.*)", needles=(": error: ",))
_EXCEPTION = _lazy(
    r"^(?P<type>(?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception|Exit|Interrupt|Warning))(?::\s?(?P<msg>.*))?$",
    needles=("Error", "Exception", "Exit", "Interrupt", "Warning"),
)
_DIGITS = _lazy(r"\d+")

# pydantic's ValidationError (vLLM's configs since 0.10) gives its message on the lines after the exception:
# "1 validation error for ModelConfig" / "  Value error, User-specified max_model_len (513) is greater ...".
_PYDANTIC_DETAIL = _lazy(r"^\s+(?:Value|Assertion|Type|Key) error, ", needles=(" error, ",))
_CHAINED = ("During handling of the above exception", "The above exception was the direct cause")
# The lines after vLLM's client's EngineDeadError within which the dead engine's own abort is read as serving:
# its "Warning: CUDA warning", "terminate called after throwing", "what():" and CUDA's hint lines
_ABORT_AFTER = 8


def _trim_traceback(block: list[str]) -> list[str]:
    """The traceback's own lines: up to its exception line, plus a chained-exception marker after it."""
    end = _exc_offset(block)
    while end < len(block) and _PYDANTIC_DETAIL.match(split_prefix(block[end]).body):
        end += 1
    trimmed = block[:end]
    for extra in block[end : end + 3]:
        if any(c in extra for c in _CHAINED):
            trimmed.append(extra)
            break
    return trimmed


def _candidate(launch: Launch, body: str, line_no: int) -> None:
    """Everything else that was kept is a candidate error line; matched after the launch is complete.
    Indented lines are traceback frames and source lines, not errors, and so is a "raise X(" source line
    whose indentation a report lost; pydantic's detail line completes the ValidationError before it."""
    if _PYDANTIC_DETAIL.match(body):
        last = launch.errors[-1] if launch.errors else None
        if last is not None and line_no - last.line <= 1 and "validation error" in last.text:
            last.text = f"{last.text} {body.strip()}"
        return
    if body.lstrip().startswith("what():"):
        # libstdc++'s terminate handler prints a native exception's message indented under "terminate called
        # after throwing an instance of 'c10::AcceleratorError'": ``  what():  CUDA error: an illegal memory
        # access was encountered`` (spark-vllm-mxfp4-docker#5), the error line of a process that aborted
        launch.errors.append(ErrorHit(line=line_no, text=body.strip(), stage=""))
    elif body[:1] not in (" ", "\t") and not body.startswith("raise "):
        launch.errors.append(ErrorHit(line=line_no, text=body, stage=""))


def _alone(launch: Launch, line: int) -> bool:
    """The launch is this one line: no other line, frame or traceback of it was kept."""
    return (
        launch.first_line == line == launch.last_line
        and not launch.tracebacks
        and not launch.loose_frames
        and launch.args_dump is None
    )


def _cut_frames_stage(launch: Launch, line: int) -> str | None:
    """The one stage the tracebacks after ``line`` that the copy cut before their exception line were in.
    An exception line without frames above it, then another process's or rank's traceback of the same failure
    cut after its frames (SGLang's "Scheduler hit an exception" of another rank through its event loop,
    flashinfer#2516, sglang#19081): those frames say where the launch was when it failed."""
    stages = set()
    for at, full in launch.tracebacks:
        if at > line and not exception_of(full):
            stage = frames_stage(full, "")
            if stage is not None:
                stages.add(stage)
    return stages.pop() if len(stages) == 1 else None


def _match_errors(launch: Launch, framework: str | None, catalog: Any) -> None:
    # Tracebacks: their exception line is the error; frames refine the stage.
    tb_by_exc: dict[str, tuple[int, list[str]]] = {}
    for tb_line, full in launch.tracebacks:
        block = full[: _exc_offset(full)]
        exc_text = exception_of(block)
        if exc_text:
            tb_by_exc.setdefault(exc_text, (tb_line, block))
            if not any(e.text.strip().endswith(exc_text.strip()) for e in launch.errors):
                launch.errors.append(ErrorHit(line=tb_line + _exc_offset(block), text=exc_text, stage=""))
    hits: list[ErrorHit] = []
    seen: dict[str, ErrorHit] = {}
    # Repeated errors (every rank, every retry) differ only in numbers: decide the signature once.
    decided: dict[tuple[str, str, str], Signature | None] = {}
    # vLLM's client raises EngineDeadError once the engine it served with died; the error just above it is
    # the engine's own, printed by another process whose lines interleave: it happened while serving too
    served_at = next((e.line for e in launch.errors if serving_error(e.text)), None)
    for err in sorted(launch.errors, key=lambda e: e.line):
        text = err.text.strip()
        tb: tuple[int, list[str]] | None = (err.line, err.traceback) if err.traceback else None
        if tb is None:
            tb = next(
                (v for k, v in tb_by_exc.items() if text.endswith(k.strip()) or k.strip().endswith(text)),
                None,
            )
        frames_st = frames_stage(tb[1], text) if tb else None
        if tb is None:
            # a line logged with its traceback right under it (vLLM's ``logger.exception("EngineCore failed
            # to start.")``, vllm#25043): those frames are where it failed, even when the copy cuts the
            # exception line that would tie them to it
            below = next((full for at, full in launch.tracebacks if at == err.line + 1), None)
            if below is not None:
                frames_st = frames_stage(below[: _exc_offset(below)], text)
        if tb is None and vllm_engine_config("", text):
            frames_st = "engine_config"  # pydantic's "validation error for ModelConfig": vLLM's configs
        elif tb is None and serving_error(text):
            frames_st = "serving"
        stage = frames_st or stage_after(launch, err.line)
        if frames_st == "scheduler_init":
            # SGLang's scheduler constructor, none of its steps in the frames: the step the timeline shows it
            # in, where it shows one (sglang#7227's capture after the memory pool, a copy whose frames stop
            # before the loader)
            timeline = stage_after(launch, err.line)
            stage = timeline if timeline in AFTER_ARGS_STAGES else frames_st
        if tb is None and stage == "unknown" and _EXCEPTION.match(text):
            # an exception line (not a wrapper's "EngineCore failed to start.", whose own traceback would
            # follow it: one further down is another failure's, logs19)
            stage = _cut_frames_stage(launch, err.line) or stage
        if tb is None and stage == "unknown":
            # no frames, no timeline: vLLM's worker wrapper lines name the method the workers were running
            # ("... while processing method load_model.", stages.worker_method_stage; vllm#14092's excerpt)
            stage = worker_method_stage("\n".join(e.text for e in launch.errors)) or stage
        if tb is None and stage == "validation" and _alone(launch, err.line):
            # a quoted exception line and nothing else (sglang-jax#1551's one line): no step shows, and
            # nothing says the arguments were being checked when it was raised
            stage = "unknown"
        # or just below it: the dying engine's native abort (``terminate called ...``, ``what():  CUDA error:
        # ...``) flushed after the client's report (spark-vllm-mxfp4-docker#5)
        near_dead = served_at is not None and (err.line < served_at or err.line - served_at <= _ABORT_AFTER)
        if tb is None and near_dead and stage in ("unknown", "validation"):
            stage = "serving"
        frames = "\n".join(tb[1]) if tb else ""
        decide_key = (_DIGITS.sub("0", text), stage, frames)
        if decide_key in decided:
            sig_hit = decided[decide_key]
            m = sig_hit.pattern.search(text) if sig_hit is not None else None
            match = (
                (sig_hit, {k: v for k, v in m.groupdict().items() if v is not None})
                if sig_hit and m
                else None
            )
        else:
            match = match_line(text, framework=framework, stage=stage, catalog=catalog, frames=frames)
            if match is None and err.line == launch.last_line:
                # the launch's last line, cut by the copy in the middle of a message the catalog knows
                cut = match_cut(text, framework=framework, catalog=catalog)
                match = (cut, {}) if cut is not None else None
            decided[decide_key] = match[0] if match else None
        exc = _EXCEPTION.match(text)
        argparse_err = _ARGPARSE_ERROR.match(text)
        if match is None and not exc and not argparse_err and text != "Killed":
            continue
        sig, groups = match if match else (None, {})
        if sig is not None and sig.after_args and not frames_st and stage == "validation":
            stage = (
                "unknown"  # no step shows, but not argument validation: the error runs in a started server
            )
        if sig is not None and launch.framework is None and sig.framework in ("sglang", "vllm"):
            launch.framework = sig.framework
        own = _seen_key(sig, groups) if sig is not None else ""
        if sig is not None and own in seen:
            seen[own].count += 1
            continue
        if sig is not None and catch_all(sig):
            # torch's OutOfMemoryError under vLLM's own message of the same failure ("CUDA out of memory
            # occurred when warming up sampler", vllm#19445): the catch-all's line counts under the entry that
            # named it more closely (that entry's line matches the catch-all too)
            closer = next((h for h in hits if h.signature and sig.pattern.search(h.text)), None)
            if closer is not None:
                closer.count += 1
                continue
        fatal = bool(exc or argparse_err or text == "Killed")
        if sig is not None:
            fatal = fatal or sig.code in ("LG003", "LG004", "LG005", "LG007")
            if sig.severity in ("warning", "info") or sig.code in ("LG006", "LG008"):
                fatal = False
        if exc and exc.group("type").split(".")[-1] in ("UserWarning", "FutureWarning", "DeprecationWarning"):
            fatal = False
        if (
            err.line in launch.request_lines
            and not serving_error(text)
            and not (sig is not None and sig.code in ("LG003", "LG004"))
        ):
            # vLLM's request handlers catch what one request raised and answer it with an error
            # (serving_chat's "Error in chat completion stream generator."): the server goes on serving;
            # not the engine's death they relay (EngineDeadError, vllm#27466), which ends the launch
            fatal = False
        hit = ErrorHit(
            line=err.line,
            text=text,
            stage=(sig.stage if sig and sig.stage and not frames_st and sig.when_stage is None else stage),
            signature=sig,
            groups=groups,
            fatal=fatal,
            traceback=list(tb[1]) if tb else [],
            exception=exc.group("type") if exc else None,
        )
        if argparse_err:
            hit.stage = "arguments"
        wider = (
            next(
                (
                    h
                    for h in hits
                    if h.signature and catch_all(h.signature) and h.signature.pattern.search(text)
                ),
                None,
            )
            if sig is not None and not catch_all(sig)
            else None
        )
        if wider is not None:
            # the same failure named the other way round (torch's line first, then the framework's): this
            # closer entry takes the catch-all's place, counting its line
            hit.count = wider.count + 1
            hits.remove(wider)
            seen.pop(_seen_key(wider.signature, wider.groups) if wider.signature else "", None)
        if sig is not None:
            seen[own] = hit
        elif exc:
            key = "exc:" + text
            if key in seen:
                seen[key].count += 1
                continue
            seen[key] = hit
        hits.append(hit)
    launch.errors = hits


def _seen_key(sig: Signature, groups: dict[str, str]) -> str:
    """One finding per catalog entry, its repeats counted; per variable for an entry about a setting that
    names it (LG006's ``Unknown vLLM environment variable detected: NAME``): each variable is its own cause,
    and what the release index says of one (a dropped setting, another program's) is not said of another."""
    return f"{sig.id}:{groups['name']}" if sig.code == "LG006" and "name" in groups else sig.id


def exception_of(block: Sequence[str]) -> str | None:
    last = None
    for i, raw in enumerate(block):
        body = split_prefix(raw).body
        if not body.strip():
            if last:
                break
            continue
        if body.startswith((" ", "\t")) or body.startswith("Traceback") or body.startswith("During handling"):
            if last and not body.startswith(" "):
                break
            continue
        if _EXCEPTION.match(body.strip()):
            last = body.strip()
            for after in block[i + 1 : i + 4]:
                detail = split_prefix(after).body
                if not _PYDANTIC_DETAIL.match(detail):
                    break
                last = f"{last} {detail.strip()}"
            break
    return last


def _exc_offset(block: Sequence[str]) -> int:
    """Lines of ``block`` up to and including the exception line (the whole block if there is none)."""
    for i, raw in enumerate(block):
        body = split_prefix(raw).body
        if body.strip() and not body.startswith((" ", "\t")) and _EXCEPTION.match(body.strip()):
            return i + 1
    return len(block)
