"""Findings that read a launch's servers together: the starts of one multi-node launch (with a SLURM job's
allocation, ``srun`` steps or a LeaderWorkerSet group) and prefill/decode servers with their router.

``check.py`` calls these once every server of the file is parsed; each imports its layer
(``layers/multinode.py``, ``layers/disaggregation.py``) only when the launch has something for it, so a
plain single-server check loads neither (issue 18).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from argtrace.layers.separated import PredictedCommands
from argtrace.model import Finding, LayerResult, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.frameworks.schema import Schema
    from argtrace.layers.slurm import Allocation


def allocated_nodes(
    server: ServerCommand, step_nodes: int | None, allocation: Allocation | None
) -> tuple[int | None, str | None, bool]:
    """How many nodes the carrier gives this start's launch: an ``srun -N``, the batch job's ``--nodes``, or
    a LeaderWorkerSet group (the controller's LWS_GROUP_SIZE in the pod's environment)."""
    if step_nodes is not None:
        return step_nodes, f"srun starts the server on {step_nodes} node(s)", False
    if allocation is not None and allocation.nodes is not None:
        where = f" ({allocation.nodes_at})" if allocation.nodes_at else ""
        return allocation.nodes, f"the job allocates {allocation.nodes} node(s){where}", False
    group = server.env.get("LWS_GROUP_SIZE")
    if group is not None and group.value is not None and group.value.isdigit():
        size = int(group.value)
        return size, f"the LeaderWorkerSet group has {size} pod(s) (leaderWorkerTemplate.size)", True
    return None, None, False


def _field_defaults(schema: Schema) -> dict[str, Any]:
    """The release's defaults by configuration field; a new dict each call, made from the one kept in the
    schema instance (every check and fix re-check asks for the same ~500, issue 18)."""
    kept = schema.__dict__.get("_field_defaults")
    if kept is None:
        from argtrace.layers.parser import all_defaults

        names = schema.field_names
        kept = {names.get(dest, dest): value for dest, value in all_defaults(schema).items()}
        schema.__dict__["_field_defaults"] = kept
    return dict(kept)


def node_values(schema: Schema, result: LayerResult) -> tuple[dict[str, Any], set[str], dict[str, str]]:
    """A start's values as the multi-node layer reads them (by configuration field: the parser's known value,
    else the release's default; a value unknown statically is left out), the names its argv gives, and
    for each unknown one the shell text it comes from."""
    values = _field_defaults(schema)
    given = set()
    unread: dict[str, str] = {}
    for name, (_, observations) in result.observations.items():
        seen = [o for o in observations if o.layer == "parser"]
        if not seen:
            continue
        if seen[-1].known:
            values[name] = seen[-1].value
        else:
            values.pop(name, None)  # unknown statically: never compared
            # the text it comes from ("$HEAD:5000"), for the basis of a grouping that rests on it
            shell = [o.detail["expansion"] for o in observations if "expansion" in o.detail]
            if shell:
                unread[name] = str(shell[-1])
        given.add(name)
    return values, given, unread


def pd_findings_of(
    parsed: Sequence[tuple[int, ServerCommand, Schema, LayerResult]],
    commands: PredictedCommands,
    paths: Sequence[str | None] = (),
) -> list[Finding]:
    """The prefill/decode servers and the SGLang router the file starts, read together
    (``layers/disaggregation.py``); imported only when the file has a router or a PD setting. ``paths``
    (same order as ``commands``) is the PATH the shell layer predicts each command gets: the router's
    interpreter is looked up there, as a server's is (``frameworks/installed.py``); None: argtrace's own."""
    from argtrace.frameworks.router_words import router_argv

    routers = []
    for n, (at, argv, _) in enumerate(commands):
        words = router_argv(argv)
        if words is not None:
            from argtrace.frameworks import router_launch as rl  # only for a router (router_words.py)

            product = rl.router_product(argv)
            path = paths[n] if n < len(paths) else None
            looked_up = dict(os.environ) if path is None else {**os.environ, "PATH": path}
            found = rl.installed_router(argv, looked_up, product.replace("production-stack", "vllm-router"))
            if product == "vllm-router":
                # one command name, two routers: the console script or dist-info says which, else the words
                if rl.production_stack_router(argv, looked_up) is not None:
                    product = "production-stack"
                elif found is None:
                    product = rl.vllm_router_product(words)
            if product == "production-stack":
                found = None  # its dist-info version (setuptools_scm, no vllm-stack-X tag) names no release
            release = (
                rl.router_release(*found, product=product) if found else rl.router_release(product=product)
            )
            routers.append(rl.parse_router(words, at, release))
    marks = ("--disaggregation", "--kv-transfer-config", "--kv_transfer_config")
    if not routers and not any(
        (w or "").startswith(marks) for _, server, _, _ in parsed for w in server.argv_text
    ):
        return []
    from argtrace.layers.disaggregation import PdServer, pd_findings

    servers = []
    stops = stops_before_starts([server.at for _, server, _, _ in parsed], commands)
    for n, (index, server, schema, result) in enumerate(parsed):
        values, given, _ = node_values(schema, result)
        before = [(w or "").rsplit("/", 1)[-1] for w in server.argv_text[: server.server_args_start]]
        local = server.placement is None and server.image is None and "ssh" not in before
        at = server.at or ""
        machine = None
        if server.placement is None and server.image is None and server.conditional is None:
            if at.startswith("<ssh ") and ">" in at and not any(c in at[: at.find(">")] for c in "$`?*"):
                machine = at[: at.find(">") + 1]
            elif not at.startswith("<"):
                machine = "this machine"
        local = local and machine == "this machine"
        env = {k: v.value for k, v in server.env.items()}
        pd = PdServer(
            index,
            server.at,
            server.framework,
            values,
            frozenset(given),
            env,
            local,
            schema.version,
            server.entrypoint,
            machine,
            stops[n],
        )
        servers.append(pd)
    return pd_findings(servers, routers)


def draft_input_findings_of(
    parsed: Sequence[tuple[int, ServerCommand, Schema, LayerResult]], described: int, *, named: bool
) -> list[Finding]:
    """RS080 for the SGLang decode servers of PD disaggregation the file starts besides the one described
    (``layers/disagg_spec.py``; the described one is judged with its report); imported only for a file with
    a decode server beside it."""
    others = [
        (index, server, schema, result)
        for index, server, schema, result in parsed
        if index != described
        and server.framework == "sglang"
        and any((w or "").startswith("--disaggregation-mode") for w in server.argv_text)
    ]
    if not others:
        return []
    from argtrace.layers.disagg_spec import other_decode_servers

    servers = []
    for index, server, schema, result in others:
        values, given, _ = node_values(schema, result)
        servers.append((index, server.at, schema.version, values, frozenset(given)))
    return other_decode_servers(servers, named=named)


_STOPPERS = frozenset({"kill", "pkill", "killall"})


def _stops(argv: Sequence[str | None]) -> bool:
    """Whether a predicted command stops processes: kill/pkill/killall, `xargs [opts] kill`, `fuser -k`,
    `docker stop|kill|rm`."""
    words = [(w or "").rsplit("/", 1)[-1] for w in argv]
    if not words:
        return False
    if words[0] in _STOPPERS:
        return not _signal_zero(words[1:])
    if words[0] == "xargs":
        at = next((n for n, w in enumerate(words) if w in _STOPPERS), None)
        return at is not None and not _signal_zero(words[at + 1 :])
    if words[0] == "fuser":
        return any(w.startswith("-") and not w.startswith("--") and "k" in w for w in words[1:])
    return words[0] == "docker" and len(words) > 1 and words[1] in ("stop", "kill", "rm")


def _signal_zero(args: Sequence[str]) -> bool:
    """`kill -0 PID` / `kill -s 0` only asks whether the process lives; `kill -l` lists signals."""
    pairs = zip(args, [*args[1:], ""], strict=True)
    return any(a in ("-0", "-l", "-L", "-s0") or (a == "-s" and b == "0") for a, b in pairs)


def stops_before_starts(starts: Sequence[str | None], commands: PredictedCommands) -> list[tuple[str, ...]]:
    """For each server start (its ``at``, in the order the file runs them), where the file ran a command
    that stops processes before it. The predicted commands are in the order the shell runs them, and a
    function called twice yields its start twice, so starts are matched in turn; a start not found among
    them (a child shell's, a manifest's) and every later one get the stops seen so far."""
    out: list[tuple[str, ...]] = []
    seen: list[str] = []
    for at, argv, _ in commands:
        if len(out) < len(starts) and at == starts[len(out)]:
            out.append(tuple(seen))
        elif _stops(argv):
            seen.append(at)
    if len(out) < len(starts):  # not every start found in order: which stops lie between is not known
        return [()] * len(starts)
    return out


def multinode_findings_of(
    parsed: Sequence[tuple[int, ServerCommand, Schema, LayerResult]], allocation: Allocation | None = None
) -> tuple[list[Finding], dict[str, Any] | None]:
    """The starts of one multi-node launch read together (``layers/multinode.py``), with the SLURM job's
    allocation and ``srun`` steps when the script is a batch script."""
    from argtrace.layers.nodescope import is_carried, is_multinode

    if len(parsed) == 1 and allocation is None:
        # One start that is not multi-node and that no carrier places: the multi-node layer would find
        # nothing and show no matrix (layers/nodescope.py says why), so it is not imported (issue 18).
        _, server, schema, result = parsed[0]
        values, given, _ = node_values(schema, result)
        if not is_carried(server) and not is_multinode(server.framework, values, given):
            return [], None
    from collections import Counter

    from argtrace.layers.multinode import NodeStart, matrix_section, multinode_findings
    from argtrace.layers.nodeplaces import carrier_fields, ray_over_the_job
    from argtrace.layers.slurm import srun_step
    from argtrace.model import Placement

    nodes = []
    # servers started by one container (a script that starts two) share its GPUs
    by_pod: Counter[Placement | None] = Counter(s.placement for _, s, _, _ in parsed if s.placement)
    for index, server, schema, result in parsed:
        values, given, unread = node_values(schema, result)
        step = srun_step(server.argv_text[: server.server_args_start], allocation)
        allocated, what, exact = allocated_nodes(server, step.nodes if step else None, allocation)
        nodes.append(
            NodeStart(
                index,
                server.at,
                server.framework,
                values,
                frozenset(given),
                server.image,
                tasks=step.tasks if step else None,
                allocated_nodes=allocated,
                allocation=what,
                allocation_exact=exact,
                allocation_step=step is not None and step.nodes is not None,
                unread=unread,
                **carrier_fields(
                    server,
                    step,
                    allocation,
                    by_pod[server.placement] or 1,
                    ray_over_the_job(server, values, step, allocation),
                ),
            )
        )
    return multinode_findings(nodes), matrix_section(nodes)


# a vLLM start giving one of these may select a data parallel load-balancing mode, or be judged beside one
_DP_MODE_FLAGS = frozenset(
    {
        "data_parallel_start_rank",
        "data_parallel_rank",
        "data_parallel_external_lb",
        "data_parallel_hybrid_lb",
        "api_server_count",
        "headless",
    }
)


def dp_mode_findings_of(parsed: Sequence[tuple[int, ServerCommand, Schema, LayerResult]]) -> list[Finding]:
    """PA054 for the vLLM data parallel starts of the file, each by the release that parsed it
    (``layers/dp_mode.py``)."""
    starts = []
    for index, server, schema, result in parsed:
        if server.framework != "vllm" or schema.framework != "vllm":
            continue
        values, given, _ = node_values(schema, result)
        if not _DP_MODE_FLAGS & given:
            continue
        starts.append((index, server.at, schema.version, values, frozenset(given)))
    if not starts:
        return []  # the table is read only for a start that could be judged
    from argtrace.layers.dp_mode import DpStart, dp_mode_findings

    return dp_mode_findings([DpStart(*start) for start in starts])


def interface_findings_of(parsed: Sequence[tuple[int, ServerCommand, Schema, LayerResult]]) -> list[Finding]:
    """TP030 for each server's network interface variables (``layers/socket_ifname.py``); one value set once
    and read by several starts (a script's export, a pod template read per ordinal) is one finding."""
    from argtrace.layers.socket_ifname import interface_findings

    findings: list[Finding] = []
    for index, server, _, _ in parsed:
        for finding in interface_findings(server.env, index, server.at):
            if not any(f.message == finding.message and f.at == finding.at for f in findings):
                findings.append(finding)
    return findings


def shared_gpu_findings_of(
    parsed: Sequence[tuple[int, ServerCommand, Schema, LayerResult]], release: str | None
) -> list[Finding]:
    """MM013: vLLM servers of one launch started on the same GPU while earlier ones run
    (``layers/memory/shared_gpu.py``); a launch of one vLLM server imports nothing."""
    if sum(1 for _, server, _, _ in parsed if server.framework == "vllm") < 2:
        return []
    from argtrace.layers.memory.shared_gpu import GpuShare, shared_gpu_findings

    shares = [
        GpuShare(index, server, node_values(schema, result)[0]) for index, server, schema, result in parsed
    ]
    return shared_gpu_findings(shares, release)
