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

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from argtrace.layers.idlenodes import idle_node_findings
from argtrace.layers.multinode_dp import dp_coverage, dp_rank_findings, join_headless, shared_gpu_findings
from argtrace.layers.nodescope import as_int as _int
from argtrace.layers.nodescope import gpus_needed, is_multinode
from argtrace.layers.nodeself import headless_rank_findings, own_host_findings
from argtrace.layers.nodestart import Launch, NodeStart
from argtrace.layers.nodestart import shown as _show
from argtrace.layers.nodestart import value_key as _key
from argtrace.model import Evidence, Finding, Severity
from argtrace.rules import multinode as rules

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Settings every node of one launch must share, by framework, named by configuration field. Per-node
# settings by design (ranks, --headless, --data-parallel-size-local, ports) are not here.
MUST_AGREE: Mapping[str, tuple[str, ...]] = {
    "sglang": (
        "model_path",
        "tp_size",
        "pp_size",
        "ep_size",
        "dp_size",
        # DP attention splits each node's TP group into attention DP groups: nodes that differ on it build
        # different groups over one NCCL world (and SGLang refuses --dp-size over nodes without it)
        "enable_dp_attention",
        "attn_dp_size",
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


def _is_multinode(node: NodeStart) -> bool:
    return is_multinode(node.framework, node.values, node.given)


def _marks(node: NodeStart) -> set[tuple[str, str]]:
    """Where this start meets its peers, as far as argtrace can read it: the rendezvous settings its argv
    gives with a known value (a default is no meeting point: two replicas both on the default share
    nothing), and the carrier group that starts it (a LeaderWorkerSet's pods, a StatefulSet's ordinals)."""
    marks = {
        (name, _key(node.values[name]))
        for name in RENDEZVOUS[node.framework]
        if name in node.given and node.values.get(name) not in (None, "")
    }
    if node.carrier_group:
        marks.add(("carrier", node.carrier_group))
    if not marks and node.framework == "vllm" and node.host is not None:
        # vLLM data parallel starts that name no address meet at its default (127.0.0.1, the default rpc
        # port) on their own machine: co-located ranks (vLLM's guide) are one launch there
        marks.add(("default address on", node.host))
    return marks


def _unread(nodes: Sequence[NodeStart]) -> str:
    """Why these starts' rendezvous cannot be read, for the basis of an assumed grouping: "dist_init_addr
    from $HEAD:5000 is not known statically (servers 1, 2)"."""
    by_reason: dict[str, list[int]] = {}
    for node in nodes:
        names = RENDEZVOUS[node.framework]
        unknown = [name for name in names if name in node.given and name not in node.values]
        if unknown:
            shown = ", ".join(f"{n} from {node.unread[n]}" if n in node.unread else n for n in unknown)
            reason = f"{shown} is not known statically"
        else:
            reason = f"no {' or '.join(names)} is given"
        by_reason.setdefault(reason, []).append(node.index)
    return "; ".join(
        f"{reason} (server{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))})"
        for reason, ids in by_reason.items()
    )


def grouped(nodes: Sequence[NodeStart]) -> list[Launch]:
    """The multi-node starts grouped into launches. Starts that share a rendezvous (the same
    ``--dist-init-addr``, ``--master-addr`` or ``--data-parallel-address``, the same LeaderWorkerSet group
    or StatefulSet) are one launch; starts of one model with different rendezvous are separate launches
    (replicas, SGLang's prefill and decode groups), never ranks of one. A start whose rendezvous cannot be
    read joins the only launch of its model, or the other such starts of its model, as an assumption."""
    candidates = [n for n in nodes if _is_multinode(n)]
    anchored: list[tuple[list[NodeStart], set[tuple[str, str]]]] = []
    loose: list[NodeStart] = []
    for node in candidates:
        marks = _marks(node)
        if not marks:
            loose.append(node)
            continue
        members, seen = [node], set(marks)
        for group in [g for g in anchored if g[0][0].framework == node.framework and g[1] & marks]:
            anchored.remove(group)  # a start that names two launches' meeting points joins them into one
            members, seen = [*group[0], *members], seen | group[1]
        anchored.append((sorted(members, key=lambda n: n.index), seen))
    launches_: list[Launch] = [Launch(tuple(members)) for members, _ in anchored]

    def model(node: NodeStart) -> tuple[str, str]:
        return node.framework, _key(node.values.get(MODEL[node.framework]))

    # Starts whose rendezvous is unread, by model and by the text it comes from: in one script the same
    # "$HEAD:5000" is most likely the same address and "$PREFILL_IP:5000" / "$DECODE_IP:5000" two (SGLang's
    # prefill and decode groups), but both are assumptions, said in the basis.
    by_model: dict[tuple[str, str], dict[str, list[NodeStart]]] = {}
    for node in loose:
        text = _key(sorted((n, node.unread.get(n)) for n in RENDEZVOUS[node.framework] if n in node.given))
        by_model.setdefault(model(node), {}).setdefault(text, []).append(node)
    for key, by_text in by_model.items():
        same = [i for i, launch in enumerate(launches_) if model(launch.nodes[0]) == key]
        if len(same) == 1 and len(by_text) == 1:
            strays = next(iter(by_text.values()))
            target = launches_[same[0]]
            joined = tuple(sorted((*target.nodes, *strays), key=lambda n: n.index))
            peers = ", ".join(str(n.index) for n in target.nodes)
            launches_[same[0]] = Launch(
                joined, f"joined to the launch of server(s) {peers} by the model alone: {_unread(strays)}"
            )
            continue
        for strays in by_text.values():
            if len(strays) > 1:
                how = "the model alone" if len(by_text) == 1 else "the model and the same unread text"
                launches_.append(Launch(tuple(strays), f"grouped by {how}: {_unread(strays)}"))
            else:  # alone, or several launches of this model it could belong to: judged on its own
                launches_.append(Launch((strays[0],)))
    launches_ = join_headless(launches_)
    launches_.sort(key=lambda launch: launch.nodes[0].index)
    return [
        launch
        for launch in launches_
        if len(launch.nodes) > 1 or _int(launch.nodes[0].values.get("nnodes")) is not None
    ]


def launches(nodes: Sequence[NodeStart]) -> list[list[NodeStart]]:
    """The starts of each launch (``grouped`` without the basis)."""
    return [list(launch.nodes) for launch in grouped(nodes)]


def _replicas_note(nodes: Sequence[Launch]) -> list[Finding]:
    """Separate launches of one model whose nodes, taken together, look like one launch split by a
    rendezvous that differs on some node: each launch starts fewer nodes than its nnodes. Information, with
    the addresses, since replicas that are each started by another file look the same."""
    findings: list[Finding] = []
    by_model: dict[tuple[str, str], list[Launch]] = {}
    for launch in nodes:
        first = launch.nodes[0]
        by_model.setdefault((first.framework, _key(first.values.get(MODEL[first.framework]))), []).append(
            launch
        )
    for group in by_model.values():
        short = [
            launch
            for launch in group
            if (nn := _int(launch.nodes[0].values.get("nnodes"))) is not None and len(launch.nodes) < nn
        ]
        if len(group) < 2 or not short:
            continue
        first = group[0].nodes[0]
        names = [n for n in RENDEZVOUS[first.framework] if any(n in x.given for g in group for x in g.nodes)]
        shown = "; ".join(
            "server(s) " + ", ".join(str(n.index) for n in launch.nodes) + ": "
            + ", ".join(f"{name} {_said(launch.nodes[0], name)}" for name in names)
            for launch in group
        )  # fmt: skip
        odd = group[1].nodes[0]
        head = _split_launch_head(group)
        if head is not None and names:
            # the ranks of the separate launches are exactly one launch's, 0..nnodes-1 once each: one
            # launch whose nodes were given different addresses (sgl-project/sglang#3467), not replicas
            ranks = sorted(r[1] for launch in group for n in launch.nodes if (r := _rank_of(n)) is not None)
            address = _show(head.values.get(names[0], "?"))
            model = _show(first.values.get(MODEL[first.framework]))
            findings.append(
                rules.PA_NODES_DISAGREE.finding(
                    f"{len(group)} starts of {model} name different "
                    f"rendezvous ({shown}), and their node ranks ({', '.join(map(str, ranks))}) are exactly "
                    f"one launch of nnodes {len(ranks)}: every node must meet at rank 0's address "
                    f"({address}), so each waits at its own and the launch hangs",
                    at=odd.at,
                    setting=names[0],
                    fix=f"give every node --{names[0].replace('_', '-')} {address}, rank 0's (one variable "
                    "the node commands share)",
                    server=odd.index,
                    severity="warning",
                    basis="assumed",
                )
            )
            continue
        findings.append(
            rules.PA_NODES_DISAGREE.finding(
                f"{len(group)} launches of {_said(first, MODEL[first.framework], 'a model not known here')} "
                f"meet at different rendezvous ({shown}), and a launch starts fewer nodes than its nnodes "
                "here: read as separate launches; if they are one, every node must name the same rendezvous",
                at=odd.at,
                setting=names[0] if names else None,
                server=odd.index,
                severity="info",
            )
        )
    return findings


def _said(node: NodeStart, name: str, unknown: str = "?") -> str:
    """A setting's value in a message: as known, else the text it comes from (``$HEAD:5000``), else
    ``unknown`` (a model path from ``$MODEL_PATH`` read as ``null`` in PA030's message)."""
    value = node.values.get(name)
    if value is not None:
        return _show(value)
    return node.unread.get(name) or unknown


def _split_launch_head(group: Sequence[Launch]) -> NodeStart | None:
    """Rank 0's start when the launches of one model, each short of its nnodes, together hold the ranks
    0..nnodes-1 exactly once with one nnodes and every other setting the nodes must share alike (then they
    are one launch split by its addresses); ``None`` otherwise."""
    nodes = [n for launch in group for n in launch.nodes]
    nnodes = {_int(n.values.get("nnodes")) for n in nodes}
    ranks = [_rank_of(n) for n in nodes]
    if len(nnodes) != 1 or None in nnodes or any(r is None for r in ranks):
        return None
    if sorted(r[1] for r in ranks if r is not None) != list(range(len(nodes))) or len(nodes) != nnodes.pop():
        return None
    rendezvous = set(RENDEZVOUS[nodes[0].framework])
    for name in MUST_AGREE[nodes[0].framework]:
        if name not in rendezvous and len({_key(n.values.get(name)) for n in nodes}) > 1:
            return None  # another disagreement: replicas of another layout, not one split launch
    return next(n for n, r in zip(nodes, ranks, strict=True) if r is not None and r[1] == 0)


def _assumed(findings: list[Finding], basis: str) -> list[Finding]:
    """A launch's findings when its grouping rests on an assumption: information, saying what it rests on."""
    return [
        replace(f, severity="info", basis="assumed", message=f"{f.message} (assumed one launch: {basis})")
        for f in findings
    ]


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
    per_node = node.tasks_per_node or 1
    if per_node > 1 and node.step_tasks is not None and _task_rank(node) is not None:
        # several tasks per node, each a node of the launch by its own rank: the tasks count, not the nodes
        allocated = node.step_tasks
        node = replace(
            node,
            allocation=f"srun starts {node.step_tasks} task(s), {per_node} on each of {node.step_nodes} "
            "node(s),",
        )
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


def _replica_findings(node: NodeStart) -> list[Finding]:
    """A pod template started as several pods with one argv, for a multi-node server (PA035)."""
    nnodes = _int(node.values.get("nnodes"))
    rank = _rank_of(node)
    if node.replicas is None or node.replicas < 2 or nnodes is None or nnodes < 2 or rank is None:
        return []
    name, number = rank
    source = f"{name} {number}" + ("" if name in node.given else " (the default: the template gives none)")
    return [
        rules.PA_REPLICAS_ONE_ARGV.finding(
            f"{node.replicas_of or 'the workload'} starts {node.replicas} pods from one template, for a "
            f"server of nnodes {nnodes}: every pod gets {source}",
            at=node.at,
            setting=name,
            server=node.index,
        )
    ]


def _gpu_findings(node: NodeStart) -> list[Finding]:
    """The GPUs a node gets against what its parallel sizes need (PA036)."""
    have = node.gpus_per_node
    values = node.values
    if "data_parallel_rank" in node.given and "data_parallel_rank" not in values:
        values = {**values, "data_parallel_rank": 0}  # one DP rank per process, whichever (a task's own)
    needed = gpus_needed(node.framework, values, node.carrier_nodes, node.carrier_of)
    if have is None or needed is None:
        return []
    need, how = needed
    per_node = node.tasks_per_node or 1
    if per_node > 1:  # each task on the node is one process of the server with its own GPUs
        need, how = need * per_node, f"{how}, for each of the {per_node} tasks srun starts per node"
    if have == need:
        return []
    if have > need and node.gpus_shared:
        return []
    setting = "tp_size" if node.framework == "sglang" else "tensor_parallel_size"
    where = node.gpus_from or f"the carrier gives {have}"
    if have < need:
        message = f"each node needs {need} GPU(s) ({how}) but gets {have}: {where}"
        severity: Severity | None = None
    else:
        message = f"each node needs {need} GPU(s) ({how}) but gets {have}: {where}; {have - need} stay idle"
        severity = "warning"
    finding = rules.PA_GPUS_PER_NODE.finding(
        message, at=node.at, setting=setting, server=node.index, severity=severity
    )
    if per_node > 1 and node.task_reads:
        finding = _task_assumed(finding, node)
    elif node.ray_fallback is not None and have < need <= have * node.ray_fallback:
        finding = _ray_fallback(finding, node.ray_fallback)
    return [finding]


def _ray_fallback(finding: Finding, nodes: int) -> Finding:
    """Too few GPUs on the batch shell's node for a vLLM world that vLLM's fallback to Ray spreads over the
    job's nodes (``nodeplaces.ray_over_the_job``): right on the releases with the fallback, refused by those
    without it. Information resting on the release, saying both, with the flag that holds on every release."""
    message = (
        f"{finding.message}, unless vLLM places the ranks over the Ray cluster RAY_ADDRESS names on the "
        f"job's {nodes} nodes: its releases with the automatic fallback to Ray do so when the world does not "
        "fit on the node; later ones (vllm-project/vllm#25775; 0.33.0: vllm/config/parallel.py:1071) refuse "
        "it without --distributed-executor-backend ray"
    )
    fix = (
        "Add `--distributed-executor-backend ray`: every release then places the ranks over the Ray cluster."
    )
    return replace(finding, severity="info", basis="assumed", message=message, fix=fix)


def _task_assumed(finding: Finding, node: NodeStart) -> Finding:
    """A finding that rests on every task of the step starting the server, when the script reads a task's
    own rank elsewhere (a task may skip the start): information, saying so."""
    names = ", ".join(f"${n}" for n in sorted(node.task_reads))
    message = f"{finding.message} (assumed: every task starts the server; the script also reads {names})"
    return replace(finding, severity="info", basis="assumed", message=message)


# What srun sets in each task (srun(1), OUTPUT ENVIRONMENT VARIABLES): its global rank 0..tasks-1, its node's
# index 0..nodes-1, its rank on its node 0..tasks-per-node-1. With the default block distribution the tasks
# of node n are the consecutive global ranks n*P..n*P+P-1.
_TASK_VARIABLE = re.compile(r"""^["']?\$\{?(SLURM_PROCID|SLURM_NODEID|SLURM_LOCALID)\}?["']?$""")
# The ranks a task's own variable can give, and what bounds them: vLLM's data parallel rank the DP size.
_TASK_RANKS = (("node_rank", "nnodes"), ("data_parallel_rank", "data_parallel_size"))


def _task_rank(node: NodeStart) -> tuple[str, str, str] | None:
    """(rank setting, its bound's setting, the srun variable) when a rank is exactly a task's variable."""
    for name, bound in _TASK_RANKS:
        match = _TASK_VARIABLE.match(node.unread.get(name, "").strip())
        if match:
            return name, bound, match.group(1)
    return None


def _task_findings(node: NodeStart) -> list[Finding]:
    """The ranks the tasks of one srun step get from their own SLURM_PROCID/NODEID/LOCALID (inside ``srun
    bash -c '...'``): ranks that repeat (PA031) or run past the launch's size (PA032)."""
    found = _task_rank(node)
    tasks, nodes, per_node = node.step_tasks, node.step_nodes, node.tasks_per_node
    if found is None or tasks is None or nodes is None or per_node is None:
        return []
    name, bound_name, variable = found
    ranks = {
        "SLURM_PROCID": list(range(tasks)),
        "SLURM_NODEID": [n for n in range(nodes) for _ in range(per_node)],
        "SLURM_LOCALID": [r for _ in range(nodes) for r in range(per_node)],
    }[variable]
    shape = (
        f"srun starts {tasks} task(s), {per_node} on each of {nodes} node(s), and each takes {name} from "
        f"${variable}"
    )
    findings = []
    repeated = sorted({r for r in ranks if ranks.count(r) > 1})
    if repeated:
        why = (
            f"the {per_node} tasks of a node share its SLURM_NODEID"
            if variable == "SLURM_NODEID"
            else f"the tasks of the {nodes} nodes repeat SLURM_LOCALID 0..{per_node - 1}"
        )
        findings.append(
            rules.PA_RANK_REPEATED.finding(
                f"{shape}: {why}, so {name} {', '.join(map(str, repeated))} each go to "
                f"{ranks.count(repeated[0])} tasks",
                at=node.at,
                setting=name,
                server=node.index,
            )
        )
    bound = _int(node.values.get(bound_name))
    if bound is not None and max(ranks) >= bound:
        findings.append(
            rules.PA_RANKS_INCOMPLETE.finding(
                f"{shape}: the ranks run to {max(ranks)} but {bound_name} is {bound}, so the tasks with "
                f"{name} {bound} and up never join",
                at=node.at,
                setting=name,
                server=node.index,
            )
        )
    findings += _shared_gpus(node, name, per_node, variable)
    return [_task_assumed(f, node) for f in findings] if node.task_reads else findings


def _shared_gpus(node: NodeStart, name: str, per_node: int, variable: str) -> list[Finding]:
    """SGLang nodes of one launch on one machine that all take the machine's first GPUs: each
    ``sglang.launch_server`` uses GPUs ``--base-gpu-id`` (default 0) onwards of those it sees
    (``scheduler`` gpu_id = base_gpu_id + its local rank x gpu_id_step), so tasks that see the same
    devices put two ranks of one NCCL communicator on one GPU. Likewise vLLM's data parallel ranks started
    one per process (external load balancing, ``--data-parallel-rank``): such a process runs one engine
    with data_parallel_size_local 1 (vllm/engine/arg_utils.py ``create_engine_config``), so local DP rank
    0 on the first tp x pp GPUs it sees; vLLM's data parallel deployment guide
    (docs/serving/data_parallel_deployment.md, "External Load Balancing") gives co-located ranks their own
    ``CUDA_VISIBLE_DEVICES``."""
    if per_node < 2 or node.gpus_bound:
        return []
    if node.framework == "vllm" and name == "data_parallel_rank":
        return _shared_dp_gpus(node, per_node, variable)
    if node.framework != "sglang" or name != "node_rank":
        return []
    if "base_gpu_id" in node.given:
        return []
    needed = gpus_needed(node.framework, node.values)
    if needed is None:
        return []
    gpus = "GPU 0" if needed[0] == 1 else f"GPUs 0-{needed[0] - 1}"
    return [
        rules.PA_TASKS_SHARE_GPUS.finding(
            f"srun starts {per_node} tasks of this SGLang launch on each node (node_rank from ${variable}) "
            "and each sees the node's GPUs (no CUDA_VISIBLE_DEVICES of its own, no srun --gpus-per-task or "
            f"--gpu-bind): every task takes {gpus} from --base-gpu-id 0, so ranks of one launch meet "
            'on one GPU and NCCL stops ("Duplicate GPU detected")',
            at=node.at,
            setting="base_gpu_id",
            server=node.index,
        )
    ]


def _shared_dp_gpus(node: NodeStart, per_node: int, variable: str) -> list[Finding]:
    needed = gpus_needed(node.framework, {**node.values, "data_parallel_rank": 0})
    if needed is None:
        return []
    gpus = "GPU 0" if needed[0] == 1 else f"GPUs 0-{needed[0] - 1}"
    return [
        rules.PA_TASKS_SHARE_GPUS.finding(
            f"srun starts {per_node} vLLM data parallel ranks on each node (data_parallel_rank from "
            f"${variable}) and each sees the node's GPUs (no CUDA_VISIBLE_DEVICES of its own, no srun "
            "--gpus-per-task or --gpu-bind): a --data-parallel-rank process runs one engine as local DP "
            f"rank 0, so every rank of a node takes {gpus} and they load the model on the same GPUs "
            "(vLLM's data parallel deployment guide gives co-located ranks their own CUDA_VISIBLE_DEVICES)",
            at=node.at,
            setting="data_parallel_rank",
            server=node.index,
        )
    ]


def _steps_cover_launch(found: Sequence[Launch]) -> set[int]:
    """The starts whose ``srun`` step is one part of a launch started by several steps (``srun -N1 ... &``
    once per node) that together take its nnodes nodes: a step smaller than ``--nnodes`` is no PA034 there."""
    covered: set[int] = set()
    for launch in found:
        nnodes = {_int(n.values.get("nnodes")) for n in launch.nodes}
        steps = [n.allocated_nodes for n in launch.nodes if n.allocation_step]
        if len(launch.nodes) < 2 or len(nnodes) != 1 or len(steps) != len(launch.nodes):
            continue
        need = nnodes.pop()
        if need is not None and sum(s or 0 for s in steps) >= need:
            covered |= {n.index for n in launch.nodes}
    return covered


def multinode_findings(nodes: Sequence[NodeStart]) -> list[Finding]:
    """PA030-PA036 for every multi-node launch among ``nodes`` (PA036 for any start whose carrier says how
    many GPUs it gets)."""
    findings: list[Finding] = []
    found = grouped(nodes)
    stepped = _steps_cover_launch(found)
    for node in nodes:
        findings.extend(own_host_findings(node) + headless_rank_findings(node))
        findings.extend(_replica_findings(node))
        findings.extend(_task_findings(node))
        srun = [f for f in _srun_findings(node) if not (f.code == "PA034" and node.index in stepped)]
        # with nnodes against the allocation (PA034), the GPUs per node follow from the wrong count
        gpus = [] if any(f.code == "PA034" for f in srun) else _gpu_findings(node)
        for finding in [*gpus, *srun]:
            # One allocation that does not match is one cause, however many of its starts read it (a
            # LeaderWorkerSet's leader and worker templates, a StatefulSet's pods).
            once = finding.code in ("PA034", "PA036")
            if not (once and any(f.code == finding.code and f.message == finding.message for f in findings)):
                findings.append(finding)
    for launch in found:
        group = list(launch.nodes)
        dp_ranks = dp_rank_findings(group)
        ranks = _rank_findings(group) if dp_ranks is None else dp_ranks
        ours = [*(_disagreements(group) if len(group) > 1 else []), *ranks]
        ours += dp_coverage(group) + shared_gpu_findings(group)
        findings.extend(ours if launch.basis is None or len(group) < 2 else _assumed(ours, launch.basis))
    findings.extend(_replicas_note(found))
    return findings + idle_node_findings(nodes)


def _cell(node: NodeStart, name: str) -> str:
    if name not in node.values:
        return "?"  # unknown statically (a variable of the cluster, a task's own rank)
    return _show(node.values[name]) + ("" if name in node.given else " (default)")


def matrix_section(nodes: Sequence[NodeStart]) -> dict[str, Any] | None:
    """The report's ``multinode`` section: for each multi-node launch, one column per node (its pod, its
    role or ``server N``) and a row per setting whose value is not the same on every node, with whether
    the nodes must agree on it (PA030) or it differs by design (ranks, ``--headless``, ports)."""
    out = []
    for launch in grouped(nodes):
        group = list(launch.nodes)
        if len(group) < 2:
            continue
        framework = group[0].framework
        must = set(MUST_AGREE[framework])
        names = sorted(set().union(*(n.given for n in group)), key=lambda n: (n not in must, n))
        rows = []
        for name in names:
            cells = [_cell(n, name) for n in group]
            if len(set(cells)) > 1:
                rows.append({"setting": name, "must_agree": name in must, "values": cells})
        for name, cells in (
            ("image", [n.image or "?" for n in group]),
            ("gpus per node", [str(n.gpus_per_node) if n.gpus_per_node is not None else "?" for n in group]),
        ):
            if len(set(cells)) > 1:
                rows.append({"setting": name, "must_agree": name == "image", "values": cells})
        entry: dict[str, Any] = {
            "framework": framework,
            "servers": [n.index for n in group],
            "columns": [n.label or f"server {n.index}" for n in group],
            "rows": rows,
        }
        if launch.basis is not None:
            entry["assumed"] = launch.basis  # the grouping rests on the model alone (see ``grouped``)
        out.append(entry)
    return {"launches": out} if out else None
