"""From the lines the scanner kept to launches.

A log file may hold several launches (``>>`` append mode, restarts under a supervisor). ``build_launches``
walks the kept lines once. It decides where a new launch starts (an args dump, a vLLM version banner, an
argparse ``usage:`` line, a traceback through argument handling, once the current launch logged its
arguments or ended), which framework wrote it (process tags, ranks, source modules, SGLang-only lines),
whether a line proves the args line existed although the file lacks it, and reads the configuration dumps
(SGLang ``server_args=``, vLLM ``non-default args:``, ``args: Namespace(``, ``with config:``) and version
lines itself; the start-up steps go to ``timeline.py``, the rest to ``errors.py``. The records are in
``launch.py``, line prefixes in ``prefix.py``.
"""

from __future__ import annotations

import re

from argtrace.layers.log.errors import _CHAINED, _match_errors, _trim_traceback
from argtrace.layers.log.hang import begun_at_tail, begun_in
from argtrace.layers.log.launch import Dump, ErrorHit, Event, Launch, LogAnalysis
from argtrace.layers.log.lazyre import LazyPattern as _lazy
from argtrace.layers.log.lines import _decode
from argtrace.layers.log.pasted import frames_before, unjoined
from argtrace.layers.log.prefix import Parsed, _from_month_day, split_prefix
from argtrace.layers.log.pyrepr import parse_kw_list, parse_record
from argtrace.layers.log.reader import Line, Scan
from argtrace.layers.log.signatures import load_catalog
from argtrace.layers.log.stages import (
    AFTER_ARGS_STAGES,
    FRAME_LINE,
    PROCESS_TITLE,
    SERVING_LINE,
    frames_framework,
    vllm_engine_config,
)
from argtrace.layers.log.timeline import _timeline

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SGL_ARGS = _lazy(r"server_args=(?=ServerArgs\(|\{)", needles=("server_args=",))
_VLLM_ARGS = _lazy(r"non-default args: (?=\{)", needles=("non-default args: ",))

# vLLM <= 0.9's API server logs the whole argparse result (``args: Namespace(...)``), every default included.
_VLLM_NAMESPACE = re.compile(r"\bargs: (?=Namespace\()")
# vLLM 0.8-0.10 name the engine they fall back to as they name V1's (``Initializing a V0 LLM engine (v0.10.1)
# with config:`` for a GGUF model, vllm#24578)
_VLLM_CONFIG = re.compile(r"Initializing an? (?:V[01] )?LLM engine \(v(?P<version>[^)]+)\) with config: ")
_VLLM_VERSION = re.compile(r"vLLM API server version (?P<version>\S+)|█\s+version (?P<v2>\d[\w.+-]*)")
_SGL_VERSION = re.compile(r"\bsglang(?:==| version:? ?v?)(?P<version>\d+\.\d+[\w.+-]*)", re.I)
_USAGE = _lazy(r"^usage: (?P<prog>\S+)", needles=("usage: ",))
# (``Worker_DP1_TP1_EP3``: a DP x TP worker with expert parallel, vllm PR#28037; stages.VLLM_PROCESS)
_VLLM_PROCS = _lazy(
    r"APIServer|EngineCore|VllmWorker|RayWorkerWrapper|Worker(?:_\w+)?\b",
    needles=("APIServer", "EngineCore", "Worker"),
)
_VLLM_ENGINE_PROCS = _lazy(r"EngineCore|VllmWorker|RayWorkerWrapper|Worker", needles=("EngineCore", "Worker"))

# Modules of vLLM's engine and workers: a line they log (``ERROR 03-20 02:29:07 [core.py:340]``) comes from
# a process the API server starts after it logged ``non-default args``, even when no process prefix says so.
_VLLM_ENGINE_SRC = re.compile(
    r"(?:core|core_client|multiproc_executor|ray_distributed_executor|uniproc_executor|gpu_worker|"
    r"gpu_model_runner|worker_base|kv_cache_utils|parallel_state|pynccl|custom_all_reduce)\.py:\d+$"
)

# Of those, the modules only vLLM's own engine has (SGLang <= 0.4 imports vLLM's parallel_state, pynccl and
# custom_all_reduce and logs through vLLM's logger, so those lines do not name the framework).
_VLLM_OWN_SRC = re.compile(
    r"(?:core|core_client|multiproc_executor|ray_distributed_executor|uniproc_executor|gpu_worker|"
    r"gpu_model_runner|kv_cache_utils)\.py:\d+$"
)
_POST_ARGS_FRAMES = _lazy(
    r"run_scheduler_process|scheduler\.py|model_runner|tp_worker|gpu_worker|worker_base|EngineCore|engine/core\.py|"
    r"parallel_state\.py|init_torch_distributed|pynccl"
)
_SGL_RANK = _lazy(r"^(?:(?:DP|TP|PP|EP|CP)\d+\s*)+$")
_SGL_ONLY = _lazy(
    r"Load weight (?:begin|end)\.|KV Cache is allocated\.|Mamba Cache is allocated\.|Memory pool end\.|"
    r"Capture cuda graph|max_total_num_tokens=|The server is fired up",
    needles=(
        "Load weight ",
        "KV Cache is allocated.",
        "Mamba Cache is allocated.",
        "Memory pool end.",
        "Capture cuda graph",
        "max_total_num_tokens=",
        "The server is fired up",
    ),
)
# SGLang's data parallel controller announces each DP rank (``Launch DP1 starting at GPU #4.``,
# managers/data_parallel_controller.py); the launcher starts it after it logged ``server_args=``.
# vLLM's request handlers (entrypoints/openai/serving_*.py, the tool and reasoning parsers they call): a line
# they log (``ERROR 02-05 08:06:47 [serving_chat.py:1343] Error in chat completion stream generator.``,
# vllm#34322) is about a request the running server was answering.
_VLLM_SERVING_SRC = re.compile(r"(?:serving_\w+|\w+_tool_parser|\w+_reasoning_parser)\.py:\d+$")

_SGL_DP_LAUNCH = _lazy(r"\bLaunch DP\d+ starting at GPU #\d+", needles=("starting at GPU",))
_STARTED_PID = _lazy(r"Started server process \[(\d+)\]", needles=("Started server process [",))
_PRE_ARGS_FRAMES = _lazy(
    r"prepare_server_args|from_cli_args|parse_args|__post_init__|_handle_\w+|check_server_args|"
    r"launch_server\.py\", line \d+, in <module>|resolve_once|create_engine_config|make_arg_parser"
)


def build_launches(scan: Scan, *, framework: str | None = None, year_hint: int | None = None) -> LogAnalysis:
    launches: list[Launch] = []
    current: Launch | None = None
    catalog = load_catalog()

    def new_launch(line_no: int) -> Launch:
        launch = Launch(index=len(launches) + 1, first_line=line_no)
        launches.append(launch)
        return launch

    block_end = 0  # the last line number a Traceback block seen so far covers
    spans = iter(scan.dropped)  # [first offset, last offset, count], in stream order
    span = next(spans, None)
    for line in unjoined(scan.lines):
        while span is not None and current is not None and line.offset is not None and span[0] < line.offset:
            current.lines_dropped += span[2]  # dropped after the launch's last kept line, before this one
            span = next(spans, None)
        if line.block is not None:
            line.block = _trim_traceback(line.block)
        p = split_prefix(line.text)
        body = p.body
        when = p.time or _from_month_day(p.month_day, year_hint)
        start_marker = _start_marker(body, line)
        if start_marker == "pre-args-traceback" and current is not None and _chained(current, line):
            start_marker = None
        if current is None:
            current = new_launch(line.number)
            # a frame or an indented line (a frame's source line, its ``raise``): the copy starts inside a
            # traceback (the scan keeps no plain frame line, so its first kept line may be the ``raise``)
            current.begins_mid_traceback = body[:1].isspace() or bool(FRAME_LINE.match(body))
        elif start_marker and _starts_new(current, start_marker, line):
            current = new_launch(line.number)
        launch = current
        launch.last_line = line.number
        if when is not None:
            if launch.start is None:
                launch.start = when
                launch.start_text = when.isoformat(sep=" ")
            launch.end = when
        if p.pid is not None and p.proc and p.proc.startswith("APIServer") and p.pid not in launch.pids:
            launch.pids.append(p.pid)
        started = _STARTED_PID.search(body)
        if started and int(started.group(1)) not in launch.pids:
            launch.pids.append(int(started.group(1)))
        if (p.proc and _VLLM_ENGINE_PROCS.match(p.proc)) or (p.rank and _SGL_RANK.match(p.rank)):
            launch.post_args_evidence = True
        if p.src and _VLLM_ENGINE_SRC.search(p.src):
            launch.post_args_evidence = True
        if _SGL_DP_LAUNCH.search(body):
            launch.post_args_evidence = True
            launch.framework = launch.framework or "sglang"
        title = PROCESS_TITLE.search(body) if "::" in body else None
        if title:
            # a process the framework starts only after it logged its arguments, named by its title (an
            # OOM killer's ``Killed process 4242 (VLLM::EngineCor)``): not a death in argument validation
            launch.post_args_evidence = True
            launch.framework = launch.framework or ("sglang" if title.group(1) == "sglang" else "vllm")
        request = bool(p.src and _VLLM_SERVING_SRC.search(p.src))
        if request:
            launch.request_lines.add(line.number)
        if SERVING_LINE.search(body) or request:
            # a running server's steady lines (vLLM's throughput stats, SGLang's batches, the API's requests)
            # come only once it serves: the launch is past its configuration line and its start-up
            launch.post_args_evidence = True
            if launch.serving_line is None:
                launch.serving_line = line.number
        if line.block is not None:
            block_end = max(block_end, line.number + len(line.block))
            if _POST_ARGS_FRAMES.search("\n".join(line.block)):
                launch.post_args_evidence = True
        if launch.framework is None:
            if (p.proc and _VLLM_PROCS.match(p.proc)) or (p.src and _VLLM_OWN_SRC.search(p.src)):
                launch.framework = "vllm"
            elif p.rank and _SGL_RANK.match(p.rank):
                launch.framework = "sglang"
            elif _SGL_ONLY.search(body):
                launch.framework = "sglang"
        if p.proc is not None:
            launch.procs[line.number] = f"{p.proc} {p.pid}"
        if FRAME_LINE.match(body):
            # A frame outside any Traceback block: an excerpt that starts mid-traceback, or frames whose
            # indentation the report lost. Kept for the exception line that follows it.
            if line.number > block_end:
                launch.loose_frames.append((line.number, body.strip()))
                if _POST_ARGS_FRAMES.search(body):
                    launch.post_args_evidence = True
            continue
        step = begun_in(body)
        if step == "cuda_graph":
            # the latest capture: SGLang's piecewise capture begins after the decode graphs' ended
            launch.begun[step] = line.number
        elif step is not None:
            launch.begun.setdefault(step, line.number)
        errors_before = len(launch.errors)
        _interpret(launch, line, p, framework, catalog)
        if len(launch.errors) > errors_before and not launch.errors[-1].traceback:
            launch.errors[-1].traceback = frames_before(launch.loose_frames, line.number)
    if launches:
        launches[-1].lines_dropped += sum(rest[2] for rest in (span, *spans) if rest is not None)
    _tail_step(scan, launches, new_launch)
    if launches and scan.last_line and SERVING_LINE.search(scan.last_line):
        # the file ends in a running server's steady lines (the scan keeps its last line, not those before)
        last = launches[-1]
        last.post_args_evidence = True
        if last.serving_line is None:
            last.serving_line = scan.total_lines
    if launches and launches[0].args_dump is None and launches[0].first_line > 1:
        # an excerpt's launch begins at its first logged line, not at the first line the scan kept
        earlier = _first_logged_line(scan.path, launches[0].first_line, scan.gzip)
        if earlier is not None:
            first = launches[0]
            first.first_line = earlier[0]
            when = earlier[1].time or _from_month_day(earlier[1].month_day, year_hint)
            if when is not None and (first.start is None or when < first.start):
                first.start = when
                first.start_text = when.isoformat(sep=" ")
    for launch in launches:
        if launch.framework is None:
            launch.framework = framework or _framework_from_tracebacks(launch)
        _match_errors(launch, framework or launch.framework, catalog)
        fatal = launch.fatal
        if fatal is not None and (
            fatal.stage in AFTER_ARGS_STAGES or (fatal.signature is not None and fatal.signature.after_args)
        ):
            # The error itself happened in a step that runs after the args line (an excerpt that starts
            # mid-traceback, without the frames' "Traceback" header): the line existed.
            launch.post_args_evidence = True
        elif any(e.signature is not None and e.signature.after_args for e in launch.errors):
            # an error only a started server logs, even one it goes on serving after (a request's KV
            # transfer between PD servers, sglang#7338): the args line existed too
            launch.post_args_evidence = True
    fw = framework or next((lc.framework for lc in reversed(launches) if lc.framework), None)
    return LogAnalysis(scan=scan, launches=launches, framework=fw, year_hint=year_hint)


# How much of a file's head ``_first_logged_line`` reads (no_launch reads the same for its pieces).
_HEAD_BYTES = 1 << 16


def _first_logged_line(path: str, before: int, gz: bool = False) -> tuple[int, Parsed] | None:
    """The number and prefixes of the file's first line, before line ``before``, that carries a log prefix
    (a time, a process tag, ranks: split_prefix); None when there is none in the head. The scan keeps only
    the lines that say something; the lines before the first kept one belong to the same launch (a launch
    starts only at a kept line), so an excerpt's launch begins at the first of them (club-3090#74: eight
    lines of ``(APIServer pid=1)``/``(EngineCore pid=45)`` before the server's start)."""
    try:
        if gz:
            import gzip  # here: most logs are plain (1 M instructions); the fast paths use lines.Gunzip

            with gzip.open(path, "rb") as handle:
                data = handle.read(_HEAD_BYTES)
        else:
            with open(path, "rb") as handle:
                data = handle.read(_HEAD_BYTES)
    except (OSError, EOFError):
        return None
    # numbered as the scan numbers them: one line per ``\n`` (a docker json-file record unwrapped)
    for number, raw in enumerate(data.split(b"\n")[: before - 1], start=1):
        line = _decode(raw).rstrip("\r")
        if not line.strip():
            continue
        p = split_prefix(line)
        if p.time is not None or p.month_day is not None or p.proc is not None or p.rank is not None:
            return number, p
    return None


def _tail_step(scan: Scan, launches: list[Launch], new_launch: Any) -> None:
    """The file's last line (every scan keeps it) may show a step under way that no anchor kept: a weights
    or graph-capture progress bar, NCCL's debug lines. It belongs to the last launch."""
    step = begun_at_tail(scan.last_line) if scan.last_line else None
    if step is None or scan.total_lines < 1:
        return
    if not launches:
        # every such step runs after the configuration line: a file with no other kept line is an excerpt
        new_launch(scan.total_lines).post_args_evidence = True
    launch = launches[-1]
    if launch.last_line > scan.total_lines:
        return
    launch.begun.setdefault(step, scan.total_lines)
    launch.last_line = scan.total_lines


def _framework_from_tracebacks(launch: Launch) -> str | None:
    text = "\n".join("\n".join(block) for _n, block in launch.tracebacks)
    text += "\n".join(e.text for e in launch.errors)
    text += "\n".join(frame for _n, frame in launch.loose_frames)
    if vllm_engine_config("", text):
        return "vllm"
    return frames_framework(text)


def _start_marker(body: str, line: Line) -> str | None:
    if _SGL_ARGS.search(body):
        return "sglang-args"
    if _VLLM_VERSION.search(body):
        return "vllm-version"
    if _VLLM_ARGS.search(body) or ("args: Namespace(" in body and _VLLM_NAMESPACE.search(body)):
        return "vllm-args"
    if _USAGE.match(body):
        return "usage"
    if line.block is not None:
        frames = "\n".join(line.block)
        # vLLM builds its engine configuration after it logged its arguments: not a new launch.
        if _PRE_ARGS_FRAMES.search(frames) and not vllm_engine_config(frames, frames):
            return "pre-args-traceback"
    return None


def _chained(launch: Launch, line: Line) -> bool:
    """A traceback printed as the continuation of the previous one (chained exceptions)."""
    if not launch.tracebacks:
        return False
    tb_line, block = launch.tracebacks[-1]
    return line.number - tb_line <= len(block) + 3 and any(c in x for x in block for c in _CHAINED)


def _starts_new(launch: Launch, marker: str, line: Line) -> bool:
    has_args = launch.args_dump is not None
    finished = launch.fatal is not None or launch.ready or launch.usage_error or _has_fatal_candidate(launch)
    if marker == "sglang-args":
        return has_args or finished or launch.framework == "vllm"
    if marker == "vllm-version":
        return has_args or finished or launch.version is not None or launch.framework == "sglang"
    if marker == "vllm-args":
        return has_args or finished
    if marker == "usage":
        return has_args or finished
    if marker == "pre-args-traceback":
        return has_args or finished
    return False


def _has_fatal_candidate(launch: Launch) -> bool:
    return bool(launch.tracebacks) or any(e.fatal for e in launch.errors)


def _interpret(launch: Launch, line: Line, p: Parsed, framework: str | None, catalog: Any) -> None:
    body = p.body
    at_time: str | None = None
    if p.time is not None:
        at_time = p.time.isoformat(sep=" ")
    elif p.month_day is not None:
        mo, d, h, mi, se = p.month_day
        at_time = f"{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{se:02d}"

    def event(name: str, **fields: Any) -> None:
        if name not in launch.events:
            launch.events[name] = Event(
                name, line.number, at_time, {k: v for k, v in fields.items() if v is not None}
            )

    m = _SGL_ARGS.search(body)
    if m:
        launch.framework = launch.framework or "sglang"
        parsed = parse_record(body[m.end() :], kind="sglang-dict" if body[m.end()] == "{" else "sglang-repr")
        parsed.truncated = parsed.truncated or line.truncated
        launch.dumps.append(Dump(line.number, "server_args", parsed))
        launch.speculative = bool(parsed.values.get("speculative_algorithm"))
        event(
            "args_logged", format=parsed.kind, settings=len(parsed.values), truncated=parsed.truncated or None
        )
        return
    m = _VLLM_ARGS.search(body)
    if m:
        launch.framework = launch.framework or "vllm"
        parsed = parse_record(body[m.end() :], kind="vllm-args")
        parsed.truncated = parsed.truncated or line.truncated
        launch.dumps.append(Dump(line.number, "non-default args", parsed))
        launch.speculative = launch.speculative or bool(parsed.values.get("speculative_config"))
        event(
            "args_logged", format="vllm-args", settings=len(parsed.values), truncated=parsed.truncated or None
        )
        return
    m = _VLLM_NAMESPACE.search(body) if "args: Namespace(" in body else None
    if m:
        launch.framework = launch.framework or "vllm"
        parsed = parse_record(body[m.end() :], kind="vllm-namespace")
        parsed.truncated = parsed.truncated or line.truncated
        launch.dumps.append(Dump(line.number, "args Namespace", parsed))
        spec = parsed.values.get("speculative_config") or parsed.values.get("speculative_model")
        launch.speculative = launch.speculative or (spec not in (None, "None", ""))
        event(
            "args_logged",
            format="vllm-namespace",
            settings=len(parsed.values),
            truncated=parsed.truncated or None,
        )
        return
    m = _VLLM_CONFIG.search(body)
    if m:
        launch.framework = launch.framework or "vllm"
        launch.version = launch.version or m.group("version")
        parsed = parse_kw_list(body[m.end() :], kind="vllm-config")
        parsed.truncated = parsed.truncated or line.truncated
        launch.dumps.append(Dump(line.number, "engine config", parsed))
        # vLLM's engine logs its configuration once it was started, after the API server logged its
        # arguments (``non-default args``): a file that holds this line and not that one is an excerpt
        launch.post_args_evidence = True
        spec = parsed.values.get("speculative_config")
        launch.speculative = launch.speculative or (spec not in (None, "None", ""))
        event("model_config", source="engine config", settings=len(parsed.values))
        return
    m = _VLLM_VERSION.search(body)
    if m:
        launch.framework = launch.framework or "vllm"
        launch.version = launch.version or m.group("version") or m.group("v2")
        return
    m = _SGL_VERSION.search(body)
    if m and launch.version is None and (framework in (None, "sglang")):
        launch.version = m.group("version")
    if _USAGE.match(body):
        launch.usage_error = True
        return
    if line.block is not None:
        launch.tracebacks.append((line.number, line.block))
        head, _, tail = body.partition("Traceback (most recent call last)")
        head, tail = head.strip(), tail.lstrip(":").strip()
        if head:
            # a copy whose line breaks a viewer turned into spaces holds the whole traceback on this line
            # (MinerU#2658): its frames are the block's first line
            block = [tail, *line.block] if tail else list(line.block)
            launch.errors.append(ErrorHit(line=line.number, text=head, stage="", traceback=block))
        return
    _timeline(launch, body, event, line.number)
