"""Whether the multi-node layer has anything to judge, answered before that layer is imported (issue 18).

The multi-node layer (``multinode.py``, ``multinode_dp.py``, ``nodestart.py``, ``nodeplaces.py`` and the
SLURM carrier they read) judges starts that are multi-node (``--nnodes`` above 1, vLLM data parallel across
nodes) and starts a carrier places: an ``srun`` step or the variables srun sets in its task, a batch job's
allocation, a manifest's pod. A script that starts one server with none of these gets no finding and no
matrix from it, and a check need not import it (a tenth of a plain check's imports). This module owns the
two questions both sides ask: is a start multi-node, and is it carried. Pure.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
