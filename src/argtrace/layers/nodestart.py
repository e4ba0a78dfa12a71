"""One server start as the multi-node layer reads it, the launch it belongs to, and the GPUs it needs.

This module owns ``NodeStart`` (a start's values as its parser saw them plus what its carrier says: the
srun step, the pod, the machine and the devices it sees), ``Launch`` (the starts of one multi-node launch
and what their grouping rests on); the GPUs one node of a start needs by its parallel sizes are
``nodescope.gpus_needed`` (resolution counts them too). ``layers/multinode.py`` and
``layers/multinode_dp.py`` judge them. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class NodeStart:
    """One server start as the parser saw it. ``given`` holds the fields its argv set; ``values`` also holds
    the parser's defaults for the rest (a node that omits ``--dtype`` gets the default, which can differ
    from another node's explicit value)."""

    index: int  # the server's 1-based index in the report
    at: str | None
    framework: str
    values: Mapping[str, Any]
    given: frozenset[str] = field(default_factory=frozenset)
    image: str | None = None
    # Under srun: how many tasks run this very argv (expanded once, by the batch shell), and the nodes the
    # job or the step allocates.
    tasks: int | None = None
    allocated_nodes: int | None = None
    # What allocates them, for the message: "the job allocates 2 node(s) (job.sh:3)".
    allocation: str | None = None
    # A LeaderWorkerSet group is exactly its pods: more of them than --nnodes is as wrong as fewer. A SLURM
    # job may hold more nodes than one server uses.
    allocation_exact: bool = False
    # The allocation is this start's own ``srun`` step (``srun -N1``), not the job's: one node of a launch
    # whose other nodes other steps start.
    allocation_step: bool = False
    # A manifest's pod template started as several pods with this one argv (a Deployment's replicas, a
    # StatefulSet whose pods do not read their ordinal): how many, and what starts them.
    replicas: int | None = None
    replicas_of: str | None = None
    # The GPUs each node of this start gets, and from what ("the pod's nvidia.com/gpu limit (FILE:LINE)").
    gpus_per_node: int | None = None
    gpus_from: str | None = None
    # The column this start is shown under in the matrix: a pod's name, a role, or "server N".
    label: str | None = None
    # The pods one copy of this server spans by its carrier (a LeaderWorkerSet group, a Dynamo service's
    # multinode.nodeCount): vLLM without --nnodes spreads tp x pp over them as one Ray cluster.
    carrier_nodes: int | None = None
    # what those nodes are, for the message ("pods of its group", "nodes of the job's Ray cluster")
    carrier_of: str = "pods of its group"
    # the job's nodes over whose Ray cluster vLLM's fallback to Ray (no --distributed-executor-backend, a
    # world larger than the node, RAY_ADDRESS set) places the ranks, in the releases that have it
    ray_fallback: int | None = None
    # The node's GPUs are shared with other processes (CUDA_VISIBLE_DEVICES picks some, several servers or
    # tasks per node): only too few of them is judged, never idle ones.
    gpus_shared: bool = False
    # The carrier group that starts this node with its peers ("LeaderWorkerSet sglang"): a rendezvous of its
    # own, read even when the address is a variable only the cluster knows.
    carrier_group: str | None = None
    # Rendezvous settings whose value is not known statically, with the text they come from ("$HEAD:5000").
    unread: Mapping[str, str] = field(default_factory=dict)
    # The srun step that starts this server as its tasks (each task one process of the server: an SGLang or
    # vLLM node, or a vLLM data parallel rank): its tasks and nodes, the tasks on each node, and the
    # per-task variables (SLURM_PROCID...) the script reads outside the server's words (a task may then
    # skip the start: what follows from every task starting it is an assumption).
    step_tasks: int | None = None
    step_nodes: int | None = None
    tasks_per_node: int | None = None
    task_reads: frozenset[str] = frozenset()
    # Each task sees GPUs of its own (CUDA_VISIBLE_DEVICES set for it, srun --gpus-per-task/--gpu-bind).
    gpus_bound: bool = False
    # The machine the start runs on when a script's lines say so: an ssh destination, or "this machine"
    # for a script's own lines (not a pod, an srun task or a container); None: not known.
    host: str | None = None
    # The devices CUDA_VISIBLE_DEVICES lets it see (physical ids in order); None: not set.
    visible: tuple[str, ...] | None = None
    visible_unknown: bool = False  # set to a value not known statically


def value_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


@dataclass(frozen=True)
class Launch:
    """The starts of one multi-node launch. ``basis`` is ``None`` when they share a rendezvous argtrace can
    read (an address, a carrier group); otherwise it says what the grouping rests on, and the launch's
    PA030-PA032 findings are information only (``basis: assumed``)."""

    nodes: tuple[NodeStart, ...]
    basis: str | None = None


def shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)
