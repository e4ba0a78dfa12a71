"""The start-up step a launch that stops without an error was in.

A launch that hangs prints nothing more: its log ends at the last step it began (SGLang's ``Capture cuda graph
begin``, vLLM's ``Starting to load model``, NCCL's ``NCCL_DEBUG=INFO`` lines, a weights progress bar). This
module owns which lines begin which step (kept lines anywhere in the launch, and the file's last line, which
every scan keeps whether or not it holds an anchor) and the order of the steps, from which it finds the step a
launch was in when its log stopped. What usually blocks each step, and the finding's text, are in
``hang_text.py``, imported only for a launch that stops (its dataclasses and tables cost start-up time every
other log would pay).

A log alone cannot tell a hang from a copy cut at that line or a start that is still running: what is
observed is where the log stops; that the launch is stuck there is an assumption (basis ``assumed``).
"""

from __future__ import annotations

from argtrace.layers.log.lazyre import LazyPattern as _lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The steps in the order a launch runs them (both frameworks: workers join the distributed group, load the
# weights, size the KV cache (vLLM profiles the model there, torch.compile included; SGLang then warms its
# kernels up), capture CUDA graphs, then start the HTTP server and warm it up).
STEP_ORDER = ("distributed", "weights", "kv_cache", "warmup", "cuda_graph", "draft_worker", "server_start")

_CAPTURE_BEGIN = r"Capture (?:(?![\w -]*draft)[\w -]*? )?(?:cuda|CUDA) graph begin"

# Lines that begin a step, among kept lines (each holds an anchor of ``lines.ANCHORS``).
_KEPT_BEGINS = (
    # SGLang model_runner
    ("distributed", _lazy(r"Init torch distributed begin", needles=("distributed begin",))),
    # vLLM gpu_model_runner; SGLang model_runner
    ("weights", _lazy(r"Starting to load model|Load weight begin", needles=("load model", "weight begin"))),
    # SGLang cuda_graph_runner ("Capture cuda graph begin"), the piecewise capture after it ("Capture
    # piecewise CUDA graph begin", model_runner), 0.5.2x's named ones ("Capture target decode CUDA graph
    # begin", cuda_graph_setup.py); not a draft model's, which is the draft worker's step
    ("cuda_graph", _lazy(_CAPTURE_BEGIN, needles=("graph begin",))),
    # vLLM gpu_model_runner.load_model (0.33.0 gpu_model_runner.py:5010): the speculative draft's weights
    # load after the target's, before "Model loading took" (vllm#26328: a worker died right after it)
    ("draft_worker", _lazy(r"Loading drafter model", needles=("drafter model",))),
)
# The file's last line (kept by every scan): a progress bar, or a line that no anchor keeps.
_TAIL_BEGINS = (
    (
        "distributed",
        _lazy(
            r"\bNCCL INFO\b|is using nccl==|backend=nccl|Found nccl from|Init torch distributed begin|"
            r"\[Gloo\] Rank \d+ is connected",
            needles=("NCCL INFO", "nccl", "distributed begin", "[Gloo]"),
        ),
    ),
    (
        "weights",
        _lazy(
            r"checkpoint shards|Starting to load model|Load weight begin",
            needles=("shards", "load model", "weight begin"),
        ),
    ),
    (
        "cuda_graph",
        _lazy(
            r"Capturing CUDA graph|Capturing cudagraphs|Capturing batches \(bs=|" + _CAPTURE_BEGIN + "|"
            r"Registering \d+ cuda graph addresses",
            needles=("Capturing", "graph begin", "cuda graph addresses"),
        ),
    ),
)


def begun_in(body: str) -> str | None:
    """The step a kept line begins, if any."""
    for step, rx in _KEPT_BEGINS:
        if rx.search(body):
            return step
    return None


def begun_at_tail(last_line: str) -> str | None:
    """The step the file's last line shows under way (a progress bar, NCCL's debug lines), if any."""
    for step, rx in _TAIL_BEGINS:
        if rx.search(last_line):
            return step
    return None


# How far each timeline event and begun step takes a launch (higher is later).
_PROGRESS = {
    "distributed": 1.0,
    "weights": 2.0,
    # vLLM loads a speculative draft within its load_model, after the target's weights
    "draft_worker": 2.5,
    "weights_loaded": 3.0,
    "kv_cache_allocated": 4.0,
    "memory_pool_end": 4.0,
    "cuda_graph": 5.0,
    "cuda_graph_captured": 6.0,
    "draft_worker_ready": 7.0,
}


def waiting_step(
    framework: str | None,
    begun: dict[str, int],
    reached: dict[str, int],
    *,
    speculative: bool = False,
    graphs_off: bool = False,
) -> tuple[str, int | None] | None:
    """(step, line that began it) for a launch whose log stopped, from the steps it began (``begun``: step
    -> line) and the timeline events it reached (``reached``: event -> line); the line is None when the step
    is inferred as the one after the last step that ended. None when the log shows no step after the
    configuration line (which step comes next is not in the log) or the server is ready."""
    if "server_ready" in reached:
        return None
    captured = reached.get("cuda_graph_captured")
    marks = [
        # a capture begun after one ended (SGLang's piecewise capture follows the decode graphs'): under way
        (
            name,
            6.5 if name == "cuda_graph" and captured is not None and line > captured else _PROGRESS[name],
            line,
        )
        for name, line in begun.items()
        if name in _PROGRESS
    ]
    marks += [(name, _PROGRESS[name], line) for name, line in reached.items() if name in _PROGRESS]
    if not marks:
        return None
    name, _rank, line = max(marks, key=lambda m: (m[1], m[2]))
    if name in begun and name in STEP_ORDER:
        return name, line
    if name == "weights_loaded":
        return "kv_cache", None
    if name in ("kv_cache_allocated", "memory_pool_end"):
        if graphs_off:
            return "server_start", None
        return ("warmup" if framework == "sglang" else "cuda_graph"), None
    if name == "cuda_graph_captured" and speculative and "draft_worker_ready" not in reached:
        return "draft_worker", None
    return "server_start", None


def waiting_in(lc: Any) -> tuple[str, int | None] | None:
    """``waiting_step`` for an ``analyze.Launch`` (which imports this module); CUDA graphs turned off in its
    logged arguments (SGLang's disable_cuda_graph, vLLM's enforce_eager) skip the capture."""
    settings = lc.settings()
    graphs_off = any(
        str(settings.get(name, (None,))[0]) == "True" for name in ("disable_cuda_graph", "enforce_eager")
    )
    reached = {e.name: e.line for e in lc.events.values()}
    return waiting_step(lc.framework, lc.begun, reached, speculative=lc.speculative, graphs_off=graphs_off)


def waiting_summary(lc: Any, at: Any) -> dict[str, Any] | None:
    """The JSON launch summary's ``waiting_in``: the step, the line that began it (None: inferred as the
    step after the last one that ended), and the basis of reading it as where the launch is stuck."""
    waiting = waiting_in(lc)
    if waiting is None:
        return None
    step, began = waiting
    return {"step": step, "began_at": at(began) if began is not None else None, "basis": "assumed"}
