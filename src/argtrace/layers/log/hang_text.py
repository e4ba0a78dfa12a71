"""What usually blocks each start-up step, per framework, and the text of a finding on a launch stopped there.

``hang.py`` finds the step; this module says what the framework does in it, what usually keeps it from ending
and the setting that changes it, and reads the file's own times when they are the server's. The knowledge
comes from the frameworks' own documents and code: vLLM's troubleshooting guide ("Hangs downloading a model",
"Hangs loading a model from disk", ``--load-format dummy``, "Incorrect network setup": ``VLLM_HOST_IP``,
``NCCL_SOCKET_IFNAME``, ``GLOO_SOCKET_IFNAME``, ``NCCL_DEBUG``;
https://docs.vllm.ai/en/latest/usage/troubleshooting/), SGLang's ``model_runner.py`` (the "Init torch
distributed begin", "Load weight begin", "Capture cuda graph begin" lines) and its
``--disable-cuda-graph``/``--cuda-graph-max-bs``/``--disable-custom-all-reduce`` options (sglang#11275 is a
capture hang hidden by the custom all-reduce, sglang#3547 one that ``--disable-cuda-graph`` avoids). Every
flag named here is checked against the bundled schemas by ``tests/test_real_cases_logs_hang.py``. Imported
only for a launch that stops without an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from argtrace.layers.log.dates import datetime


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


def named_flags() -> dict[str, set[str]]:
    """Every ``--flag`` a blocker names, by framework (``any``: the framework-neutral texts); the tests check
    each against the bundled schemas."""
    out: dict[str, set[str]] = {}
    texts = [(fw, b) for (fw, _step), b in _BLOCKERS.items()] + [("any", b) for b in _ANY.values()]
    for fw, b in texts:
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
    step: str,
    began_at: str | None,
    *,
    last_time: datetime | None,
    mtime: datetime,
    now: datetime,
) -> HangNote:
    """The sentences naming the step a launch stopped in, what usually blocks it there, and what the file's
    own times say (only when they are the server's: see ``_SAME_WRITE_S``)."""
    what = blocker(framework, step)
    where = STEP_TEXT.get(step, step)
    if began_at is not None:
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
