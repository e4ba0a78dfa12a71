"""The start-up step a launch that stops without an error was in, and what usually blocks there.

A launch that hangs prints nothing more: its log ends at the last step it began (SGLang's ``Capture cuda graph
begin``, vLLM's ``Starting to load model``, NCCL's ``NCCL_DEBUG=INFO`` lines, a weights progress bar). This
module owns which lines begin which step (kept lines anywhere in the launch, and the file's last line, which
every scan keeps whether or not it holds an anchor), the order of the steps, and for each step and framework
what usually blocks there and the setting that changes it. The knowledge comes from the frameworks' own
documents and code: vLLM's troubleshooting guide ("Hangs downloading a model", "Hangs loading a model from
disk", "Incorrect network setup": ``VLLM_HOST_IP``, ``NCCL_SOCKET_IFNAME``, ``GLOO_SOCKET_IFNAME``,
``NCCL_DEBUG``; https://docs.vllm.ai/en/latest/usage/troubleshooting/), SGLang's ``model_runner.py`` (the
"Init torch distributed begin", "Load weight begin", "Capture cuda graph begin" lines and the
``--disable-cuda-graph``/``--cuda-graph-max-bs``/``--disable-custom-all-reduce`` options that change the
capture; sglang#11275 shows a capture hang hidden by the custom all-reduce, sglang#3547 one that
``--disable-cuda-graph`` avoids). Every flag named here is checked against the bundled schemas by
``tests/test_real_cases_logs_hang.py``.

A log alone cannot tell a hang from a copy cut at that line or a start that is still running: what is
observed is where the log stops; that the launch is stuck there is an assumption, and findings built from
this module say so (basis ``assumed``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

# The steps in the order a launch runs them (both frameworks: workers join the distributed group, load the
# weights, size the KV cache (vLLM profiles the model there, torch.compile included), capture CUDA graphs,
# then start the HTTP server and warm it up).
STEP_ORDER = ("distributed", "weights", "kv_cache", "warmup", "cuda_graph", "draft_worker", "server_start")

# Lines that begin a step, in kept lines (each holds an anchor of ``lines.ANCHORS``).
_KEPT_BEGINS = (
    ("distributed", re.compile(r"Init torch distributed begin")),  # SGLang model_runner
    ("weights", re.compile(r"Starting to load model|Load weight begin")),  # vLLM gpu_model_runner; SGLang
    ("cuda_graph", re.compile(r"Capture cuda graph begin")),  # SGLang cuda_graph_runner
)
# The file's last line (kept by every scan): a progress bar or a line that no anchor keeps.
_TAIL_BEGINS = (
    (
        "distributed",
        re.compile(
            r"\bNCCL INFO\b|is using nccl==|backend=nccl|Found nccl from|Init torch distributed begin|"
            r"\[Gloo\] Rank \d+ is connected"
        ),
    ),
    ("weights", re.compile(r"checkpoint shards|Starting to load model|Load weight begin")),
    (
        "cuda_graph",
        re.compile(
            r"Capturing CUDA graph|Capturing cudagraphs|Capturing batches \(bs=|Capture cuda graph begin|"
            r"Registering \d+ cuda graph addresses"
        ),
    ),
)
_NEEDLES = ("begin", "Starting to load model")


def begun_in(body: str) -> str | None:
    """The step a kept line begins, if any."""
    if not any(n in body for n in _NEEDLES):
        return None
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


@dataclass(frozen=True)
class Blocker:
    """What a step does, what usually keeps it from ending, and what to change."""

    doing: str
    blocks: str
    fix: str


_NCCL_SEE = (
    "rerun with NCCL_DEBUG=INFO to see which rank NCCL waits for, set NCCL_SOCKET_IFNAME and "
    "GLOO_SOCKET_IFNAME to the interface the nodes share, and try NCCL_P2P_DISABLE=1 (GPUs without "
    "peer-to-peer access) or --disable-custom-all-reduce"
)

_BLOCKERS: dict[tuple[str, str], Blocker] = {
    ("sglang", "distributed"): Blocker(
        "joining the distributed group (torch.distributed at --dist-init-addr, then NCCL)",
        "every rank of every node (--nnodes) must reach --dist-init-addr; a node that was not started, "
        "a port a firewall closes, or NCCL choosing an interface the nodes cannot reach keeps the others "
        "waiting",
        "Start every node with the same --dist-init-addr and --nnodes and its own --node-rank, check that "
        f"the address is reachable from each node; {_NCCL_SEE}.",
    ),
    ("vllm", "distributed"): Blocker(
        "joining the distributed group (torch.distributed, then NCCL's communicators)",
        "every tensor/pipeline-parallel worker must join; on several nodes a wrong VLLM_HOST_IP or "
        "interface, or a node whose workers never started (Ray), keeps the others waiting; NCCL can hang "
        "on GPUs without peer-to-peer access",
        f"Check the address in the `distributed_init_method=` line (VLLM_HOST_IP on each node); {_NCCL_SEE}.",
    ),
    ("sglang", "weights"): Blocker(
        "loading the weights",
        "a download from the Hugging Face Hub, or reading a large model from a network file system, "
        "can take very long or stall; on some systems reading through mmap stalls",
        "Download the model first (`huggingface-cli download`) and pass its local path, keep it on a "
        "local disk (--download-dir), or try --weight-loader-disable-mmap; --load-format dummy skips the "
        "weights to isolate this step.",
    ),
    ("vllm", "weights"): Blocker(
        "loading the weights",
        "a download from the Hugging Face Hub, or reading a large model from a distributed or network "
        "file system, can take very long or stall (vLLM's troubleshooting guide: \"Hangs downloading a "
        'model", "Hangs loading a model from disk")',
        "Download the model first (`huggingface-cli download`) and pass its local path, or keep it on a "
        "local disk (--download-dir); --load-format dummy skips the weights to isolate this step.",
    ),
    ("sglang", "kv_cache"): Blocker(
        "allocating the KV cache pool",
        "the pool is sized from the memory left after the weights; on several ranks each waits for the "
        "others' sizes",
        "Relaunch with NCCL_DEBUG=INFO to see whether a rank is missing.",
    ),
    ("sglang", "warmup"): Blocker(
        "warming the kernels up before the CUDA graph capture",
        "DeepGEMM's JIT pre-compilation (FP8 models on Hopper) can take many minutes the first time",
        "Wait for the JIT cache to fill (run `python -m sglang.compile_deep_gemm` once beforehand), or set "
        "SGLANG_JIT_DEEPGEMM_PRECOMPILE=0 / SGLANG_ENABLE_JIT_DEEPGEMM=0.",
    ),
    ("vllm", "kv_cache"): Blocker(
        "profiling the model to size the KV cache (torch.compile runs here)",
        "torch.compile (Dynamo and Inductor) can take many minutes on a cold cache or stall",
        "Relaunch with --enforce-eager (or --compilation-config '{\"level\": 0}') to skip torch.compile and "
        "isolate this step.",
    ),
    ("sglang", "cuda_graph"): Blocker(
        "capturing CUDA graphs",
        "the custom all-reduce and NCCL run inside the capture: an error there can hang every rank "
        "(sglang#11275), and on several nodes a rank that never reaches the capture keeps the others "
        "waiting; --enable-torch-compile compiles during the capture",
        "Relaunch with --disable-cuda-graph to confirm (or a smaller --cuda-graph-max-bs), then try "
        f"--disable-custom-all-reduce; {_NCCL_SEE.split(', and try')[0]}.",
    ),
    ("vllm", "cuda_graph"): Blocker(
        "capturing CUDA graphs",
        "the custom all-reduce and NCCL run inside the capture; on several nodes every rank must reach it",
        "Relaunch with --enforce-eager to confirm (or a smaller --max-cudagraph-capture-size, "
        "--max-seq-len-to-capture before 0.11), then try --disable-custom-all-reduce; "
        f"{_NCCL_SEE.split(', and try')[0]}.",
    ),
    ("sglang", "draft_worker"): Blocker(
        "starting the speculative draft worker",
        "the draft model loads its weights and captures its own CUDA graphs: the same steps can block",
        "Relaunch with --disable-cuda-graph to see whether the draft worker's capture is where it stops.",
    ),
    ("vllm", "draft_worker"): Blocker(
        "loading the speculative draft model",
        "the draft model loads its weights like the target model",
        "Download the draft model first and pass its local path.",
    ),
    ("sglang", "server_start"): Blocker(
        "starting the HTTP server and sending its warm-up request",
        "the warm-up request waits for the scheduler; with several nodes, for every node",
        "Relaunch with --skip-server-warmup to see whether the warm-up is where it stops.",
    ),
    ("vllm", "server_start"): Blocker(
        "starting the API server",
        "the API server waits for every engine core to report ready",
        "Check that every engine (data-parallel rank, node) started; VLLM_LOGGING_LEVEL=DEBUG shows what "
        "the API server waits for.",
    ),
}


# A file that does not say which framework wrote it (only NCCL's lines, a progress bar): what holds for both.
_ANY: dict[str, Blocker] = {
    "distributed": Blocker(
        "setting up NCCL's communicators (at the distributed start, or at the first collective, which a CUDA "
        "graph capture may be)",
        "NCCL waits until every rank joins: a node or worker that never started, an interface the nodes "
        "cannot reach, or GPUs without peer-to-peer access keep it waiting",
        f"Check that every node and worker started; {_NCCL_SEE}.",
    ),
    "weights": Blocker(
        "loading the weights",
        "a download from the Hugging Face Hub, or reading a large model from a network file system, "
        "can take very long or stall",
        "Download the model first (`huggingface-cli download`) and pass its local path, or keep it on a "
        "local disk; --load-format dummy skips the weights to isolate this step.",
    ),
    "cuda_graph": Blocker(
        "capturing CUDA graphs",
        "the custom all-reduce and NCCL run inside the capture; on several nodes every rank must reach it",
        "Relaunch with CUDA graphs off (SGLang --disable-cuda-graph, vLLM --enforce-eager) to confirm, then "
        "try --disable-custom-all-reduce.",
    ),
}


def blocker(framework: str | None, step: str) -> Blocker | None:
    """What usually blocks ``step`` in ``framework`` (the framework-neutral text when it is unknown)."""
    if framework is None:
        return _ANY.get(step)
    return _BLOCKERS.get((framework, step))


@dataclass(frozen=True)
class Waiting:
    """The step a launch that stopped without an error was in: ``began`` is the line that began it when
    the log shows one (observed), else None (the step after the last one that ended, inferred)."""

    step: str
    began: int | None


# How far each timeline event and begun step takes a launch (higher is later).
_PROGRESS = {
    "distributed": 1.0,
    "weights": 2.0,
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
) -> Waiting | None:
    """The step a launch was in when its log stopped, from the steps it began (``begun``: step -> line) and
    the timeline events it reached (``reached``: event -> line); None when the log shows no step after the
    configuration line (which step comes next there is not in the log) or the server is ready."""
    if "server_ready" in reached:
        return None
    marks = [(name, _PROGRESS[name], line) for name, line in begun.items() if name in _PROGRESS]
    marks += [(name, _PROGRESS[name], line) for name, line in reached.items() if name in _PROGRESS]
    if not marks:
        return None
    name, _rank, line = max(marks, key=lambda m: (m[1], m[2]))
    if name in begun and name in STEP_ORDER:
        return Waiting(name, line)
    if name == "weights_loaded":
        return Waiting("kv_cache", None)
    if name in ("kv_cache_allocated", "memory_pool_end"):
        if graphs_off:
            return Waiting("server_start", None)
        return Waiting("warmup" if framework == "sglang" else "cuda_graph", None)
    if name == "cuda_graph_captured" and speculative and "draft_worker_ready" not in reached:
        return Waiting("draft_worker", None)
    return Waiting("server_start", None)


def named_flags() -> dict[str, set[str]]:
    """Every ``--flag`` a blocker names, by framework (the tests check each against the schemas)."""
    out: dict[str, set[str]] = {}
    for (fw, _step), b in _BLOCKERS.items():
        out.setdefault(fw, set()).update(re.findall(r"--[a-z][a-z0-9-]+", b.blocks + " " + b.fix))
    return out


STEP_TEXT = {
    "distributed": "joining the distributed (NCCL) group",
    "weights": "loading the weights",
    "kv_cache": "sizing the KV cache",
    "warmup": "warming the kernels up",
    "cuda_graph": "capturing CUDA graphs",
    "draft_worker": "starting the draft worker",
    "server_start": "starting the server",
}


class _Launch(Protocol):
    """What this module reads of an ``analyze.Launch`` (which imports this module)."""

    framework: str | None
    begun: dict[str, int]
    events: dict[str, Any]
    speculative: bool

    def settings(self) -> dict[str, tuple[Any, Any]]: ...


def waiting_in(lc: _Launch) -> Waiting | None:
    """The start-up step ``lc`` was in when its log stopped (``waiting_step``); CUDA graphs turned off
    (SGLang's disable_cuda_graph, vLLM's enforce_eager in its logged arguments) skip the capture."""
    settings = lc.settings()
    graphs_off = any(
        str(settings.get(name, (None,))[0]) == "True" for name in ("disable_cuda_graph", "enforce_eager")
    )
    reached = {e.name: e.line for e in lc.events.values()}
    return waiting_step(lc.framework, lc.begun, reached, speculative=lc.speculative, graphs_off=graphs_off)


def waiting_summary(lc: _Launch, at: Any) -> dict[str, Any] | None:
    """The JSON launch summary's ``waiting_in``: the step, the line that began it (None: inferred as the
    step after the last one that ended), and the basis of reading it as where the launch is stuck."""
    waiting = waiting_in(lc)
    if waiting is None:
        return None
    return {
        "step": waiting.step,
        "began_at": at(waiting.began) if waiting.began is not None else None,
        "basis": "assumed",
    }


# The file's own times are evidence only when the server wrote it: its last write then falls within a
# couple of minutes of its last timestamped line (a copy, an excerpt or a checkout is written later).
_SAME_WRITE_S = 120
_QUIET_S = 600


@dataclass(frozen=True)
class HangNote:
    """What a launch that stops without an error was doing: ``text`` continues the finding's message,
    ``fix`` replaces the generic one, ``still_writing`` when the file was written moments ago (a start
    still under way, not a hang)."""

    text: str
    fix: str | None
    still_writing: bool = False


def _ago(seconds: float) -> str:
    if seconds < 120:
        return f"{int(seconds)} s"
    if seconds < 7200:
        return f"{int(seconds // 60)} min"
    return f"{seconds / 3600:.1f} h"


def hang_note(
    framework: str | None,
    waiting: Waiting,
    began_at: str | None,
    *,
    last_time: datetime | None,
    mtime: datetime,
    now: datetime,
) -> HangNote:
    """The sentences naming the step a launch stopped in, what usually blocks it there, and what the file's
    own times say (only when they are the server's: see ``_SAME_WRITE_S``)."""
    what = blocker(framework, waiting.step)
    where = STEP_TEXT.get(waiting.step, waiting.step)
    if waiting.began is not None:
        seen = f"it stops while {where} (begun at {began_at}, never ended)"
    else:
        seen = f"the next step, {where}, never began or never logged its start"
    text = f" Where: {seen}."
    still = False
    if last_time is not None:
        gap = (mtime - last_time).total_seconds()
        quiet = (now - mtime).total_seconds()
        if abs(gap) <= _SAME_WRITE_S and 0 <= quiet < _SAME_WRITE_S:
            still = True
            text += (
                f" The file was last written {_ago(quiet)} ago, at the time of its last line: the launch may "
                "still be in this step; read the log again later."
            )
        elif abs(gap) <= _SAME_WRITE_S and quiet >= _QUIET_S:
            text += (
                f" The file was last written at its last line's time and not for {_ago(quiet)} since: a "
                "launch still making progress would have written more."
            )
    if what is None:
        return HangNote(text, None, still)
    text += (
        f" If the launch is still there (a hang, not a log cut by its copy), what usually blocks "
        f"{what.doing} is: {what.blocks}."
    )
    return HangNote(text, what.fix, still)
