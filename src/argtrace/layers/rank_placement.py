"""SGLang's placement of the tensor- and pipeline-parallel ranks on the nodes of a multi-node launch (RS071).

Each node of an SGLang launch starts the scheduler processes of its own share of the ranks, computed from
``--nnodes``, ``--node-rank``, ``--tp-size`` and ``--pp-size`` alone (``_calculate_rank_ranges``: SGLang
0.5.10.post1 ``srt/entrypoints/engine.py:1225-1257``, 0.5.23 ``srt/entrypoints/engine.py:2045-2077``;
0.4.2.post4, before pipeline parallelism, ``srt/entrypoints/engine.py:367-370``: ``tp_size // nnodes``
ranks per node).
The shares are integer divisions: when the sizes do not divide over the nodes, some ranks are started on no
node (or a node is given a rank that does not exist), and the ranks that do start wait for the others in
torch.distributed's rendezvous until its timeout. The engine takes this path with one data parallel
replica (``dp_size == 1``, 0.5.10.post1 ``engine.py:529``); the data parallel controller places ranks
its own way, so a launch with ``--dp-size`` above 1 is not judged here. The sizes are the parser's (a flag
the launch does not give is its release's default).

The SGLang router's launcher, ``python -m sglang_router.launch_server``, places data parallel replicas
itself: it starts every one of the ``--dp-size`` replicas on the node it runs on, each a copy of the same
server arguments with ``base_gpu_id = replica * tp_size`` and ``dp_size = 1`` (sglang-router 0.1.4
``sglang_router/launch_server.py:84-85``, 0.3.2 ``:92-93``). Given ``--nnodes`` above 1, every replica
of a node is the same node rank of the same rendezvous (RS067): the launcher's replicas are one node's.
"""

from __future__ import annotations

from argtrace.model import Evidence, LayerResult, Report

# the router launcher's code RS067 follows
ROUTER_SOURCE = (
    "sglang_router/launch_server.py launch_server_process (sglang-router 0.1.4:84-85, 0.3.2:92-93)"
)
# the engine's code this follows, for the finding's evidence
SOURCE = (
    "sglang/srt/entrypoints/engine.py _calculate_rank_ranges (0.5.10.post1:1225-1257, 0.5.23:2045-2077; "
    "0.4.2.post4:367-370)"
)


def rank_placement(report: Report) -> LayerResult:
    """RS071 for an SGLang launch over several nodes whose parallel sizes do not divide over them."""
    result = LayerResult()
    if report.framework.name != "sglang":
        return result
    nnodes = report.effective_int("nnodes")
    tp_size = report.effective_int("tp_size")
    pp_size = report.effective_int("pp_size")
    dp_size = report.effective_int("dp_size")
    if nnodes is None or nnodes < 2 or tp_size is None or tp_size < 1:
        return result
    pp_size = pp_size if pp_size is not None and pp_size >= 1 else 1
    if dp_size is not None and dp_size != 1:
        return result  # the data parallel controller's placement (module docstring)
    from argtrace.layers.rank_shares import _fix, _per_node_text, _ranks, _shares, place_ranks

    placement = place_ranks(nnodes, tp_size, pp_size)
    if not placement.missing and not placement.extra:
        return result
    setting = report.setting("tp_size")
    at = next((o.at for o in setting.history if o.at), None) if setting is not None else None
    sizes = f"--tp-size {tp_size}" + (f" x --pp-size {pp_size}" if pp_size > 1 else "")
    shares = _shares(placement, pp_size)
    if placement.missing:
        what = f"{_ranks(placement.missing, pp_size)} of the {tp_size * pp_size} ranks are started on no node"
    else:
        what = (
            f"nodes are given {_ranks(placement.extra, pp_size)}, which the group of {tp_size * pp_size} "
            "does not have"
        )
    from argtrace.rules.start_values import RS071

    result.findings.append(
        RS071.finding(
            f"{sizes} does not divide over --nnodes {nnodes}: SGLang starts {shares}, so {what}; the "
            "ranks that start wait for the others in torch.distributed's rendezvous until its timeout, and "
            "the server never comes up",
            at=at,
            evidence=[
                Evidence("parser", at, f"nnodes={nnodes}, tp_size={tp_size}, pp_size={pp_size}, dp_size=1"),
                Evidence("resolution", SOURCE, "ranks per node: " + _per_node_text(placement, pp_size)),
            ],
            setting="tp_size",
            fix=_fix(nnodes, tp_size, pp_size),
        )
    )
    return result


def router_replicas_over_nodes(report: Report, primary: int = 1) -> LayerResult:
    """RS067 for ``python -m sglang_router.launch_server`` with several DP replicas and several nodes."""
    result = LayerResult()
    index = primary - 1
    if report.framework.name != "sglang" or not 0 <= index < len(report.servers):
        return result
    entrypoint = report.servers[index].entrypoint or ""
    if not entrypoint.startswith("sglang_router."):  # sglang_router.py (imported only then) names it so
        return result
    from argtrace.frameworks.sglang_router import ENTRYPOINT

    if entrypoint != ENTRYPOINT:
        return result
    nnodes = report.effective_int("nnodes")
    dp_size = report.effective_int("dp_size")
    tp_size = report.effective_int("tp_size") or 1
    if nnodes is None or nnodes < 2 or dp_size is None or dp_size < 2:
        return result
    setting = report.setting("nnodes")
    at = next((o.at for o in setting.history if o.at), None) if setting is not None else None
    node_rank = report.effective_int("node_rank") or 0
    address = report.setting("dist_init_addr")
    rendezvous = f" --dist-init-addr {address.effective}" if address is not None and address.effective else ""
    gpus = ", ".join(
        f"{r * tp_size}-{(r + 1) * tp_size - 1}" if tp_size > 1 else str(r) for r in range(dp_size)
    )
    from argtrace.rules.start_values import RS067

    result.findings.append(
        RS067.finding(
            f"sglang_router.launch_server starts all --dp-size {dp_size} replicas on the node it runs on "
            f"(GPUs {gpus}: base_gpu_id = replica x tp-size {tp_size}), each with the same --nnodes "
            f"{nnodes} --node-rank {node_rank}{rendezvous}: the replicas of this node claim one node rank of "
            "one rendezvous instead of forming separate multi-node servers, so the launch cannot come up "
            "as intended (the launcher's data parallelism is one node's)",
            at=at,
            evidence=[
                Evidence("parser", at, f"dp_size={dp_size}, tp_size={tp_size}, nnodes={nnodes}"),
                Evidence(
                    "resolution", ROUTER_SOURCE, "server_args.base_gpu_id = dp_id * tp_size; dp_size = 1"
                ),
            ],
            setting="nnodes",
            fix="start each replica as its own server with `python -m sglang.launch_server` (on every node "
            "it spans, with its own --dist-init-addr) and put `python -m sglang_router.launch_router "
            "--worker-urls ...` in front of them; or drop --nnodes and run the launcher on one node with "
            "dp-size x tp-size GPUs",
        )
    )
    return result
