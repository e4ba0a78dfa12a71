"""What the carrier tells the multi-node layer about one server start, beyond its argv.

This module owns turning a start's carrier (the manifest ``Placement`` the transport layer found, the SLURM
job's allocation and the ``srun`` step in front of it) into the ``NodeStart`` fields that
``layers/multinode.py`` judges: how many pods run this very argv (a Deployment's replicas, a StatefulSet
whose pods do not read their ordinal), the GPUs each node gets and from what, and the column the start is
shown under in the matrix. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.layers.nodescope import as_int
from argtrace.layers.slurm import GPU_BINDING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.slurm import Allocation, SrunStep
    from argtrace.model import ServerCommand


def carrier_fields(
    server: ServerCommand,
    step: SrunStep | None,
    allocation: Allocation | None,
    neighbours: int = 1,
    ray: tuple[int, bool] | None = None,
) -> dict[str, Any]:
    """``replicas``, ``replicas_of``, ``gpus_per_node``, ``gpus_from``, ``gpus_shared``, ``carrier_nodes``,
    ``carrier_group``, ``label`` and the srun step's ``step_tasks``, ``step_nodes``, ``tasks_per_node``,
    ``task_reads``, ``gpus_bound`` for ``NodeStart``. ``neighbours``: the servers started in the same pod
    or task. ``ray``: the job's nodes a vLLM start of the batch shell places its ranks over, as one Ray
    cluster, and whether only vLLM's fallback picks Ray (``ray_over_the_job``)."""
    out: dict[str, Any] = {}
    per_node = (step.tasks // step.nodes) if step and step.tasks and step.nodes else None
    if allocation is not None and per_node is None:
        per_node = allocation.ntasks_per_node
    # the srun step that starts it: its options (``srun python ...``), or what srun set in the task of
    # ``srun bash -c '...'`` (SLURM_STEP_NUM_TASKS / SLURM_STEP_NUM_NODES, layers/slurm.py)
    tasks, nodes = (step.tasks, step.nodes) if step is not None else (None, None)
    if step is None:
        tasks, nodes = (_env_count(server, n) for n in ("SLURM_STEP_NUM_TASKS", "SLURM_STEP_NUM_NODES"))
    if tasks is not None and nodes is not None and nodes > 0:
        out["step_tasks"], out["step_nodes"] = tasks, nodes
        if tasks % nodes == 0:
            out["tasks_per_node"] = per_node = tasks // nodes
        # a task may skip the start when the script reads its own rank outside the server's words (``if [
        # "$SLURM_LOCALID" = 0 ]``): the per-task variables it reads that the server's words do not expand
        in_argv = " ".join(w.origin.expansion or "" for w in server.argv)
        condition = server.conditional or ""
        out["task_reads"] = frozenset(
            n
            for n in ("SLURM_PROCID", "SLURM_NODEID", "SLURM_LOCALID")
            if n in condition or (n in server.script_reads and n not in in_argv)
        )
    out["gpus_shared"] = "CUDA_VISIBLE_DEVICES" in server.env or neighbours > 1 or (per_node or 1) > 1
    # each task sees GPUs of its own: it picks them itself, or srun binds them (layers/slurm.py GPU_BINDING)
    bound = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", *GPU_BINDING.values())
    out["gpus_bound"] = any(name in server.env for name in bound)
    out.update(_machine(server, step, tasks))
    if ray is not None and not ray[1]:
        # Ray places the ranks on the GPUs of the cluster's nodes, as many on each as fit: only too few of
        # them for the ranks is judged (the GPUs of each node against the ranks over the nodes)
        out["carrier_nodes"], out["carrier_of"] = (
            ray[0],
            "nodes of the job's Ray cluster (assumed: each joins it)",
        )
        out["gpus_shared"] = True
    elif ray is not None:
        out["ray_fallback"] = ray[0]
    placement = server.placement
    if placement is not None:
        # one pod template, several pods, one argv: a Deployment's or ReplicaSet's replicas, or a
        # StatefulSet read once (its pods do not read their ordinal). A LeaderWorkerSet's worker template is
        # judged through LWS_WORKER_INDEX instead, a serving resource's replicas are whole servers.
        if placement.kind in ("Deployment", "ReplicaSet", "StatefulSet", "Job") and placement.ordinal is None:
            out["replicas"] = placement.replicas
            out["replicas_of"] = f"{placement.kind} {placement.name}"
        # a KServe multi-node InferenceService's head: vLLM places its ranks over the Ray cluster of head and
        # worker pods, whose GPUs the serving layer judges as KServe does (transport/serving.py)
        ray_head = placement.kind == "InferenceService" and (placement.nodes or 1) > 1
        if placement.gpus is not None and not ray_head:
            out["gpus_per_node"] = placement.gpus
            where = f" ({placement.gpus_at})" if placement.gpus_at else ""
            what = "gpu limit" if placement.kind == "DynamoGraphDeployment" else "nvidia.com/gpu limit"
            out["gpus_from"] = f"the pod's {what}{where}"
        out["carrier_nodes"] = placement.nodes
        # The pods one resource starts as the nodes of one server are one launch whatever address they
        # name: a LeaderWorkerSet group (its leader and worker templates), a StatefulSet or Indexed Job read
        # once per ordinal, a Dynamo service's multinode pods. Two such resources are two launches.
        if placement.kind == "LeaderWorkerSet" or placement.ordinal is not None:
            out["carrier_group"] = f"{placement.kind} {placement.name}"
        elif placement.nodes is not None and placement.nodes > 1:
            resource = f"{placement.kind} {placement.name}"
            # an OME engine's leader and worker are two roles of one server: its group, not each role
            part = placement.group or placement.role
            out["carrier_group"] = f"{resource}/{part}" if part else resource
        out["label"] = placement.pod or "/".join(p for p in (placement.name, placement.role) if p)
    on_node = server.env.get("SLURM_GPUS_ON_NODE")
    # the batch shell has the job's SLURM_GPUS_ON_NODE too (layers/slurm.py batch_environment), and an srun
    # task inherits it: the same count as the job's is said as the job's, with its directive's line
    jobs = allocation is not None and on_node is not None and on_node.value == str(allocation.gpus_per_node)
    if step is not None and step.gpus_per_node is not None:
        out["gpus_per_node"] = step.gpus_per_node
        out["gpus_from"] = f"srun gives each node {step.gpus_per_node}"
    elif on_node is not None and on_node.value is not None and on_node.value.isdigit() and not jobs:
        # inside `srun bash -c`: srun set SLURM_GPUS_ON_NODE in the task from --gpus-per-node / --gres
        out["gpus_per_node"] = int(on_node.value)
        out["gpus_from"] = f"srun gives each node {on_node.value}"
    elif allocation is not None and allocation.gpus_per_node is not None:
        # an srun step inherits the job's GPUs per node (sbatch(1) --gpus-per-node, --gres); the batch
        # shell itself runs on the job's first node, with the same
        out["gpus_per_node"] = allocation.gpus_per_node
        where = f" ({allocation.gpus_at})" if allocation.gpus_at else ""
        out["gpus_from"] = f"the job gives each node {allocation.gpus_per_node}{where}"
    return out


def ray_over_the_job(
    server: ServerCommand, values: Mapping[str, Any], step: SrunStep | None, allocation: Allocation | None
) -> tuple[int, bool] | None:
    """(the job's nodes, whether the backend is only vLLM's fallback) when a vLLM start of a batch job's own
    shell (no srun in front) runs its ranks over a Ray cluster the script starts on the job's nodes (``srun
    ray start``): ``--distributed-executor-backend ray`` (certain), or no backend given, RAY_ADDRESS set and
    a world larger than the node's GPUs (the fallback: vLLM's releases before vllm-project/vllm#25775 picked
    Ray then, "We use multiprocessing by default if world_size fits on the current node", and ray.init joins
    the cluster RAY_ADDRESS names; 0.33.0 refuses such a world without the flag, vllm/config/parallel.py:1071;
    the first release without the fallback is not read here). ``None`` otherwise."""
    if server.framework != "vllm" or step is not None or server.placement is not None or allocation is None:
        return None
    if allocation.nodes is None or allocation.nodes < 2:
        return None
    backend = values.get("distributed_executor_backend")
    if backend == "ray":
        return allocation.nodes, False
    tp, pp = as_int(values.get("tensor_parallel_size")), as_int(values.get("pipeline_parallel_size"))
    have = allocation.gpus_per_node
    if backend is not None or "RAY_ADDRESS" not in server.env or tp is None or pp is None or have is None:
        return None
    return (allocation.nodes, True) if tp * pp > have else None


def _env_count(server: ServerCommand, name: str) -> int | None:
    entry = server.env.get(name)
    value = entry.value if entry is not None else None
    return int(value) if value is not None and value.isdigit() else None


def _machine(server: ServerCommand, step: SrunStep | None, tasks: int | None) -> dict[str, Any]:
    """``host`` and the devices CUDA_VISIBLE_DEVICES shows, for starts of one script on one machine: an
    ssh destination written out (``<ssh node0>``), or the script's own machine for its lines. A pod, an
    srun task or a container runs elsewhere or sees its own devices: no host."""
    out: dict[str, Any] = {}
    visible = server.env.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        if visible.value is None:
            out["visible_unknown"] = True
        else:
            out["visible"] = tuple(d.strip() for d in visible.value.split(",") if d.strip())
    if server.placement is not None or step is not None or tasks is not None or server.image is not None:
        return out
    if server.conditional is not None:
        return out  # a start under a condition may be one branch of a script run on several machines
    at = server.at or ""
    if at.startswith("<ssh "):
        host = at[len("<ssh ") : at.find(">")] if ">" in at else ""
        # a destination from a variable ($HOST in a loop) names no one machine
        if host and not any(c in host for c in "$`?*"):
            out["host"] = f"<ssh {host}>"
    elif not at.startswith("<"):
        out["host"] = "this machine"
    return out
