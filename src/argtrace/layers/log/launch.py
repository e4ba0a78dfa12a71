"""What the analyser records of one launch, and the questions asked of it.

A :class:`Launch` is one start of a server in a log: its configuration dumps (:class:`Dump`), its start-up
events (``EVENTS``, :class:`Event`: the first of each name), its errors (:class:`ErrorHit`), tracebacks,
processes and the start-up steps its lines began; :class:`LogAnalysis` holds every launch of one scan.
``analyze.py`` fills these records; the functions here only read them (the events in order, the first step a
launch never reached, the stage it was in at a line), as do the layer's findings and sections.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from argtrace.layers.log.dates import datetime
from argtrace.layers.log.pyrepr import ParsedDump
from argtrace.layers.log.reader import Scan
from argtrace.layers.log.signatures import Signature
from argtrace.layers.log.stages import AFTER_ARGS_STAGES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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

# Names vLLM's "with config:" line uses for fields whose CLI dest differs.
VLLM_CONFIG_ALIASES = {"max_seq_len": "max_model_len", "device_config": "device"}

# Renamed SGLang fields (0.5.15 made --mamba-scheduler-strategy an alias of --mamba-radix-cache-strategy).
SETTING_ALIASES = {
    "mamba_scheduler_strategy": ("mamba_radix_cache_strategy",),
    "mamba_radix_cache_strategy": ("mamba_scheduler_strategy",),
}


def as_intended(name: str, intended: Mapping[str, Any] | None) -> str:
    """The name the caller uses for a logged setting (an older/newer dest name of the same field)."""
    if intended and name not in intended:
        for alias in SETTING_ALIASES.get(name, ()):
            if alias in intended:
                return alias
    return name


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
    # The file begins inside a traceback (its first line a frame, the ``Traceback`` header cut off): an
    # excerpt, so where the launch was when it died is not argument validation by default (sglang#8879)
    begins_mid_traceback: bool = False
    # server_ready stands on vLLM's "Starting vLLM server on" (logged just before uvicorn starts): uvicorn's
    # own line after it, when the file has one, is the ready line
    ready_announced: bool = False
    # The first of a running server's steady lines (SGLang's batches, vLLM's throughput stats, the OpenAI
    # API's requests, vLLM's route list): the server was serving from there on.
    serving_line: int | None = None
    # vLLM's "init engine (profile, create kv cache, warmup model) took" (v1 core.py, v0 llm_engine.py): it is
    # logged once the warm-up ended, and the CUDA graphs are captured inside that warm-up.
    warmed_up_line: int | None = None
    # Lines vLLM's request handlers logged (``[serving_chat.py:1343]``, a tool parser's): an exception there
    # is one request's, answered with an error while the server goes on serving, not the launch's end.
    request_lines: set[int] = field(default_factory=set)
    # The scheduler's "max_total_num_tokens=..., max_running_requests=N" line (what it really runs with).
    scheduler_line: int | None = None
    # Traceback frames outside any Traceback block (line, frame): their exception line's traceback.
    loose_frames: list[tuple[int, str]] = field(default_factory=list)
    # The process tag of each kept line that has one (line -> ``proc pid``): which process's traceback a run
    # of interleaved frames is (vLLM's worker's and its engine's, one after the other).
    procs: dict[int, str] = field(default_factory=dict)
    # Start-up steps a line began (``hang.STEP_ORDER``: step -> first line), ended or not: where a launch that
    # stops without an error was (SGLang's "Capture cuda graph begin", vLLM's "Starting to load model").
    begun: dict[str, int] = field(default_factory=dict)
    # Anchor lines of this launch the scan's memory bound let go (``lines.Kept``: a log of more anchor lines
    # than it keeps): what the launch did there is not known.
    lines_dropped: int = 0

    @property
    def args_dump(self) -> Dump | None:
        return next(
            (d for d in self.dumps if d.source in ("server_args", "non-default args", "args Namespace")), None
        )

    @property
    def ready(self) -> bool:
        # a running server's steady lines (its batches, throughput stats, answered requests) show it serves
        # even when the copy holds no ready line
        return "server_ready" in self.events or self.serving_line is not None

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
    if launch.warmed_up_line is not None:
        # vLLM logs "init engine (profile, create kv cache, warmup model) took" after the warm-up, whose
        # CUDA graph capture (none under --enforce-eager) comes after the weights and the KV cache
        reached |= {"args_logged", "weights_loaded", "kv_cache_allocated", "cuda_graph_captured"}
    if "cuda_graph" in launch.begun:
        # a capture begins once the weights are loaded and the KV cache allocated
        reached |= {"weights_loaded", "kv_cache_allocated"}
        captured = launch.events.get("cuda_graph_captured")
        if captured is not None and launch.begun["cuda_graph"] > captured.line:
            # another capture began after one ended (SGLang's piecewise capture): the step is under way again
            reached.discard("cuda_graph_captured")
    last = max((i for i, name in enumerate(order) if name in reached), default=-1)
    for name in order[last + 1 :]:
        if name not in reached:
            return name
    return None


def stopped_after(launch: Launch) -> str | None:
    events = list(iter_events(launch))
    return events[-1].name if events else None


def stage_after(launch: Launch, line: int) -> str:
    """The stage a launch was in at ``line``: the first step not yet reached before it."""
    reached = {e.name for e in launch.events.values() if e.line <= line}
    if launch.serving_line is not None and launch.serving_line <= line:
        return "serving"
    if "args_logged" not in reached and not (reached & POST_ARGS_EVENTS) and not launch.post_args_evidence:
        return "unknown" if launch.begins_mid_traceback else "validation"
    if not reached and launch.args_dump is None:
        # an excerpt that starts past the args line with no start-up step ended before the error: a step a
        # line began before it (vLLM's "Starting to load model", vllm-ascend#3464) is the one it was in;
        # with none, which step it was is not in the file (not "weights", the first one after the args line)
        began = [(at, step) for step, at in launch.begun.items() if at <= line and step in AFTER_ARGS_STAGES]
        return max(began)[1] if began else "unknown"
    if "server_ready" in reached:
        return "serving"
    # a later step's line says the earlier ones ended (an excerpt may start past their lines): CUDA graphs are
    # captured once the KV cache is allocated, which is once the weights are loaded (vllm#14728's excerpt
    # starts at "Graph capturing finished": not "loading the weights")
    if reached & {"cuda_graph_captured"}:
        reached |= {"kv_cache_allocated"}
    if reached & {"kv_cache_allocated", "memory_pool_end", "draft_worker_ready"}:
        reached |= {"weights_loaded"}
    if "weights_loaded" not in reached:
        return "weights"
    if "kv_cache_allocated" not in reached and "memory_pool_end" not in reached:
        return "kv_cache"
    kv = launch.events.get("kv_cache_allocated")
    if (
        launch.framework == "vllm"
        and kv is not None
        and "tokens" not in kv.fields
        and not reached & {"cuda_graph_captured", "memory_pool_end"}
    ):
        # vLLM's "Available KV cache memory" is the profile's answer (0.33.0 gpu_worker.py
        # determine_available_memory); the engine configures and allocates the cache after it ("GPU KV cache
        # size", initialize_from_config), before any capture (xinference#4926's copy stops there)
        return "kv_cache"
    if "cuda_graph_captured" not in reached and not (
        launch.warmed_up_line is not None and launch.warmed_up_line <= line
    ):
        return "cuda_graph"
    if launch.speculative and "draft_worker_ready" not in reached:
        return "draft_worker"
    if launch.framework == "vllm" and "cuda_graph_captured" in reached and launch.warmed_up_line is None:
        # vLLM V1 warms the sampler up after its CUDA graphs and then logs "init engine (profile, create kv
        # cache, warmup model) took" (0.33.0 gpu_worker.compile_or_warm_up_model): before that line, not
        # serving yet
        return "warmup"
    return "serving"
