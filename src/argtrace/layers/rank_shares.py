"""The ranks each node of a multi-node SGLang launch starts, as ``_calculate_rank_ranges`` computes them
(``rank_placement.py``'s text cites it), and the words of RS071's finding about them: read by
``rank_placement`` only for a launch over several nodes with one data parallel replica."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Placement:
    """The ranks SGLang's nodes start: per node the pipeline and tensor ranks, and the (pp, tp) pairs that
    no node starts (``missing``) or that do not exist (``extra``)."""

    per_node: tuple[tuple[range, range], ...]
    missing: tuple[tuple[int, int], ...]
    extra: tuple[tuple[int, int], ...]


def place_ranks(nnodes: int, tp_size: int, pp_size: int) -> Placement:
    """Every node's ranks as SGLang computes them (``_calculate_rank_ranges``, module docstring), with the
    ranks of the ``tp_size`` x ``pp_size`` group that none starts and those started that do not exist."""
    pp_per_node = max(pp_size // nnodes, 1)
    nodes_per_pp_rank = max(nnodes // pp_size, 1)
    tp_per_node = tp_size // nodes_per_pp_rank  # nnodes_per_tp_group is nnodes_per_pp_rank
    per_node = []
    started: set[tuple[int, int]] = set()
    for node in range(nnodes):
        pp = range(pp_per_node * (node // nodes_per_pp_rank), pp_per_node * (node // nodes_per_pp_rank + 1))
        tp = range(tp_per_node * (node % nodes_per_pp_rank), tp_per_node * (node % nodes_per_pp_rank + 1))
        per_node.append((pp, tp))
        started.update((p, t) for p in pp for t in tp)
    every = {(p, t) for p in range(pp_size) for t in range(tp_size)}
    return Placement(tuple(per_node), tuple(sorted(every - started)), tuple(sorted(started - every)))


def _shares(placement: Placement, pp_size: int) -> str:
    """``3 tensor ranks on each node (node k: ranks 3k..3k+2)``, or the pipeline shares too."""
    pp, tp = placement.per_node[0]
    tp_text = f"{len(tp)} tensor-parallel rank{'s' if len(tp) != 1 else ''} on each node"
    if pp_size == 1:
        return f"{tp_text} ({_per_node_text(placement, pp_size)})"
    pp_text = f"{len(pp)} pipeline stage{'s' if len(pp) != 1 else ''}"
    return f"{pp_text} and {tp_text} ({_per_node_text(placement, pp_size)})"


def _per_node_text(placement: Placement, pp_size: int) -> str:
    parts = []
    for node, (pp, tp) in enumerate(placement.per_node):
        tp_text = f"{tp.start}-{tp.stop - 1}" if len(tp) > 1 else (str(tp.start) if tp else "none")
        pp_text = (
            f"stage {pp.start}-{pp.stop - 1}, "
            if len(pp) > 1
            else (f"stage {pp.start}, " if pp_size > 1 else "")
        )
        parts.append(f"node {node}: {pp_text}tp {tp_text}")
    return "; ".join(parts)


def _ranks(pairs: tuple[tuple[int, int], ...], pp_size: int) -> str:
    """``ranks 12-13`` for one stage's tensor ranks, else the (stage, rank) pairs, the first few."""
    if pp_size == 1:
        tps = [t for _, t in pairs]
        if tps == list(range(tps[0], tps[-1] + 1)) and len(tps) > 1:
            return f"tensor-parallel ranks {tps[0]}-{tps[-1]}"
        return "tensor-parallel rank" + ("s " if len(tps) > 1 else " ") + ", ".join(str(t) for t in tps[:8])
    shown = ", ".join(f"stage {p} rank {t}" for p, t in pairs[:6])
    return f"{len(pairs)} (stage, rank) pairs ({shown}{', ...' if len(pairs) > 6 else ''})"


def _fix(nnodes: int, tp_size: int, pp_size: int) -> str:
    """Sizes that divide: the tensor-parallel size made a multiple of the nodes one pipeline stage spans."""
    if pp_size == 1 or nnodes > pp_size:
        span = max(nnodes // pp_size, 1)
        lower = (tp_size // span) * span
        higher = lower + span
        options = " or ".join(str(v) for v in (lower, higher) if v >= 1)
        return (
            f"give --tp-size a multiple of the {span} node(s) each pipeline stage spans (here {options}), "
            f"with tp-size / {span} GPUs on each node, or run on a number of nodes that divides {tp_size}"
            + ("" if pp_size == 1 else f" and is a multiple of --pp-size {pp_size}")
        )
    return (
        f"give --pp-size a multiple of --nnodes {nnodes} (each node takes pp-size / nnodes stages), or "
        "fewer nodes"
    )
