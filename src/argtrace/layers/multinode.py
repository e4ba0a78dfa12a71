"""Multi-node launches read together: the server starts of one file that form one distributed server.

A launch that spans nodes (SGLang ``--nnodes/--node-rank/--dist-init-addr``; vLLM ``--nnodes/--node-rank``
or data parallel across nodes with ``--data-parallel-address``, ``--data-parallel-start-rank``,
``--headless``) is started once per node, by an ssh loop, a script per node or a manifest. Each start is
parsed on its own by the parser layer; this module owns what only the set of them shows: the settings every
node must share but does not, ranks that repeat, and ranks that cannot cover 0..nnodes-1.

Input: one ``NodeStart`` per server start, with the values its parser saw (by configuration field, the
framework's defaults for what the argv does not give). Output: findings (rules PA030-PA032). Pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from argtrace.model import Evidence, Finding
from argtrace.rules import multinode as rules

# Settings every node of one launch must share, by framework, named by configuration field. Per-node
# settings by design (ranks, --headless, --data-parallel-size-local, ports) are not here.
MUST_AGREE: Mapping[str, tuple[str, ...]] = {
    "sglang": (
        "model_path",
        "tp_size",
        "pp_size",
        "ep_size",
        "dp_size",
        "nnodes",
        "dist_init_addr",
        "dtype",
        "quantization",
        "kv_cache_dtype",
    ),
    "vllm": (
        "model",
        "tensor_parallel_size",
        "pipeline_parallel_size",
        "data_parallel_size",
        "enable_expert_parallel",
        "nnodes",
        "master_addr",
        "master_port",
        "data_parallel_address",
        "data_parallel_rpc_port",
        "dtype",
        "quantization",
        "kv_cache_dtype",
    ),
}
# Settings that legitimately differ from node to node (and so from replica to replica, ``layers/fleet``):
# the node's place in the launch, whether it serves the API, how many DP ranks it runs, its own ports.
# Never a disagreement (PA030's exceptions).
PER_RANK: Mapping[str, tuple[str, ...]] = {
    "sglang": ("node_rank", "port", "nccl_port", "host"),
    "vllm": (
        "node_rank",
        "data_parallel_start_rank",
        "data_parallel_rank",
        "headless",
        "data_parallel_size_local",
        "port",
        "host",
    ),
}
# Where the nodes meet: nodes that name the same rendezvous belong to one launch.
RENDEZVOUS = {"sglang": ("dist_init_addr",), "vllm": ("master_addr", "data_parallel_address")}
MODEL = {"sglang": "model_path", "vllm": "model"}
# The rank that places a node, in the order a framework reads them.
RANK = {"sglang": ("node_rank",), "vllm": ("node_rank", "data_parallel_start_rank", "data_parallel_rank")}


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


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _is_multinode(node: NodeStart) -> bool:
    nnodes = _int(node.values.get("nnodes"))
    if nnodes is not None and nnodes > 1:
        return True
    # vLLM data parallel across nodes: a node that runs only part of the DP ranks, or none of the API.
    given = node.given
    return node.framework == "vllm" and bool(
        {"data_parallel_size_local", "data_parallel_start_rank", "data_parallel_address", "headless"} & given
    )


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def launches(nodes: Sequence[NodeStart]) -> list[list[NodeStart]]:
    """The multi-node starts grouped into launches: same framework, and the same model or the same
    rendezvous address as another node of the group (a wrong address on one node is a disagreement
    inside the launch, not a launch of its own)."""
    candidates = [n for n in nodes if _is_multinode(n)]
    groups: list[list[NodeStart]] = []
    for node in candidates:
        marks = {("model", _key(node.values.get(MODEL[node.framework])))}
        marks |= {
            (name, _key(node.values[name])) for name in RENDEZVOUS[node.framework] if node.values.get(name)
        }
        for group in groups:
            first = group[0]
            if first.framework != node.framework:
                continue
            theirs = {("model", _key(first.values.get(MODEL[first.framework])))}
            theirs |= {(n, _key(first.values[n])) for n in RENDEZVOUS[first.framework] if first.values.get(n)}
            if marks & theirs:
                group.append(node)
                break
        else:
            groups.append([node])
    return [g for g in groups if len(g) > 1 or _int(g[0].values.get("nnodes")) is not None]


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _disagreements(group: Sequence[NodeStart]) -> list[Finding]:
    framework = group[0].framework
    findings: list[Finding] = []
    names = [name for name in MUST_AGREE[framework] if any(name in n.given for n in group)]
    for name in names:
        seen = [(n, n.values[name]) for n in group if name in n.values]
        if len({_key(v) for _, v in seen}) < 2:
            continue
        first_value = seen[0][1]
        odd = next(n for n, v in seen if _key(v) != _key(first_value))
        values = ", ".join(
            f"server {n.index} ({n.at}): {_show(v)}{'' if name in n.given else ' (default)'}" for n, v in seen
        )
        findings.append(
            rules.PA_NODES_DISAGREE.finding(
                f"the {len(group)} nodes of one multi-node launch disagree on {name}: {values}",
                at=odd.at,
                setting=name,
                server=odd.index,
                evidence=[Evidence("parser", n.at, f"{name} = {_show(v)}") for n, v in seen],
            )
        )
    images = [(n, n.image) for n in group if n.image]
    if len({image for _, image in images}) > 1:
        odd = next(n for n, image in images if image != images[0][1])
        findings.append(
            rules.PA_NODES_DISAGREE.finding(
                "the nodes of one multi-node launch run different images: "
                + ", ".join(f"server {n.index}: {image}" for n, image in images),
                at=odd.at,
                setting="image",
                server=odd.index,
                fix="run every node from the same image tag (same framework release)",
            )
        )
    return findings


def _rank_of(node: NodeStart) -> tuple[str, int] | None:
    for name in RANK[node.framework]:
        if name in node.given or (name == "node_rank" and "nnodes" in node.given):
            rank = _int(node.values.get(name))
            return (name, rank) if rank is not None else None
    return None


def _rank_findings(group: Sequence[NodeStart]) -> list[Finding]:
    ranked = [(n, r) for n in group if (r := _rank_of(n)) is not None]
    findings: list[Finding] = []
    by_rank: dict[tuple[str, int], list[NodeStart]] = {}
    for node, name_and_number in ranked:
        by_rank.setdefault(name_and_number, []).append(node)
    for (name, rank), nodes in sorted(by_rank.items()):
        if len(nodes) < 2:
            continue
        defaulted = [n.index for n in nodes if name not in n.given]
        note = (
            f" (server {', '.join(map(str, defaulted))} gives none: the default is {rank})"
            if defaulted
            else ""
        )
        findings.append(
            rules.PA_RANK_REPEATED.finding(
                f"servers {', '.join(str(n.index) for n in nodes)} of one multi-node launch all have "
                f"{name} {rank}{note}",
                at=nodes[1].at,
                setting=name,
                server=nodes[1].index,
                evidence=[Evidence("parser", n.at, f"{name} = {rank}") for n in nodes],
            )
        )
    nnodes_values = {_int(n.values.get("nnodes")) for n in group}
    nnodes = nnodes_values.pop() if len(nnodes_values) == 1 else None
    node_ranks = [(n, number) for n, (name, number) in ranked if name == "node_rank"]
    if nnodes is None or nnodes < 1 or not node_ranks:
        return findings
    for node, number in node_ranks:
        if number >= nnodes or number < 0:
            findings.append(
                rules.PA_RANKS_INCOMPLETE.finding(
                    f"server {node.index} has node_rank {number}, but nnodes is {nnodes}: ranks run from 0 "
                    f"to {nnodes - 1}, so this node never joins",
                    at=node.at,
                    setting="node_rank",
                    server=node.index,
                )
            )
    if len(group) > nnodes:
        findings.append(
            rules.PA_RANKS_INCOMPLETE.finding(
                f"{len(group)} nodes are started for nnodes {nnodes}",
                at=group[nnodes].at,
                setting="nnodes",
                server=group[nnodes].index,
            )
        )
    elif len(group) == nnodes and len(node_ranks) == nnodes:
        missing = sorted(set(range(nnodes)) - {r for _, r in node_ranks})
        if missing and not findings:
            findings.append(
                rules.PA_RANKS_INCOMPLETE.finding(
                    f"every node of the launch is started here, but no node has rank "
                    f"{', '.join(map(str, missing))}",
                    at=group[0].at,
                    setting="node_rank",
                    server=group[0].index,
                )
            )
    return findings


def _srun_findings(node: NodeStart) -> list[Finding]:
    """One ``srun`` line that starts several tasks of a multi-node server with one argv (PA033), and a job
    too small for ``--nnodes`` (PA034)."""
    findings: list[Finding] = []
    nnodes = _int(node.values.get("nnodes"))
    if nnodes is None or nnodes < 2:
        return findings
    rank = _rank_of(node)
    if node.tasks is not None and node.tasks > 1 and rank is not None:
        name, number = rank
        source = f"{name} {number}" + (
            "" if name in node.given else f" (the default: server {node.index} gives none)"
        )
        findings.append(
            rules.PA_SRUN_ONE_ARGV.finding(
                f"srun starts this server as {node.tasks} tasks with one argv, expanded once by the batch "
                f"shell: every task gets {source}",
                at=node.at,
                setting=name,
                server=node.index,
            )
        )
    allocated = node.allocated_nodes
    if allocated is not None and (allocated < nnodes or (node.allocation_exact and allocated != nnodes)):
        effect = (
            "the nodes that never start leave the rendezvous waiting"
            if allocated < nnodes
            else f"{allocated - nnodes} pod(s) start a server that has no rank to join"
        )
        what = node.allocation or f"{allocated} node(s) are allocated"
        findings.append(
            rules.PA_ALLOCATION_TOO_SMALL.finding(
                f"{what} but --nnodes is {nnodes}: {effect}",
                at=node.at,
                setting="nnodes",
                server=node.index,
            )
        )
    return findings


def multinode_findings(nodes: Sequence[NodeStart]) -> list[Finding]:
    """PA030-PA034 for every multi-node launch among ``nodes``."""
    findings: list[Finding] = []
    for node in nodes:
        for finding in _srun_findings(node):
            # One allocation that does not match is one cause, however many of its starts read it (a
            # LeaderWorkerSet's leader and worker templates).
            if not any(f.code == finding.code == "PA034" and f.message == finding.message for f in findings):
                findings.append(finding)
    for group in launches(nodes):
        if len(group) > 1:
            findings.extend(_disagreements(group))
        findings.extend(_rank_findings(group))
    return findings
