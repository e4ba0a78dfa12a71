"""vLLM data parallel launches spread over several server starts, read as one: which DP ranks each runs.

A vLLM data parallel deployment over nodes is one ``vllm serve`` per node (vLLM's guide,
docs/serving/data_parallel_deployment.md): the head runs the API server and its ``--data-parallel-size-local``
engines from rank 0, each ``--headless`` node runs its local engines from ``--data-parallel-start-rank``
(default 0), all naming the head's ``--data-parallel-address``/``--data-parallel-rpc-port``; with external
load balancing each process is one rank (``--data-parallel-rank N``). This module owns what the ranks of
such starts show together, by vLLM 0.33.0's own rules (vllm/engine/arg_utils.py ``create_engine_config``,
vllm/config/parallel.py, vllm/v1/engine/utils.py ``wait_for_engine_startup``):
- a rank two starts run: the head takes each engine's handshake once and raises at the second (PA031);
- a rank at or past ``--data-parallel-size``: the node refuses it (``data_parallel_rank (N) must be in the
  range [0, SIZE)``) or the head does (``Message from engine with unexpected data parallel rank``) (PA032);
- ranks no start here runs, with the head here: the head waits for them without a time limit; another
  script may start them, so a warning that says so (PA032, basis assumed);
- headless starts at another address than the only head of their model whose missing ranks they are: one
  launch with a mistyped address (joined, so PA030 names it);
- starts of one launch on one machine that use the same GPUs (PA039): each process places its engines on
  the first local x tp x pp GPUs it sees, so co-located starts need their own ``CUDA_VISIBLE_DEVICES``.
Pure; ``layers/multinode.py`` calls it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from argtrace.layers.nodescope import as_int as _int
from argtrace.layers.nodestart import Launch, NodeStart
from argtrace.layers.nodestart import value_key as _key
from argtrace.model import Evidence, Finding
from argtrace.rules import multinode as rules


@dataclass(frozen=True)
class DpRanks:
    """The data parallel ranks one vLLM start runs: ``start`` .. ``start + count - 1`` of ``size``."""

    start: int
    count: int
    size: int
    head: bool  # it serves the API and takes the engines' handshakes (not --headless)
    external: bool  # --data-parallel-rank: one rank per process (external load balancing)
    how: str  # "ranks 2-3 (data_parallel_start_rank 2, data_parallel_size_local 2)"

    @property
    def ranks(self) -> range:
        return range(self.start, self.start + self.count)


def _span(ranks: Sequence[int]) -> str:
    ranks = sorted(ranks)
    if not ranks:
        return "none"
    if len(ranks) > 2 and ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f"{ranks[0]}-{ranks[-1]}"
    return ", ".join(map(str, ranks))


def dp_ranks(node: NodeStart) -> DpRanks | None:
    """The DP ranks a vLLM start runs by vLLM's ``create_engine_config``: with ``--data-parallel-rank`` that
    rank alone; else ``--data-parallel-size-local`` ranks (default: all of ``--data-parallel-size``) from
    ``--data-parallel-start-rank`` (default 0). ``None`` when a value is unknown, the launch is placed by
    ``--nnodes``/``--node-rank`` or by Ray (one command starts every rank), or it is not data parallel."""
    values, given = node.values, node.given
    if node.framework != "vllm" or (_int(values.get("nnodes")) or 1) > 1:
        return None
    if values.get("data_parallel_backend") == "ray":
        return None
    size = _int(values.get("data_parallel_size"))
    if size is None or size < 2:
        return None
    if "data_parallel_rank" in given:
        rank = _int(values.get("data_parallel_rank"))
        if rank is None:
            return None
        return DpRanks(rank, 1, size, rank == 0, True, f"rank {rank} (data_parallel_rank {rank})")
    start, local = 0, size
    for name in ("data_parallel_start_rank", "data_parallel_size_local"):
        if name in given:
            number = _int(values.get(name))
            if number is None:
                return None
            start, local = (number, local) if name == "data_parallel_start_rank" else (start, number)
    shown = [
        f"{name} {number}" + ("" if name in given else " (default)")
        for name, number in (("data_parallel_start_rank", start), ("data_parallel_size_local", local))
    ]
    ranks = f"rank{'s' if local > 1 else ''} {_span(range(start, start + local))}" if local else "no ranks"
    head = values.get("headless") is not True
    return DpRanks(start, local, size, head, False, f"{ranks} ({', '.join(shown)})")


def _judged(group: Sequence[NodeStart]) -> list[tuple[NodeStart, DpRanks]] | None:
    """The starts of a launch with their ranks, when every one is a vLLM DP start with known ranks of one
    size and no carrier stands for several pods (a LeaderWorkerSet template is read once for all its pods)."""
    if any(n.carrier_group is not None for n in group):
        return None
    out = [(n, r) for n in group if (r := dp_ranks(n)) is not None]
    if len(out) != len(group) or len({r.size for _, r in out}) != 1:
        return None
    return out


def _rank_name(ranks: DpRanks) -> str:
    return "data_parallel_rank" if ranks.external else "data_parallel_start_rank"


def dp_rank_findings(group: Sequence[NodeStart]) -> list[Finding] | None:
    """PA031/PA032 over the DP ranks of one launch's starts; ``None`` when the launch is not judged so
    (then the generic rank checks of ``layers/multinode.py`` apply)."""
    judged = _judged(group)
    if judged is None or len(judged) < 2:
        return None
    size = judged[0][1].size
    findings: list[Finding] = []
    owners: dict[int, list[NodeStart]] = {}
    for node, ranks in judged:
        for rank in ranks.ranks:
            owners.setdefault(rank, []).append(node)
    described = {node.index: f"server {node.index}: {ranks.how}" for node, ranks in judged}
    by_nodes: dict[tuple[int, ...], list[int]] = {}
    for rank, nodes in owners.items():
        if len(nodes) > 1:
            by_nodes.setdefault(tuple(n.index for n in nodes), []).append(rank)
    for indexes, ranks_ in sorted(by_nodes.items()):
        second = next(n for n, _ in judged if n.index == indexes[1])
        second_ranks = next(r for n, r in judged if n.index == indexes[1])
        findings.append(
            rules.PA_RANK_REPEATED.finding(
                f"servers {', '.join(map(str, indexes))} of one vLLM data parallel launch all run DP "
                f"rank{'s' if len(ranks_) > 1 else ''} {_span(ranks_)} ("
                + "; ".join(described[i] for i in indexes)
                + (
                    "): each rank has one place in the data parallel group, so they cannot both join it"
                    if second_ranks.external
                    else "): the head takes each rank's engine once, and its engine handshake "
                    "(wait_for_engine_startup) raises RuntimeError at the second"
                ),
                at=second.at,
                setting=_rank_name(second_ranks),
                server=second.index,
                fix=(
                    "give each process its own --data-parallel-rank, 0 to data_parallel_size - 1"
                    if second_ranks.external
                    else "start each node after the ranks before it: --data-parallel-start-rank = the "
                    "local sizes of the nodes before it added up (0 on the head, 2 after a local size 2)"
                ),
                evidence=[Evidence("parser", n.at, r.how) for n, r in judged if n.index in indexes],
            )
        )
    for node, ranks in judged:
        past = [r for r in ranks.ranks if r >= size]
        if not past:
            continue
        why = (
            f'vLLM refuses it on that node ("data_parallel_rank ({ranks.start}) must be in the range '
            f'[0, {size})")'
            if ranks.start >= size
            else "the head refuses the engine "
            f'("Message from engine with unexpected data parallel rank: {past[0]}")'
        )
        findings.append(
            rules.PA_RANKS_INCOMPLETE.finding(
                f"server {node.index} runs {ranks.how}, but data_parallel_size is {size}: ranks run from 0 "
                f"to {size - 1}, so rank {_span(past)} has no place and {why}",
                at=node.at,
                setting=_rank_name(ranks),
                server=node.index,
                fix="keep each node's ranks (start rank + local size) within --data-parallel-size",
            )
        )
    heads = [(n, r) for n, r in judged if r.head and (r.start == 0 or not r.external)]
    missing = [r for r in range(size) if r not in owners]
    if findings or not missing or not heads:
        return findings
    head = heads[0][0]
    external = any(r.external for _, r in judged)
    if external:
        started = f"the starts here run rank{'s' if len(owners) > 1 else ''} {_span(list(owners))}"
        setting = "data_parallel_rank"
    else:
        started = "their data_parallel_size_local add up to " + " + ".join(str(r.count) for _, r in judged)
        started += f" = {sum(r.count for _, r in judged)}"
        setting = "data_parallel_size_local"
    finding = rules.PA_RANKS_INCOMPLETE.finding(
        f"the {len(judged)} starts of this vLLM data parallel launch ({'; '.join(described.values())}) leave "
        f"rank{'s' if len(missing) > 1 else ''} {_span(missing)} of data_parallel_size {size} to no start: "
        f"{started}; unless another script starts them, the head (server {head.index}) waits for them "
        "without a time limit (vLLM's wait_for_engine_startup)",
        at=head.at,
        setting=setting,
        server=head.index,
        severity="warning",
        fix="start the missing ranks (a node with its --data-parallel-start-rank and local size), or set "
        "--data-parallel-size to the ranks started",
    )
    return [replace(finding, basis="assumed")]


def join_headless(found: list[Launch]) -> list[Launch]:
    """A launch of ``--headless`` vLLM starts with no head of its own joins the only launch of its model
    that has a head, when their ranks together are exactly 0..size-1 (each fills the other's gap): one
    launch whose headless nodes name another ``--data-parallel-address`` or rpc port, so PA030 names it."""
    out = list(found)
    for launch in found:
        judged = _judged(launch.nodes)
        if judged is None or any(r.head for _, r in judged) or launch not in out:
            continue
        model = _key(launch.nodes[0].values.get("model"))
        heads = [
            other
            for other in out
            if other is not launch
            and (j := _judged(other.nodes)) is not None
            and any(r.head for _, r in j)
            and _key(other.nodes[0].values.get("model")) == model
        ]
        if len(heads) != 1:
            continue
        target = heads[0]
        both = [*(_judged(target.nodes) or []), *judged]
        ranks = sorted(rank for _, r in both for rank in r.ranks)
        if ranks != list(range(both[0][1].size)) or len({r.size for _, r in both}) != 1:
            continue
        nodes = tuple(sorted((*target.nodes, *launch.nodes), key=lambda n: n.index))
        out[out.index(target)] = Launch(nodes, target.basis)
        out.remove(launch)
    return out


def _devices(node: NodeStart, ranks: DpRanks) -> tuple[list[str], str] | None:
    """The devices this start's engines use (physical ids), and how: each engine takes tp x pp GPUs in the
    order the process sees them (local DP rank i the i-th block)."""
    tp, pp = _int(node.values.get("tensor_parallel_size")), _int(node.values.get("pipeline_parallel_size"))
    if tp is None or pp is None or node.visible_unknown:
        return None
    need = ranks.count * tp * pp
    if node.visible is None:
        return [str(i) for i in range(need)], "no CUDA_VISIBLE_DEVICES: the machine's first GPUs"
    if need > len(node.visible):
        return None  # fewer devices than it needs: the GPU checks say so, not this one
    return list(node.visible[:need]), f"CUDA_VISIBLE_DEVICES={','.join(node.visible)}"


def shared_gpu_findings(group: Sequence[NodeStart]) -> list[Finding]:
    """PA039 for starts of one vLLM data parallel launch on one machine that use the same GPUs."""
    judged = _judged(group)
    if judged is None:
        return []
    findings: list[Finding] = []
    by_host: dict[str, list[tuple[NodeStart, DpRanks]]] = {}
    for node, ranks in judged:
        if node.host is not None:
            by_host.setdefault(node.host, []).append((node, ranks))
    for host, starts in by_host.items():
        used = [(n, r, d) for n, r in starts if (d := _devices(n, r)) is not None and d[0]]
        for i, (node, ranks, (devices, how)) in enumerate(used):
            for other, other_ranks, (other_devices, other_how) in used[i + 1 :]:
                common = [d for d in other_devices if d in devices]
                if not common:
                    continue
                gpus = f"GPU{'s' if len(common) > 1 else ''} {', '.join(common)}"
                findings.append(
                    rules.PA_TASKS_SHARE_GPUS.finding(
                        f"servers {node.index}, {other.index} of one vLLM data parallel launch run on one "
                        f"machine ({host}) and both use {gpus}: server {node.index} runs {ranks.how} on "
                        f"GPU {', '.join(devices)} ({how}), server {other.index} runs {other_ranks.how} on "
                        f"GPU {', '.join(other_devices)} ({other_how}); each process puts its engines on the "
                        "first GPUs it sees, so they load the model on the same GPUs (vLLM's data parallel "
                        "deployment guide gives co-located ranks their own CUDA_VISIBLE_DEVICES)",
                        at=other.at,
                        setting="CUDA_VISIBLE_DEVICES",
                        server=other.index,
                        fix="give each start on the machine its own GPUs (CUDA_VISIBLE_DEVICES=0,1 on one, "
                        "2,3 on the next), or start them on separate machines",
                    )
                )
    return findings


def dp_coverage(group: Sequence[NodeStart]) -> list[Finding]:
    """vLLM data parallel over the pods of one carrier group (a Dynamo service's multinode pods, a
    LeaderWorkerSet group): each pod runs its ``--data-parallel-size-local`` ranks, so the pods together
    run pods x local of them; fewer than ``--data-parallel-size`` leaves ranks nobody starts, and the data
    parallel group waits for them (vLLM's data parallel deployment guide: the nodes' local ranks make up
    the size). Judged only where the carrier fixes the pods: a script may start the other nodes elsewhere."""
    if any(n.framework != "vllm" or "data_parallel_rank" in n.given for n in group):
        return []
    sizes = {_int(n.values.get("data_parallel_size")) for n in group}
    locals_ = {_int(n.values.get("data_parallel_size_local")) for n in group}
    pods = {n.carrier_nodes for n in group}
    carriers = {n.carrier_group for n in group}
    if len(sizes) != 1 or len(locals_) != 1 or len(pods) != 1 or len(carriers) != 1:
        return []
    size, local, count, carrier = sizes.pop(), locals_.pop(), pods.pop(), carriers.pop()
    if size is None or local is None or count is None or carrier is None or local * count >= size:
        return []
    if any("data_parallel_size_local" not in n.given for n in group):
        return []
    return [
        rules.PA_RANKS_INCOMPLETE.finding(
            f"the {count} pods of {carrier} each run data_parallel_size_local {local}: {local * count} data "
            f"parallel ranks of data_parallel_size {size}, so ranks {local * count} to {size - 1} never "
            "start and the data parallel group waits for them",
            at=group[0].at,
            setting="data_parallel_size",
            server=group[0].index,
        )
    ]
