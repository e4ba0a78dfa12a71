"""What one start says about its own place in a multi-node launch: a node that names itself as the
rendezvous (PA045), a vLLM worker that gives no rank (PA046).

Every node of a multi-node launch meets the others at rank 0's address: SGLang's ``--dist-init-addr`` is
the TCP store rank 0 serves (``init_process_group`` in its model runner); vLLM's ``--master-addr`` with
``--node-rank`` (its multiproc executor) and ``--data-parallel-address`` of ``--headless`` ranks (the head's
handshake socket, vLLM's data parallel deployment guide) likewise. A start whose rank is not 0 and whose
address is the text ``$(hostname)``, ``$(hostname -i)``, ``$(hostname -I | ...)``, `` `hostname` `` or
``$HOSTNAME``, expanded by its own node's shell, names its own machine: it waits for a store or a head
that runs on another one, and the launch hangs at the rendezvous (sgl-project/sglang#3206).

It rests on one assumption, said in the finding: rank 0 runs on another machine (two ranks on one machine
meet at its name).

vLLM (0.33.0 ``EngineArgs.create_engine_config`` and ``entrypoints/cli/serve.py:run_headless``): a
``--headless`` start of a ``--nnodes`` launch is a worker node only with a ``--node-rank`` above 0 (its
``node_rank_within_dp`` then runs the multiproc executor's workers against ``--master-addr``); without
``--node-rank`` it is node 0, the head's place, and runs a headless data parallel engine that waits for a
front end (its log: "Inferred data_parallel_rank 0 from node_rank 0"). Each node of a file per node is
judged alone, so only the missing rank is read, never a rank written 0 (MiaAI-Lab/Qwen3.8-Flash-Next-Dual-
DGX-Sparks#48). Pure: takes ``NodeStart``s, returns findings.
"""

from __future__ import annotations

import re

from argtrace.layers.nodescope import as_int
from argtrace.layers.nodestart import NodeStart
from argtrace.model import Finding
from argtrace.rules import multinode as rules

# The node's own name or address, as a shell on that node expands it.
_OWN_HOST = re.compile(r"^(?:\$\(\s*hostname\b[^()]*\)|`\s*hostname\b[^`]*`|\$\{?HOSTNAME\}?)(?::[^:]*)?$")
# (address field, rank fields that place a node other than rank 0, or a flag that marks a worker)
_WHERE = {
    "sglang": (("dist_init_addr", ("node_rank",)),),
    "vllm": (
        ("master_addr", ("node_rank",)),
        ("data_parallel_address", ("data_parallel_start_rank", "data_parallel_rank", "headless")),
    ),
}
_FLAG = {
    "dist_init_addr": "--dist-init-addr",
    "master_addr": "--master-addr",
    "data_parallel_address": "--data-parallel-address",
    "node_rank": "--node-rank",
    "data_parallel_start_rank": "--data-parallel-start-rank",
    "data_parallel_rank": "--data-parallel-rank",
    "headless": "--headless",
}


def _worker(node: NodeStart, fields: tuple[str, ...]) -> str | None:
    """The rank flag (with its value) that makes this start a node other than rank 0, if any."""
    for name in fields:
        if name not in node.given:
            continue
        if name == "headless":
            if node.values.get(name) is True:
                return "--headless"
            continue
        rank = as_int(node.values.get(name))
        if rank is not None and rank > 0:
            return f"{_FLAG[name]} {rank}"
    return None


def headless_rank_findings(node: NodeStart) -> list[Finding]:
    """PA046 for one vLLM start."""
    nnodes = as_int(node.values.get("nnodes"))
    if node.framework != "vllm" or nnodes is None or nnodes < 2 or "nnodes" not in node.given:
        return []
    if node.values.get("headless") is not True:
        return []
    if {"node_rank", "data_parallel_rank", "data_parallel_start_rank"} & node.given:
        return []
    return [
        rules.PA_HEADLESS_WITHOUT_RANK.finding(
            f"--headless on a --nnodes {nnodes} start without --node-rank: vLLM takes node rank 0, the "
            "head's place, so this worker joins as a second rank 0 (its log says \"Inferred "
            'data_parallel_rank 0 from node_rank 0") and runs an engine that waits for a front end instead '
            "of the head's workers; the launch hangs at the rendezvous",
            at=node.at,
            setting="node_rank",
            fix="give the worker node --node-rank 1 (the head keeps 0)"
            if nnodes == 2
            else f"give each worker node its own --node-rank, 1 to {nnodes - 1} (the head keeps 0)",
            server=node.index,
            basis="assumed",  # the node is meant as a worker: a headless rank 0 is a layout of its own
        )
    ]


def own_host_findings(node: NodeStart) -> list[Finding]:
    """PA045 for one start."""
    for address, ranks in _WHERE.get(node.framework, ()):
        text = node.unread.get(address)
        if text is None:
            continue
        text = text.strip()
        if len(text) > 1 and text[0] == text[-1] == '"':
            text = text[1:-1]  # one double-quoted expansion: the same value
        if not _OWN_HOST.match(text):
            continue
        worker = _worker(node, ranks)
        if worker is None:
            continue
        host = re.sub(r":[^:)`}]*$", "", text)  # the port, if written
        return [
            rules.PA_OWN_HOST_RENDEZVOUS.finding(
                f"{_FLAG[address]} {text} on the node started with {worker}: the node's own shell "
                f"expands {host} to that node's own name, so it looks for rank 0's rendezvous on itself "
                "and waits there while rank 0 serves it on its own machine; the launch hangs until the "
                "distributed timeout",
                at=node.at,
                setting=address,
                server=node.index,
                basis="assumed",
            )
        ]
    return []
