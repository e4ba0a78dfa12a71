"""From the lines the scanner kept to launches, timelines, errors and findings.

A log file may hold several launches (``>>`` append mode, restarts under a supervisor). Each launch gets
its configuration dump(s) (SGLang ``server_args=``, vLLM ``non-default args:`` / ``with config:``), a
start-up timeline with fixed event names, its errors matched against the signature catalog, and the stage
where it stopped. Findings carry ``launch: N``; ``at`` is ``LOG:LINE``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from argtrace.layers.log.hang import begun_at_tail, begun_in
from argtrace.layers.log.lazyre import LazyPattern as _lazy
from argtrace.layers.log.pasted import frames_before, unjoined
from argtrace.layers.log.pyrepr import ParsedDump, parse_kw_list, parse_record
from argtrace.layers.log.reader import Line, Scan
from argtrace.layers.log.signatures import Signature, load_catalog, match_line
from argtrace.layers.log.stages import (
    AFTER_ARGS_STAGES,
    FRAME_LINE,
    frames_framework,
    frames_stage,
    vllm_engine_config,
)

EVENTS = (
    "args_logged",
    "model_config",
    "weights_loaded",
    "mamba_cache_allocated",
    "kv_cache_allocated",
    "memory_pool_end",
    "cuda_graph_captured",
    "draft_worker_ready",
    "server_ready",
)
# Events that only happen after the configuration was logged (their presence means the args line existed).
POST_ARGS_EVENTS = frozenset(EVENTS[EVENTS.index("model_config") + 1 :])
# What a launch does next once it has reached an event (for "where it stopped").
STAGES = (
    "import",
    "arguments",
    "validation",
    "model_config",
    "weights",
    "mamba_cache",
    "kv_cache",
    "cuda_graph",
    "draft_worker",
    "serving",
)

# --- line prefixes ----------------------------------------------------------------------------------
_OUTER_TS = _lazy(r"^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:[.,]\d+)?Z?\s+(?:\|\s+)?")
_JOURNAL = _lazy(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ [\w.\-\[\]]+: ")
_PROC = _lazy(r"^\((?P<proc>[A-Za-z_][\w]*)(?P<attrs>(?: [\w]+=[\w.]+)*)\)\s?", needles=("(",))
_VLLM_LEVEL = _lazy(
    r"^(?P<level>INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+(?P<md>\d\d-\d\d) (?P<hms>\d\d:\d\d:\d\d)(?:\.\d+)?\s+"
    r"(?:\[(?P<src>[^\]]+)\]\s?|(?P<src2>[\w.]+:\d+)\]\s?)"
)
_SGL_TS = _lazy(r"^\[(?P<date>\d{4}-\d\d-\d\d) (?P<hms>\d\d:\d\d:\d\d)(?:\s+(?P<rank>[^\]]*))?\]\s?")
_SGL_LEVEL = _lazy(r"^(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) [\w./]+:\d+: ")
_RANK = _lazy(r"^\[rank\d+\]:\s?", needles=("[rank",))


@dataclass
class Parsed:
    """A log line without its prefixes."""

    body: str
    time: datetime | None = None
    month_day: tuple[int, int, int, int, int] | None = None  # vLLM: month, day, h, m, s (no year)
    proc: str | None = None
    pid: int | None = None
    rank: str | None = None
    src: str | None = None  # vLLM's ``[file.py:N]``: the module that logged the line


def split_prefix(text: str) -> Parsed:
    out = Parsed(body=text)
    s = text
    m = _OUTER_TS.match(s)
    if m:
        out.time = _dt(m.group(1), m.group(2))
        s = s[m.end() :]
    m2 = _JOURNAL.match(s)
    if m2:
        s = s[m2.end() :]
    m3 = _PROC.match(s)
    if m3:
        out.proc = m3.group("proc")
        pid = re.search(r"pid=(\d+)", m3.group("attrs") or "")
        out.pid = int(pid.group(1)) if pid else None
        s = s[m3.end() :]
    m4 = _VLLM_LEVEL.match(s)
    if m4:
        month, day = (int(x) for x in m4.group("md").split("-"))
        h, mi, se = (int(x) for x in m4.group("hms").split(":"))
        out.month_day = (month, day, h, mi, se)
        out.src = m4.group("src") or m4.group("src2")
        s = s[m4.end() :]
    stripped = s.lstrip()
    if stripped.startswith("[") and _SGL_TS.match(stripped):
        m5 = _SGL_TS.match(stripped)
        assert m5 is not None
        out.time = _dt(m5.group("date"), m5.group("hms")) or out.time
        out.rank = (m5.group("rank") or "").strip() or None
        s = stripped[m5.end() :]
        m6 = _SGL_LEVEL.match(s)
        if m6:
            s = s[m6.end() :]
    m7 = _RANK.match(s)
    if m7:
        s = s[m7.end() :]
    out.body = s
    return out


@lru_cache(maxsize=4096)
def _dt(date: str, hms: str) -> datetime | None:
    try:
        return datetime(
            int(date[0:4]), int(date[5:7]), int(date[8:10]), int(hms[0:2]), int(hms[3:5]), int(hms[6:8])
        )
    except ValueError:
        return None


# --- what lines mean ---------------------------------------------------------------------------------
_SGL_ARGS = _lazy(r"server_args=(?=ServerArgs\(|\{)", needles=("server_args=",))
_VLLM_ARGS = _lazy(r"non-default args: (?=\{)", needles=("non-default args: ",))
# vLLM <= 0.9's API server logs the whole argparse result (``args: Namespace(...)``), every default included.
_VLLM_NAMESPACE = re.compile(r"\bargs: (?=Namespace\()")
_VLLM_CONFIG = re.compile(r"Initializing an? (?:V1 )?LLM engine \(v(?P<version>[^)]+)\) with config: ")
_VLLM_VERSION = re.compile(r"vLLM API server version (?P<version>\S+)|█\s+version (?P<v2>\d[\w.+-]*)")
_SGL_VERSION = re.compile(r"\bsglang(?:==| version:? ?v?)(?P<version>\d+\.\d+[\w.+-]*)", re.I)
_USAGE = _lazy(r"^usage: (?P<prog>\S+)", needles=("usage: ",))
_ARGPARSE_ERROR = _lazy(r"^(?P<prog>[\w.\-]+): error: (?P<msg>.*)", needles=(": error: ",))
_EXCEPTION = _lazy(
    r"^(?P<type>(?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception|Exit|Interrupt|Warning))(?::\s?(?P<msg>.*))?$",
    needles=("Error", "Exception", "Exit", "Interrupt", "Warning"),
)
_GB = r"([\d.]+)\s*(?:GB|GiB)"

_SGL_WEIGHT_END = _lazy(r"Load weight end\.(?P<rest>.*)", needles=("Load weight end.",))
_SGL_WEIGHT_BEGIN = _lazy(r"Load weight begin\.", needles=("Load weight begin.",))
_SGL_KV = _lazy(r"KV Cache is allocated\.(?P<rest>.*)", needles=("KV Cache is allocated.",))
_SGL_MAMBA = _lazy(r"Mamba Cache is allocated\.(?P<rest>.*)", needles=("Mamba Cache is allocated.",))
_SGL_POOL_END = _lazy(r"Memory pool end\. avail mem=" + _GB, needles=("Memory pool end. avail mem=",))
_SGL_GRAPH_END = _lazy(
    r"Capture (?P<what>[\w ]*?)(?:cuda|CUDA) graph end\.(?P<rest>.*)", needles=(" graph end.",)
)
_SGL_MAX_TOKENS = _lazy(
    r"max_total_num_tokens=(?P<tokens>\d+)(?P<rest>.*)", needles=("max_total_num_tokens=",)
)
_READY = _lazy(
    r"The server is fired up and ready to roll|Uvicorn running on|Application startup complete"
    r"|Starting vLLM API server",
    needles=(
        "The server is fired up and ready to roll",
        "Uvicorn running on",
        "Application startup complete",
        "Starting vLLM API server",
    ),
)
_VLLM_ARCH = _lazy(r"Resolved architecture: (?P<arch>\w+)", needles=("Resolved architecture: ",))
_VLLM_WEIGHTS = _lazy(r"(?:Model loading|Loading model weights) took " + _GB, needles=(" took ",))
_VLLM_KV_MEM = _lazy(r"Available KV cache memory: " + _GB, needles=("Available KV cache memory: ",))
_VLLM_KV_TOKENS = _lazy(r"GPU KV cache size: (?P<tokens>[\d,]+) tokens", needles=("GPU KV cache size: ",))
_VLLM_KV_CONC = _lazy(
    r"Maximum concurrency for (?P<per>[\d,]+) tokens per request: (?P<x>[\d.]+)x",
    needles=("Maximum concurrency for ",),
)
_VLLM_INIT_ENGINE = _lazy(
    r"init engine \(profile, create kv cache, warmup model\) took (?P<s>[\d.]+) s(?:econds)?",
    needles=("init engine (profile, create kv cache, warmup model) took ",),
)
_VLLM_GRAPH = _lazy(
    r"Graph capturing finished in (?P<s>[\d.]+) secs?, took " + _GB, needles=("Graph capturing finished in ",)
)
_VLLM_DRAFT = _lazy(r"(?i)(?:Loading drafter model|drafter model.*loaded|draft model.*took)")
_DRAFT_TYPE = _lazy(r"(?i)mtp|nextn|eagle|draft|dspark|medusa|dflash")

_VLLM_PROCS = _lazy(
    r"APIServer|EngineCore|VllmWorker|RayWorkerWrapper|Worker_TP|Worker\b",
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
# Every timeline line contains one of these (a cheap test before the regexes).
_TIMELINE_KEYS = (
    "Load weight",
    "Cache is allocated",
    "Memory pool end",
    "graph end",
    "max_total_num_tokens",
    "fired up",
    "Uvicorn running",
    "startup complete",
    "Starting vLLM",
    "Resolved architecture",
    "took",
    "KV cache",
    "Maximum concurrency",
    "drafter",
    "draft model",
)
_DIGITS = _lazy(r"\d+")
_STARTED_PID = _lazy(r"Started server process \[(\d+)\]", needles=("Started server process [",))
_PRE_ARGS_FRAMES = _lazy(
    r"prepare_server_args|from_cli_args|parse_args|__post_init__|_handle_\w+|check_server_args|"
    r"launch_server\.py\", line \d+, in <module>|resolve_once|create_engine_config|make_arg_parser"
)

# Names vLLM's "with config:" line uses for fields whose CLI dest differs.
VLLM_CONFIG_ALIASES = {"max_seq_len": "max_model_len", "device_config": "device"}
# Renamed SGLang fields (0.5.15 made --mamba-scheduler-strategy an alias of --mamba-radix-cache-strategy).
SETTING_ALIASES = {
    "mamba_scheduler_strategy": ("mamba_radix_cache_strategy",),
    "mamba_radix_cache_strategy": ("mamba_scheduler_strategy",),
}


@dataclass
class Event:
    """A start-up step the log shows (``EVENTS``): where, when, and what it reported."""

    name: str
    line: int
    time: str | None
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass
class ErrorHit:
    """An error line, the stage it happened in, and the catalog entry it matched (if any)."""

    line: int
    text: str
    stage: str
    signature: Signature | None = None
    groups: dict[str, str] = field(default_factory=dict)
    fatal: bool = False
    count: int = 1
    traceback: list[str] = field(default_factory=list)
    exception: str | None = None


@dataclass
class Dump:
    """A configuration dump the server logged, parsed."""

    line: int
    source: str  # "server_args", "non-default args", "args Namespace", "engine config"
    parsed: ParsedDump


@dataclass
class Launch:
    """One start of a server in the log: its dumps, start-up steps, errors and processes."""

    index: int
    first_line: int
    last_line: int = 0
    framework: str | None = None
    version: str | None = None
    dumps: list[Dump] = field(default_factory=list)
    events: dict[str, Event] = field(default_factory=dict)
    errors: list[ErrorHit] = field(default_factory=list)
    tracebacks: list[tuple[int, list[str]]] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)
    start: datetime | None = None
    start_text: str | None = None
    end: datetime | None = None
    usage_error: bool = False
    speculative: bool = False
    # Lines that only processes started after the configuration was logged print (vLLM EngineCore/Workers,
    # SGLang TP/DP-ranked schedulers): the args line existed even when this file does not hold it.
    post_args_evidence: bool = False
    # The scheduler's "max_total_num_tokens=..., max_running_requests=N" line (what it really runs with).
    scheduler_line: int | None = None
    # Traceback frames outside any Traceback block (line, frame): their exception line's traceback.
    loose_frames: list[tuple[int, str]] = field(default_factory=list)
    # Start-up steps a line began (``hang.STEP_ORDER``: step -> first line), ended or not: where a launch that
    # stops without an error was (SGLang's "Capture cuda graph begin", vLLM's "Starting to load model").
    begun: dict[str, int] = field(default_factory=dict)

    @property
    def args_dump(self) -> Dump | None:
        return next(
            (d for d in self.dumps if d.source in ("server_args", "non-default args", "args Namespace")), None
        )

    @property
    def ready(self) -> bool:
        return "server_ready" in self.events

    @property
    def fatal(self) -> ErrorHit | None:
        fatal = [e for e in self.errors if e.fatal]
        if not fatal:
            return None
        specific = [e for e in fatal if e.signature is not None and not e.signature.wrapper]
        return (specific or fatal)[0]

    def settings(self) -> dict[str, tuple[Any, Dump]]:
        """Every logged setting (dest name) with its value; later dumps (engine config) win."""
        out: dict[str, tuple[Any, Dump]] = {}
        for dump in self.dumps:
            for key, value in dump.parsed.values.items():
                name = VLLM_CONFIG_ALIASES.get(key, key) if dump.source == "engine config" else key
                out[name] = (value, dump)
        return out


@dataclass
class LogAnalysis:
    """The launches found in one scan."""

    scan: Scan
    launches: list[Launch]
    framework: str | None
    year_hint: int | None


# --- building launches ---------------------------------------------------------------------------------
def build_launches(scan: Scan, *, framework: str | None = None, year_hint: int | None = None) -> LogAnalysis:
    launches: list[Launch] = []
    current: Launch | None = None
    catalog = load_catalog()

    def new_launch(line_no: int) -> Launch:
        launch = Launch(index=len(launches) + 1, first_line=line_no)
        launches.append(launch)
        return launch

    block_end = 0  # the last line number a Traceback block seen so far covers
    for line in unjoined(scan.lines):
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
        if FRAME_LINE.match(body):
            # A frame outside any Traceback block: an excerpt that starts mid-traceback, or frames whose
            # indentation the report lost. Kept for the exception line that follows it.
            if line.number > block_end:
                launch.loose_frames.append((line.number, body.strip()))
                if _POST_ARGS_FRAMES.search(body):
                    launch.post_args_evidence = True
            continue
        step = begun_in(body)
        if step is not None:
            launch.begun.setdefault(step, line.number)
        errors_before = len(launch.errors)
        _interpret(launch, line, p, framework, catalog)
        if len(launch.errors) > errors_before and not launch.errors[-1].traceback:
            launch.errors[-1].traceback = frames_before(launch.loose_frames, line.number)
    _tail_step(scan, launches, new_launch)
    for launch in launches:
        if launch.framework is None:
            launch.framework = framework or _framework_from_tracebacks(launch)
        _match_errors(launch, framework or launch.framework, catalog)
        fatal = launch.fatal
        if fatal is not None and fatal.stage in AFTER_ARGS_STAGES:
            # The error itself happened in a step that runs after the args line (an excerpt that starts
            # mid-traceback, without the frames' "Traceback" header): the line existed.
            launch.post_args_evidence = True
    fw = framework or next((lc.framework for lc in reversed(launches) if lc.framework), None)
    return LogAnalysis(scan=scan, launches=launches, framework=fw, year_hint=year_hint)


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


def _from_month_day(md: tuple[int, int, int, int, int] | None, year: int | None) -> datetime | None:
    if md is None or year is None:
        return None
    try:
        return datetime(year, md[0], md[1], md[2], md[3], md[4])
    except ValueError:
        return None


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


_CHAINED = ("During handling of the above exception", "The above exception was the direct cause")


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
        head = body.split("Traceback (most recent call last)", 1)[0].strip()
        if head:
            launch.errors.append(ErrorHit(line=line.number, text=head, stage="", traceback=list(line.block)))
        return
    _timeline(launch, body, event, line.number)


def _num(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _timeline(launch: Launch, body: str, event: Any, line_no: int) -> None:
    m: re.Match[str] | None
    if not any(key in body for key in _TIMELINE_KEYS):
        _candidate(launch, body, line_no)
        return
    if _SGL_WEIGHT_BEGIN.search(body):
        event("model_config", source="load weight begin")
        return
    m = _SGL_WEIGHT_END.search(body)
    if m:
        rest = m.group("rest")
        usage = re.search(r"mem usage=" + _GB, rest)
        typ = re.search(r"type=(\w+)", rest)
        gib = _num(usage.group(1)) if usage else None
        if "weights_loaded" in launch.events and typ and _DRAFT_TYPE.search(typ.group(1)):
            event("draft_worker_ready", type=typ.group(1), gib=gib, source="draft weights loaded")
        else:
            event("weights_loaded", gib=gib, type=typ.group(1) if typ else None)
        return
    m = _SGL_MAMBA.search(body)
    if m:
        rest = m.group("rest")
        slots = re.search(r"max_mamba_cache_size:\s*(\d+)", rest)
        conv = re.search(r"conv_state size:\s*" + _GB, rest)
        ssm = re.search(r"ssm_state size:\s*" + _GB, rest)
        parts = [
            x
            for x in (_num(conv.group(1)) if conv else None, _num(ssm.group(1)) if ssm else None)
            if x is not None
        ]
        event(
            "mamba_cache_allocated",
            slots=int(slots.group(1)) if slots else None,
            gib=round(sum(parts), 4) if parts else None,
        )
        return
    m = _SGL_KV.search(body)
    if m:
        rest = m.group("rest")
        tokens = re.search(r"#tokens:\s*(\d+)", rest)
        k = re.search(r"\bK size:\s*" + _GB, rest)
        v = re.search(r"\bV size:\s*" + _GB, rest)
        kv = re.search(r"\bKV size:\s*" + _GB, rest)
        kv_parts = [n for n in (_num(x.group(1)) for x in (k, v, kv) if x) if n is not None]
        gib = round(sum(kv_parts), 4) if kv_parts else None
        event("kv_cache_allocated", tokens=int(tokens.group(1)) if tokens else None, gib=gib)
        return
    m = _SGL_POOL_END.search(body)
    if m:
        event("memory_pool_end", avail_gib=_num(m.group(1)))
        return
    m = _SGL_GRAPH_END.search(body)
    if m:
        rest = m.group("rest")
        secs = re.search(r"(?:Time elapsed:|elapsed=)\s*([\d.]+)\s*s", rest)
        usage = re.search(r"mem usage=" + _GB, rest)
        fields = {
            "seconds": _num(secs.group(1)) if secs else None,
            "gib": _num(usage.group(1)) if usage else None,
        }
        if "draft" in m.group("what").lower():
            event("draft_worker_ready", source="draft CUDA graph captured", **fields)
        else:
            event("cuda_graph_captured", **fields)
        return
    m = _SGL_MAX_TOKENS.search(body)
    if m:
        running = re.search(r"max_running_requests=(\d+)", m.group("rest"))
        if "kv_cache_allocated" not in launch.events:
            event("kv_cache_allocated", tokens=int(m.group("tokens")))
        kv_event = launch.events["kv_cache_allocated"]
        kv_event.fields.setdefault("tokens", int(m.group("tokens")))
        kv_event.fields["max_total_num_tokens"] = int(m.group("tokens"))
        launch.scheduler_line = line_no
        if running:
            kv_event.fields["slots"] = int(running.group(1))
        return
    if _READY.search(body):
        event("server_ready")
        return
    m = _VLLM_ARCH.search(body)
    if m:
        event("model_config", architecture=m.group("arch"))
        return
    m = _VLLM_WEIGHTS.search(body)
    if m:
        if "weights_loaded" in launch.events and launch.speculative:
            event("draft_worker_ready", gib=_num(m.group(1)), source="draft model loaded")
        else:
            event("weights_loaded", gib=_num(m.group(1)))
        return
    m = _VLLM_DRAFT.search(body)
    if m:
        event("draft_worker_ready", source="drafter model")
        return
    m = _VLLM_KV_MEM.search(body)
    if m:
        event("kv_cache_allocated", gib=_num(m.group(1)))
        return
    m = _VLLM_KV_TOKENS.search(body)
    if m:
        event("kv_cache_allocated")
        launch.events["kv_cache_allocated"].fields["tokens"] = int(m.group("tokens").replace(",", ""))
        return
    m = _VLLM_KV_CONC.search(body)
    if m and "kv_cache_allocated" in launch.events:
        launch.events["kv_cache_allocated"].fields["max_concurrency"] = _num(m.group("x"))
        return
    m = _VLLM_GRAPH.search(body)
    if m:
        event("cuda_graph_captured", seconds=_num(m.group("s")), gib=_num(m.group(2)))
        return
    m = _VLLM_INIT_ENGINE.search(body)
    if m:
        event("memory_pool_end", seconds=_num(m.group("s")))
        return
    _candidate(launch, body, line_no)


# pydantic's ValidationError (vLLM's configs since 0.10) gives its message on the lines after the exception:
# "1 validation error for ModelConfig" / "  Value error, User-specified max_model_len (513) is greater ...".
_PYDANTIC_DETAIL = _lazy(r"^\s+(?:Value|Assertion|Type|Key) error, ", needles=(" error, ",))


def _candidate(launch: Launch, body: str, line_no: int) -> None:
    """Everything else that was kept is a candidate error line; matched after the launch is complete.
    Indented lines are traceback frames and source lines, not errors, and so is a "raise X(" source line
    whose indentation a report lost; pydantic's detail line completes the ValidationError before it."""
    if _PYDANTIC_DETAIL.match(body):
        last = launch.errors[-1] if launch.errors else None
        if last is not None and line_no - last.line <= 1 and "validation error" in last.text:
            last.text = f"{last.text} {body.strip()}"
        return
    if body[:1] not in (" ", "\t") and not body.startswith("raise "):
        launch.errors.append(ErrorHit(line=line_no, text=body, stage=""))


# --- errors -----------------------------------------------------------------------------------------
def stage_after(launch: Launch, line: int) -> str:
    """The stage a launch was in at ``line``: the first step not yet reached before it."""
    reached = {e.name for e in launch.events.values() if e.line <= line}
    if "args_logged" not in reached and not (reached & POST_ARGS_EVENTS) and not launch.post_args_evidence:
        return "validation"
    if not reached and launch.args_dump is None:
        # an excerpt that starts past the args line with no start-up step before the error: which step it
        # was is not in the file (not "weights", the first one after the args line)
        return "unknown"
    if "server_ready" in reached:
        return "serving"
    if "weights_loaded" not in reached:
        return "weights"
    if "kv_cache_allocated" not in reached and "memory_pool_end" not in reached:
        return "kv_cache"
    if "cuda_graph_captured" not in reached:
        return "cuda_graph"
    if launch.speculative and "draft_worker_ready" not in reached:
        return "draft_worker"
    return "serving"


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
    decided: dict[tuple[str, str], Signature | None] = {}
    for err in sorted(launch.errors, key=lambda e: e.line):
        text = err.text.strip()
        tb: tuple[int, list[str]] | None = (err.line, err.traceback) if err.traceback else None
        if tb is None:
            tb = next(
                (v for k, v in tb_by_exc.items() if text.endswith(k.strip()) or k.strip().endswith(text)),
                None,
            )
        frames_st = frames_stage(tb[1], text) if tb else None
        if tb is None and vllm_engine_config("", text):
            frames_st = "engine_config"  # pydantic's "validation error for ModelConfig": vLLM's configs
        stage = frames_st or stage_after(launch, err.line)
        decide_key = (_DIGITS.sub("0", text), stage)
        if decide_key in decided:
            sig_hit = decided[decide_key]
            m = sig_hit.pattern.search(text) if sig_hit is not None else None
            match = (
                (sig_hit, {k: v for k, v in m.groupdict().items() if v is not None})
                if sig_hit and m
                else None
            )
        else:
            match = match_line(text, framework=framework, stage=stage, catalog=catalog)
            decided[decide_key] = match[0] if match else None
        exc = _EXCEPTION.match(text)
        argparse_err = _ARGPARSE_ERROR.match(text)
        if match is None and not exc and not argparse_err and text != "Killed":
            continue
        sig, groups = match if match else (None, {})
        if sig is not None and launch.framework is None and sig.framework in ("sglang", "vllm"):
            launch.framework = sig.framework
        if sig is not None and sig.id in seen:
            seen[sig.id].count += 1
            continue
        fatal = bool(exc or argparse_err or text == "Killed")
        if sig is not None:
            fatal = fatal or sig.code in ("LG003", "LG004", "LG005", "LG007")
            if sig.severity in ("warning", "info") or sig.code in ("LG006", "LG008"):
                fatal = False
        if exc and exc.group("type").split(".")[-1] in ("UserWarning", "FutureWarning", "DeprecationWarning"):
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
        if sig is not None:
            seen[sig.id] = hit
        elif exc:
            key = "exc:" + text
            if key in seen:
                seen[key].count += 1
                continue
            seen[key] = hit
        hits.append(hit)
    launch.errors = hits


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


# --- comparison with the intended configuration ----------------------------------------------------------
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


def iter_events(launch: Launch) -> Iterable[Event]:
    return sorted(launch.events.values(), key=lambda e: (e.line, EVENTS.index(e.name)))


def next_missing(launch: Launch) -> str | None:
    """The first start-up event (in the order a healthy launch logs them) that this launch never reached."""
    reached = set(launch.events)
    order = ["args_logged", "weights_loaded", "kv_cache_allocated", "cuda_graph_captured"]
    if launch.speculative:
        order.append("draft_worker_ready")
    order.append("server_ready")
    if "memory_pool_end" in reached:
        reached.add("kv_cache_allocated")
    if "model_config" in reached or launch.begun:
        # the model's config is read after the args line was written (SGLang's "Load weight begin", vLLM's
        # "Resolved architecture"), and so is every step a line began: an excerpt without that line is past it
        reached.add("args_logged")
    if "cuda_graph" in launch.begun:
        # a capture begins once the weights are loaded and the KV cache allocated
        reached |= {"weights_loaded", "kv_cache_allocated"}
    last = max((i for i, name in enumerate(order) if name in reached), default=-1)
    for name in order[last + 1 :]:
        if name not in reached:
            return name
    return None


def stopped_after(launch: Launch) -> str | None:
    events = list(iter_events(launch))
    return events[-1].name if events else None


def year_for(mtime: datetime, launched_after: datetime | None) -> int:
    """The year to give vLLM's year-less timestamps."""
    if launched_after is not None:
        return launched_after.year
    return mtime.year


def clamp_year(dt: datetime, mtime: datetime) -> datetime:
    """A timestamp later than the file's modification time belongs to the year before."""
    if dt - mtime > timedelta(days=2):
        try:
            return dt.replace(year=dt.year - 1)
        except ValueError:
            return dt
    return dt
