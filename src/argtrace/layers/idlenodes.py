"""A SLURM job of several nodes whose batch shell starts a one-node server (PA047).

sbatch(1): "When the job allocation is finally granted for the batch script, Slurm runs a single copy of the
batch script on the first node in the set of allocated nodes." A server the batch shell starts itself (no
``srun``) runs there; unless it spans nodes on its own (``--nnodes``, vLLM's data parallel address or Ray
backend) and its GPUs fit on that node, the job's other nodes are allocated, billed for the walltime and
never used (Center-for-AI-Innovation/LLMFlux#141: "the other N-1 are allocated ... and never touched").

A warning resting on one assumption, said in the finding: no other step of the script uses the other
nodes (a program argtrace does not read may). Pure: takes ``NodeStart``s, returns findings.
"""

from __future__ import annotations

from collections.abc import Sequence

from argtrace.layers.nodescope import gpus_needed, is_multinode
from argtrace.layers.nodestart import NodeStart
from argtrace.model import Finding
from argtrace.rules import multinode as rules


def idle_node_findings(nodes: Sequence[NodeStart]) -> list[Finding]:
    """PA047 when every start is the batch shell's own and none spans the job's nodes."""
    if not nodes or any(n.tasks is not None or n.allocation_step or n.carrier_nodes for n in nodes):
        return []
    first = nodes[0]
    allocated = first.allocated_nodes
    if allocated is None or allocated < 2 or not (first.allocation or "").startswith("the job allocates"):
        return []
    for node in nodes:
        if is_multinode(node.framework, node.values, node.given):
            return []
        if node.values.get("distributed_executor_backend") == "ray":
            return []  # a Ray cluster may span the job's nodes (started by steps argtrace does not read)
        needed = gpus_needed(node.framework, node.values)
        if needed is None or node.gpus_per_node is None or needed[0] > node.gpus_per_node:
            return []
    servers = ", ".join(str(n.index) for n in nodes)
    return [
        rules.PA_IDLE_JOB_NODES.finding(
            f"{first.allocation}, but the batch shell starts server(s) {servers} itself, without srun: SLURM "
            "runs the batch script on the first node only, the server(s) fit on it and span no nodes, so "
            f"the other {allocated - 1} node(s) are allocated for the job's walltime and never used",
            at=first.at,
            setting=None,
            server=first.index,
            basis="assumed",
        )
    ]
