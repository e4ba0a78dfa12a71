"""Separate multi-node launches of one model in one file (``layers/multinode.py:grouped``), through the CLI.

Node starts are one launch when they share a rendezvous (``--dist-init-addr``, ``--data-parallel-address``,
a LeaderWorkerSet group); starts of the same model at another rendezvous are replicas, never ranks of one
launch. The shapes:
- two 2-node replicas of one model, each with its own ``--dist-init-addr`` (SGLang's multi-node docs,
  https://docs.sglang.ai/references/multi_node.html, started twice);
- SGLang prefill and decode groups of one model, each 2 nodes with its own ``--dist-init-addr`` (NVIDIA
  Dynamo's SGLang multinode example, ``--dist-init-addr ${HEAD_PREFILL_NODE_IP}:29500`` and the decode
  group's own head: https://docs.nvidia.com/dynamo/latest/backends/sglang/multinode-examples.html);
- two LeaderWorkerSets of one model (``$(LWS_LEADER_ADDRESS)`` is known only in the cluster: the group is
  the rendezvous).
A rendezvous argtrace cannot read (a command substitution) groups the starts by model only: what that finds
is information, with its basis.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from argtrace.layers.multinode import NodeStart, grouped, multinode_findings
from tests.conftest import run_cli
from tests.test_multinode import BARE_LWS

SG = "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-405B-Instruct --tp 16 --nnodes 2"
PD = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 16 --nnodes 2"


def _check(tmp_path: Path, name: str, text: str, *extra: str) -> dict[str, Any]:
    path = tmp_path / name
    path.write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *extra, str(path)])
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _ssh(tmp_path: Path, *node_commands: str) -> dict[str, Any]:
    lines = ["#!/bin/bash", *(f"ssh node{n} {c} &" for n, c in enumerate(node_commands)), "wait", ""]
    return _check(tmp_path, "nodes.sh", "\n".join(lines), "--framework-version", "0.5.10.post1")


def _pa03(report: dict[str, Any]) -> list[tuple[str, str, object, object]]:
    return [
        (f["code"], f["severity"], f["setting"], f["server"])
        for f in report["findings"]
        if str(f["code"]).startswith("PA03")
    ]


def _servers(report: dict[str, Any]) -> list[list[int]]:
    return [launch["servers"] for launch in (report.get("multinode") or {}).get("launches", [])]


TWO_REPLICAS = (
    f"{SG} --dist-init-addr 10.0.0.1:20000 --node-rank 0",
    f"{SG} --dist-init-addr 10.0.0.1:20000 --node-rank 1",
    f"{SG} --dist-init-addr 10.0.0.9:20000 --node-rank 0",
    f"{SG} --dist-init-addr 10.0.0.9:20000 --node-rank 1",
)


def test_two_replicas_of_one_model_at_their_own_rendezvous_are_two_clean_launches(tmp_path: Path) -> None:
    # before: PA030 on dist_init_addr, PA031 twice (ranks 0 and 1 "repeated") and PA032 "4 nodes for nnodes 2"
    report = _ssh(tmp_path, *TWO_REPLICAS)
    assert _pa03(report) == []
    assert _servers(report) == [[1, 2], [3, 4]]
    assert all("assumed" not in launch for launch in report["multinode"]["launches"])


def test_a_disagreement_inside_one_replica_still_fires_on_that_node(tmp_path: Path) -> None:
    nodes = list(TWO_REPLICAS)
    nodes[3] = nodes[3].replace("--tp 16", "--tp 8")
    report = _ssh(tmp_path, *nodes)
    assert _pa03(report) == [("PA030", "error", "tp_size", 4)]
    message = next(f["message"] for f in report["findings"] if f["code"] == "PA030")
    assert message == (
        "the 2 nodes of one multi-node launch disagree on tp_size: server 3 (<ssh node2>:1:1): 16, "
        "server 4 (<ssh node3>:1:1): 8"
    )


def test_a_repeated_rank_inside_one_replica_still_fires(tmp_path: Path) -> None:
    nodes = list(TWO_REPLICAS)
    nodes[1] = nodes[1].replace("--node-rank 1", "--node-rank 0")
    report = _ssh(tmp_path, *nodes)
    assert _pa03(report) == [("PA031", "error", "node_rank", 2)]
    message = next(f["message"] for f in report["findings"] if f["code"] == "PA031")
    assert message == "servers 1, 2 of one multi-node launch all have node_rank 0"


def test_sglang_prefill_and_decode_groups_each_with_its_own_head_are_clean(tmp_path: Path) -> None:
    report = _ssh(
        tmp_path,
        f"{PD} --disaggregation-mode prefill --dist-init-addr 10.1.0.1:29500 --node-rank 0",
        f"{PD} --disaggregation-mode prefill --dist-init-addr 10.1.0.1:29500 --node-rank 1",
        f"{PD} --disaggregation-mode decode --dist-init-addr 10.1.0.3:29500 --node-rank 0",
        f"{PD} --disaggregation-mode decode --dist-init-addr 10.1.0.3:29500 --node-rank 1",
    )
    assert _pa03(report) == []
    assert _servers(report) == [[1, 2], [3, 4]]


def test_a_wrong_rendezvous_on_one_node_is_a_warning_naming_rank_0_s_address(tmp_path: Path) -> None:
    # Two starts at different addresses whose ranks (0 and 1 of nnodes 2) are exactly one launch and that
    # agree on everything else: one launch with a mistyped address (sgl-project/sglang#3467), a warning that
    # rests on that reading (two replicas each started half here would look the same).
    report = _ssh(
        tmp_path,
        f"{SG} --dist-init-addr 10.0.0.1:20000 --node-rank 0",
        f"{SG} --dist-init-addr 10.0.0.2:20000 --node-rank 1",
    )
    assert _pa03(report) == [("PA030", "warning", "dist_init_addr", 2)]
    finding = next(f for f in report["findings"] if f["code"] == "PA030")
    assert (finding["message"], finding["fix"], finding["basis"]) == (
        "2 starts of meta-llama/Llama-3.1-405B-Instruct name different rendezvous (server(s) 1: "
        "dist_init_addr 10.0.0.1:20000; server(s) 2: dist_init_addr 10.0.0.2:20000), and their node ranks "
        "(0, 1) are exactly one launch of nnodes 2: every node must meet at rank 0's address "
        "(10.0.0.1:20000), so each waits at its own and the launch hangs",
        "give every node --dist-init-addr 10.0.0.1:20000, rank 0's (one variable the node commands share)",
        "assumed",
    )


def test_separate_rendezvous_whose_ranks_are_not_one_launch_stay_information(tmp_path: Path) -> None:
    # both rank 0: two launches each started half here, or replicas; argtrace cannot tell, so it says what it
    # sees as information
    report = _ssh(
        tmp_path,
        f"{SG} --dist-init-addr 10.0.0.1:20000 --node-rank 0",
        f"{SG} --dist-init-addr 10.0.0.2:20000 --node-rank 0",
    )
    assert _pa03(report) == [("PA030", "info", "dist_init_addr", 2)]
    message = next(f["message"] for f in report["findings"] if f["code"] == "PA030")
    assert message == (
        "2 launches of meta-llama/Llama-3.1-405B-Instruct meet at different rendezvous (server(s) 1: "
        "dist_init_addr 10.0.0.1:20000; server(s) 2: dist_init_addr 10.0.0.2:20000), and a launch starts "
        "fewer nodes than its nnodes here: read as separate launches; if they are one, every node must name "
        "the same rendezvous"
    )


def test_a_model_and_a_rendezvous_not_known_here_are_named_as_written(tmp_path: Path) -> None:
    # the model's unknown value read "null" in the message (fa26's Kimi K2 page)
    sg = SG.replace("meta-llama/Llama-3.1-405B-Instruct", '"$MODEL_PATH"')
    lines = [
        "#!/bin/bash",
        "MODEL_PATH=$(cat /etc/model)",
        f"{sg} --dist-init-addr 10.0.0.1:20000 --node-rank 0 &",
        f"{sg} --dist-init-addr 10.0.0.2:20000 --node-rank 0 &",
        "wait",
        "",
    ]
    report = _check(tmp_path, "two.sh", "\n".join(lines), "--framework-version", "0.5.10.post1")
    message = next(f["message"] for f in report["findings"] if f["code"] == "PA030")
    assert message.startswith(
        '2 launches of "$MODEL_PATH" meet at different rendezvous (server(s) 1: dist_init_addr '
        "10.0.0.1:20000; server(s) 2: dist_init_addr 10.0.0.2:20000)"
    )


VL = "vllm serve Qwen/Qwen3-30B-A3B --data-parallel-size 4 --data-parallel-size-local 2"
VL += " --data-parallel-rpc-port 13345"


def test_two_vllm_data_parallel_replicas_at_their_own_address_are_clean(tmp_path: Path) -> None:
    lines = [
        "#!/bin/bash",
        *(
            f"ssh {host}{n} {VL} --data-parallel-address {addr}{tail} &"
            for host, addr in (("a", "10.99.48.128"), ("b", "10.99.48.200"))
            for n, tail in enumerate(("", " --headless --data-parallel-start-rank 2"))
        ),
        "wait",
        "",
    ]
    report = _check(tmp_path, "dp.sh", "\n".join(lines), "--framework-version", "0.11.0")
    assert _pa03(report) == []
    assert _servers(report) == [[1, 2], [3, 4]]


def _second_lws(text: str, name: str = "sglang-b") -> str:
    return text.replace("  name: sglang\n", f"  name: {name}\n", 1)


def test_two_leaderworkersets_of_one_model_are_two_launches(tmp_path: Path) -> None:
    report = _check(tmp_path, "lws.yaml", BARE_LWS + "---\n" + _second_lws(BARE_LWS))
    assert _pa03(report) == []
    assert _servers(report) == [[1, 2], [3, 4]]
    assert [launch["columns"] for launch in report["multinode"]["launches"]] == [
        ["sglang/leader", "sglang/worker"],
        ["sglang-b/leader", "sglang-b/worker"],
    ]


def test_a_worker_of_the_second_leaderworkerset_with_another_tp_size_still_fires(tmp_path: Path) -> None:
    leader, marker, worker = _second_lws(BARE_LWS).partition("    workerTemplate:")
    worker = worker.replace('- --tp\n              - "16"', '- --tp\n              - "8"', 1)
    report = _check(tmp_path, "lws.yaml", BARE_LWS + "---\n" + leader + marker + worker)
    # tp 8 over the group's 2 pods needs 4 of each pod's 8 GPUs (PA036), and it is not the leader's 16
    assert _pa03(report) == [("PA036", "warning", "tp_size", 4), ("PA030", "error", "tp_size", 4)]


# A batch script whose rendezvous is a command substitution: argtrace reads no address, so the two starts
# are one launch only by assumption (same model, same unread text), and what it finds there is information.
UNREAD = """#!/bin/bash
#SBATCH --nodes=2
HEAD=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
srun -N1 -n1 {sg} --dist-init-addr $HEAD:20000 --node-rank 0 &
srun -N1 -n1 {sg} --dist-init-addr $HEAD:20000 --node-rank {rank} &
wait
"""


def test_ranks_of_a_grouping_by_model_alone_are_information_with_its_basis(tmp_path: Path) -> None:
    report = _check(tmp_path, "job.sh", UNREAD.format(sg=SG, rank=0), "--framework-version", "0.5.10.post1")
    pa031 = [f for f in report["findings"] if f["code"] == "PA031"]
    assert [(f["severity"], f["basis"], f["server"]) for f in pa031] == [("info", "assumed", 2)]
    basis = (
        "grouped by the model alone: dist_init_addr from $HEAD:20000 is not known statically (servers 1, 2)"
    )
    assert pa031[0]["message"] == (
        f"servers 1, 2 of one multi-node launch all have node_rank 0 (assumed one launch: {basis})"
    )
    assert report["multinode"]["launches"][0]["assumed"] == basis


def test_a_grouping_by_model_alone_with_its_ranks_in_order_says_nothing(tmp_path: Path) -> None:
    report = _check(tmp_path, "job.sh", UNREAD.format(sg=SG, rank=1), "--framework-version", "0.5.10.post1")
    assert [c for c, *_ in _pa03(report) if c in ("PA030", "PA031", "PA032")] == []


def _node(index: int, addr: str | None, rank: int, unread: str | None = None) -> NodeStart:
    values: dict[str, object] = {"model_path": "A", "nnodes": 2, "node_rank": rank, "tp_size": 16}
    given = set(values) | {"dist_init_addr"}
    if addr is not None:
        values["dist_init_addr"] = addr
    return NodeStart(
        index, f"n{index}", "sglang", values, frozenset(given),
        unread={"dist_init_addr": unread} if unread else {},
    )  # fmt: skip


def test_an_unread_rendezvous_joins_the_only_launch_of_its_model_as_an_assumption() -> None:
    nodes = [_node(1, "10.0.0.1:1", 0), _node(2, None, 0, "$HEAD:1")]
    [launch] = grouped(nodes)
    assert [n.index for n in launch.nodes] == [1, 2]
    assert launch.basis == (
        "joined to the launch of server(s) 1 by the model alone: dist_init_addr from $HEAD:1 is not known "
        "statically (server 2)"
    )
    assert [(f.code, f.severity, f.basis) for f in multinode_findings(nodes)] == [
        ("PA031", "info", "assumed")
    ]


def test_unread_rendezvous_with_different_text_are_separate_assumed_launches() -> None:
    nodes = [_node(1, None, 0, "$P:1"), _node(2, None, 1, "$P:1"), _node(3, None, 0, "$D:1"),
             _node(4, None, 1, "$D:1")]  # fmt: skip
    assert [[n.index for n in g.nodes] for g in grouped(nodes)] == [[1, 2], [3, 4]]
    assert [g.basis for g in grouped(nodes)] == [
        "grouped by the model and the same unread text: dist_init_addr from $P:1 is not known statically "
        "(servers 1, 2)",
        "grouped by the model and the same unread text: dist_init_addr from $D:1 is not known statically "
        "(servers 3, 4)",
    ]
    assert multinode_findings(nodes) == []


STEPS = """#!/bin/bash
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
srun -N1 -n1 -w gpu01 {sg} --dist-init-addr 10.0.0.1:20000 --node-rank 0 &
{second}
wait
"""


def test_one_srun_step_per_node_of_one_launch_is_no_allocation_error(tmp_path: Path) -> None:
    # each `srun -N1` starts one node; the two steps together give the launch its 2 nodes
    second = f"srun -N1 -n1 -w gpu02 {SG} --dist-init-addr 10.0.0.1:20000 --node-rank 1 &"
    text = STEPS.format(sg=SG, second=second)
    report = _check(tmp_path, "job.sh", text, "--framework-version", "0.5.10.post1")
    assert _pa03(report) == []
    assert _servers(report) == [[1, 2]]


def test_a_single_srun_step_of_one_node_for_nnodes_2_is_still_an_allocation_error(tmp_path: Path) -> None:
    report = _check(tmp_path, "job.sh", STEPS.format(sg=SG, second=""), "--framework-version", "0.5.10.post1")
    assert _pa03(report) == [("PA034", "error", "nnodes", 1)]
    message = next(f["message"] for f in report["findings"] if f["code"] == "PA034")
    assert message == (
        "srun starts the server on 1 node(s) but --nnodes is 2: the nodes that never start leave the "
        "rendezvous waiting"
    )


def test_the_text_matrix_says_what_an_assumed_launch_rests_on(tmp_path: Path) -> None:
    path = tmp_path / "job.sh"
    path.write_text(UNREAD.format(sg=SG, rank=0))
    result = run_cli(["check", "--no-resolve", "--framework-version", "0.5.10.post1", str(path)])
    assert result.status in (0, 1), result.stderr
    lines = result.stdout.splitlines()
    at = lines.index("Multi-node launch (sglang, servers 1, 2): 2 nodes")
    # the report wraps long lines to the terminal width
    assert " ".join(line.strip() for line in lines[at + 1 : at + 3]) == (
        "assumed one launch: grouped by the model alone: dist_init_addr from $HEAD:20000 is not known "
        "statically (servers 1, 2)"
    )
    assert lines[at + 3] == "  every setting is the same on every node"
