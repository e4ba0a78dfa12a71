"""Whether the multi-node layer has anything to judge, answered before that layer is imported (issue 18).

The multi-node layer (``multinode.py``, ``multinode_dp.py``, ``nodestart.py``, ``nodeplaces.py`` and the
SLURM carrier they read) judges starts that are multi-node (``--nnodes`` above 1, vLLM data parallel across
nodes) and starts a carrier places: an ``srun`` step or the variables srun sets in its task, a batch job's
allocation, a manifest's pod. A script that starts one server with none of these gets no finding and no
matrix from it, and a check need not import it (a tenth of a plain check's imports). This module owns the
two questions both sides ask: is a start multi-node, and is it carried; and the GPUs one node of a start
needs by its parallel sizes (``gpus_needed``), which resolution counts for every check. Pure.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.model import ServerCommand

# The vLLM settings a node of data parallel across nodes gives (a node that runs only part of the DP ranks,
# or none of the API).
VLLM_ACROSS_NODES = frozenset(
    {
        "data_parallel_size_local",
        "data_parallel_start_rank",
        "data_parallel_address",
        "headless",
        "data_parallel_rank",
    }
)
# What srun sets in each task that the multi-node layer reads (srun(1), OUTPUT ENVIRONMENT VARIABLES): the
# step's size (``layers/nodeplaces.py``) and the GPUs on the task's node.
SRUN_TASK_VARIABLES = ("SLURM_STEP_NUM_TASKS", "SLURM_STEP_NUM_NODES", "SLURM_GPUS_ON_NODE")


def as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def is_multinode(framework: str, values: Mapping[str, Any], given: Collection[str]) -> bool:
    """A start of a launch over several nodes, by its values (configuration field names, the framework's
    defaults for what the argv does not give) and the names its argv gives."""
    nnodes = as_int(values.get("nnodes"))
    if nnodes is not None and nnodes > 1:
        return True
    return framework == "vllm" and bool(VLLM_ACROSS_NODES & set(given))


def srun_index(prefix: Sequence[str | None]) -> int | None:
    """The index of ``srun`` among the wrapper words before the server's interpreter, or ``None``."""
    return next((i for i, w in enumerate(prefix) if (w or "").rsplit("/", 1)[-1] == "srun"), None)


def is_carried(server: ServerCommand) -> bool:
    """Whether a carrier places the start: a manifest's pod, an ``srun`` in front of it, or the variables
    srun sets in its task (``srun bash -c '...'``). A batch job's allocation is the caller's to ask."""
    if server.placement is not None:
        return True
    if srun_index(server.argv_text[: server.server_args_start]) is not None:
        return True
    return any(name in server.env for name in SRUN_TASK_VARIABLES)


def gpus_needed(
    framework: str,
    values: Mapping[str, Any],
    carrier_nodes: int | None = None,
    carrier_of: str = "pods of its group",
) -> tuple[int, str] | None:
    """The GPUs one node of this start needs, with how it follows from the sizes; ``None`` when a size is
    unknown or the sizes do not divide over the nodes (other rules say so). ``carrier_nodes``: the pods
    the carrier groups (vLLM's Ray cluster over a LeaderWorkerSet has no --nnodes)."""
    if framework == "sglang":
        tp, pp, dp = (as_int(values.get(n)) for n in ("tp_size", "pp_size", "dp_size"))
        if tp is None or pp is None:
            return None
        total, how = tp * pp, f"tp_size {tp} x pp_size {pp}"
        # without DP attention each of the dp_size replicas has its own tp x pp GPUs (SGLang's data
        # parallel router); with it, DP runs inside the tensor parallel group
        if dp is not None and dp > 1 and values.get("enable_dp_attention") is not True:
            total, how = total * dp, f"{how} x dp_size {dp}"
    else:
        tp, pp = as_int(values.get("tensor_parallel_size")), as_int(values.get("pipeline_parallel_size"))
        if tp is None or pp is None:
            return None
        total, how = tp * pp, f"tensor_parallel_size {tp} x pipeline_parallel_size {pp}"
        local = as_int(values.get("data_parallel_size_local"))
        dp = as_int(values.get("data_parallel_size"))
        if as_int(values.get("data_parallel_rank")) is not None:
            return total, how  # external load balancing: this process is one DP rank
        if local is not None:  # vLLM's DP across nodes: each node runs its local DP ranks
            return total * local, f"{how} x data_parallel_size_local {local}"
        if dp is not None and dp > 1:
            total, how = total * dp, f"{how} x data_parallel_size {dp}"
    nnodes = as_int(values.get("nnodes")) or 1
    over = f"over nnodes {nnodes}"
    if nnodes == 1 and framework == "vllm" and carrier_nodes is not None and carrier_nodes > 1:
        nnodes, over = carrier_nodes, f"over the {carrier_nodes} {carrier_of}"
    if nnodes > 1:
        if total % nnodes:
            return None
        return total // nnodes, f"{how} {over}"
    return total, how
