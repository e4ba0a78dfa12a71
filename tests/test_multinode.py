"""Multi-node launches read together (``layers/multinode.py``, rules PA030-PA032), through the real CLI.

The correct launches follow the frameworks' own multi-node documentation (reconstructed, not copied):
- SGLang, two nodes with ``--tp 16 --dist-init-addr ADDR --nnodes 2 --node-rank 0|1``:
  https://docs.sglang.ai/references/multi_node.html (Llama 3.1 405B on two nodes)
- vLLM, data parallel across two nodes, the second ``--headless --data-parallel-start-rank 2``:
  https://docs.vllm.ai/en/latest/serving/data_parallel_deployment.html
"""

from __future__ import annotations

import json
from pathlib import Path

from argtrace.layers.multinode import NodeStart, launches, multinode_findings
from tests.conftest import run_cli

SG = "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-405B-Instruct --tp 16"
RENDEZVOUS = "--dist-init-addr 172.16.4.52:20000 --nnodes 2"
VL = "vllm serve Qwen/Qwen3-30B-A3B --data-parallel-size 4 --data-parallel-size-local 2"
VL_HEAD = "--data-parallel-address 10.99.48.128 --data-parallel-rpc-port 13345"


def _findings(tmp_path: Path, *node_commands: str, version: str = "0.5.10.post1") -> list[dict[str, object]]:
    lines = ["#!/bin/bash", *(f"ssh node{n} {c} &" for n, c in enumerate(node_commands)), "wait", ""]
    script = tmp_path / "nodes.sh"
    script.write_text("\n".join(lines))
    result = run_cli(
        ["check", "--format", "json", "--no-resolve", "--framework-version", version, str(script)]
    )
    assert result.status in (0, 1), result.stderr
    findings = json.loads(result.stdout)["findings"]
    return [f for f in findings if str(f["code"]).startswith("PA03")]


def test_the_documented_sglang_two_node_launch_agrees(tmp_path: Path) -> None:
    assert _findings(tmp_path, f"{SG} {RENDEZVOUS} --node-rank 0", f"{SG} {RENDEZVOUS} --node-rank 1") == []


def test_a_node_with_another_tp_size_is_one_error_on_that_node(tmp_path: Path) -> None:
    other = SG.replace("--tp 16", "--tp 8")
    findings = _findings(tmp_path, f"{SG} {RENDEZVOUS} --node-rank 0", f"{other} {RENDEZVOUS} --node-rank 1")
    assert [(f["code"], f["severity"], f["setting"], f["server"], f["at"]) for f in findings] == [
        ("PA030", "error", "tp_size", 2, "<ssh node1>:1:1")
    ]
    assert findings[0]["message"] == (
        "the 2 nodes of one multi-node launch disagree on tp_size: server 1 (<ssh node0>:1:1): 16, "
        "server 2 (<ssh node1>:1:1): 8"
    )


def test_a_forgotten_node_rank_repeats_rank_zero(tmp_path: Path) -> None:
    findings = _findings(tmp_path, f"{SG} {RENDEZVOUS} --node-rank 0", f"{SG} {RENDEZVOUS}")
    assert [(f["code"], f["setting"], f["server"]) for f in findings] == [("PA031", "node_rank", 2)]
    assert findings[0]["message"] == (
        "servers 1, 2 of one multi-node launch all have node_rank 0 (server 2 gives none: the default is 0)"
    )


def test_a_rank_at_nnodes_never_joins(tmp_path: Path) -> None:
    findings = _findings(tmp_path, f"{SG} {RENDEZVOUS} --node-rank 0", f"{SG} {RENDEZVOUS} --node-rank 2")
    assert [(f["code"], f["server"]) for f in findings] == [("PA032", 2)]
    assert findings[0]["message"] == (
        "server 2 has node_rank 2, but nnodes is 2: ranks run from 0 to 1, so this node never joins"
    )


def test_more_nodes_than_nnodes(tmp_path: Path) -> None:
    findings = _findings(
        tmp_path, *(f"{SG} {RENDEZVOUS} --node-rank {r}" for r in (0, 1, 1)),
    )  # fmt: skip
    assert [(f["code"], f["setting"]) for f in findings] == [("PA031", "node_rank"), ("PA032", "nnodes")]
    assert findings[1]["message"] == "3 nodes are started for nnodes 2"


def test_one_script_per_node_is_not_judged_for_the_nodes_it_does_not_start(tmp_path: Path) -> None:
    assert _findings(tmp_path, f"{SG} {RENDEZVOUS} --node-rank 1") == []


def test_a_default_against_an_explicit_value_disagrees(tmp_path: Path) -> None:
    findings = _findings(
        tmp_path, f"{SG} {RENDEZVOUS} --node-rank 0 --dtype bfloat16", f"{SG} {RENDEZVOUS} --node-rank 1"
    )
    assert [(f["code"], f["setting"], f["server"]) for f in findings] == [("PA030", "dtype", 2)]
    assert findings[0]["message"].endswith(
        "server 1 (<ssh node0>:1:1): bfloat16, server 2 (<ssh node1>:1:1): auto (default)"
    )


def test_the_documented_vllm_data_parallel_launch_agrees(tmp_path: Path) -> None:
    head, worker = f"{VL} {VL_HEAD}", f"{VL} {VL_HEAD} --headless --data-parallel-start-rank 2"
    assert _findings(tmp_path, head, worker, version="0.33.0") == []


def test_a_vllm_worker_with_another_tensor_parallel_size(tmp_path: Path) -> None:
    head = f"{VL} {VL_HEAD}"
    worker = f"{VL} {VL_HEAD} --headless --data-parallel-start-rank 2 --tensor-parallel-size 2"
    findings = _findings(tmp_path, head, worker, version="0.33.0")
    assert [(f["code"], f["setting"], f["server"]) for f in findings] == [
        ("PA030", "tensor_parallel_size", 2)
    ]


def test_nodes_from_different_images(tmp_path: Path) -> None:
    docker = "docker run --gpus all --network host lmsysorg/sglang:{tag} "
    findings = _findings(
        tmp_path,
        docker.format(tag="v0.5.10.post1") + f"{SG} {RENDEZVOUS} --node-rank 0",
        docker.format(tag="v0.5.19") + f"{SG} {RENDEZVOUS} --node-rank 1",
    )
    assert [(f["code"], f["setting"], f["server"]) for f in findings] == [("PA030", "image", 2)]
    assert findings[0]["message"] == (
        "the nodes of one multi-node launch run different images: server 1: lmsysorg/sglang:v0.5.10.post1, "
        "server 2: lmsysorg/sglang:v0.5.19"
    )


def _node(index: int, model: str, addr: str, rank: int) -> NodeStart:
    values = {"model_path": model, "dist_init_addr": addr, "nnodes": 2, "node_rank": rank, "tp_size": 16}
    return NodeStart(index, f"n{index}", "sglang", values, frozenset(values))


def test_two_launches_in_one_file_are_judged_apart() -> None:
    nodes = [_node(1, "A", "10.0.0.1:1", 0), _node(2, "A", "10.0.0.1:1", 1), _node(3, "B", "10.0.0.9:1", 0),
             _node(4, "B", "10.0.0.9:1", 1)]  # fmt: skip
    assert [[n.index for n in g] for g in launches(nodes)] == [[1, 2], [3, 4]]
    assert multinode_findings(nodes) == []


def test_a_wrong_rendezvous_on_one_node_is_not_a_disagreement_inside_one_launch() -> None:
    # another address is another launch (a replica); that each starts fewer nodes than nnodes is worth saying,
    # but not as an error: the other half of each may be started elsewhere (tests/test_multinode_replicas.py).
    # Ranks 0 and 1 of nnodes 2 that agree on all else read as one launch split by its address: a warning
    # with basis assumed; ranks 0 and 0 stay information.
    nodes = [_node(1, "A", "10.0.0.1:1", 0), _node(2, "A", "10.0.0.2:1", 1)]
    assert [[n.index for n in g] for g in launches(nodes)] == [[1], [2]]
    findings = multinode_findings(nodes)
    assert [(f.code, f.severity, f.setting, f.server, f.basis) for f in findings] == [
        ("PA030", "warning", "dist_init_addr", 2, "assumed")
    ]
    twice = [_node(1, "A", "10.0.0.1:1", 0), _node(2, "A", "10.0.0.2:1", 0)]
    assert [(f.code, f.severity) for f in multinode_findings(twice)] == [("PA030", "info")]


def test_a_value_unknown_statically_is_never_compared() -> None:
    known = _node(1, "A", "10.0.0.1:1", 0)
    unknown = NodeStart(
        2, "n2", "sglang", {"model_path": "A", "nnodes": 2}, frozenset({"model_path", "nnodes"})
    )
    assert multinode_findings([known, unknown]) == []


# SGLang's LeaderWorkerSet manifest (docs/references/deploy_on_k8s.md, RoCE case), as the false-alarm gate
# keeps it; the variants below change one thing in it.
LWS = Path(__file__).parent / "data" / "false_alarms" / "k8s" / "sglang_lws_roce.yaml"


def _lws_findings(tmp_path: Path, text: str) -> list[tuple[str, str | None, object, str]]:
    manifest = tmp_path / "lws.yaml"
    manifest.write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", str(manifest)])
    assert result.status in (0, 1), result.stderr
    findings = json.loads(result.stdout)["findings"]
    return [
        (f["code"], f["setting"], f["server"], f["message"])
        for f in findings
        if f["severity"] != "info" or str(f["code"]).startswith("PA03")
    ]


def _templates(text: str) -> tuple[str, str]:
    leader, marker, worker = text.partition("    workerTemplate:")
    return leader, marker + worker


def test_the_lws_group_size_reaches_nnodes_on_both_templates(tmp_path: Path) -> None:
    assert _lws_findings(tmp_path, LWS.read_text().replace("size: 2", "size: 4")) == []


def test_an_lws_worker_template_with_another_tp_size(tmp_path: Path) -> None:
    leader, worker = _templates(LWS.read_text())
    worker = worker.replace('- --tp\n              - "16"', '- --tp\n              - "8"', 1)
    assert worker != _templates(LWS.read_text())[1]
    findings = _lws_findings(tmp_path, leader + worker)
    assert [(code, setting, server) for code, setting, server, _ in findings] == [("PA030", "tp_size", 2)]


def test_an_lws_size_that_is_not_the_hard_coded_nnodes_is_one_finding(tmp_path: Path) -> None:
    text = LWS.read_text().replace("size: 2", "size: 4").replace("- $(LWS_GROUP_SIZE)", '- "2"')
    findings = _lws_findings(tmp_path, text)
    assert findings == [
        (
            "PA034",
            "nnodes",
            1,
            "the LeaderWorkerSet group has 4 pod(s) (leaderWorkerTemplate.size) but --nnodes is 2: 2 pod(s) "
            "start a server that has no rank to join",
        )
    ]


# A LeaderWorkerSet whose containers take the controller's variables as they are (no env of their own):
# LWS_GROUP_SIZE is the size, LWS_WORKER_INDEX 0 in the leader and each worker's own in the workers.
BARE_LWS = """apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: sglang
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
          - name: sglang-leader
            image: lmsysorg/sglang:v0.5.10.post1
            command: ["python3", "-m", "sglang.launch_server"]
            args:
              - --model-path
              - deepseek-ai/DeepSeek-R1
              - --tp
              - "16"
              - --dist-init-addr
              - $(LWS_LEADER_ADDRESS):20000
              - --nnodes
              - $(LWS_GROUP_SIZE)
              - --node-rank
              - $(LWS_WORKER_INDEX)
              - --trust-remote-code
            resources:
              limits:
                nvidia.com/gpu: "8"
    workerTemplate:
      spec:
        containers:
          - name: sglang-worker
            image: lmsysorg/sglang:v0.5.10.post1
            command: ["python3", "-m", "sglang.launch_server"]
            args:
              - --model-path
              - deepseek-ai/DeepSeek-R1
              - --tp
              - "16"
              - --dist-init-addr
              - $(LWS_LEADER_ADDRESS):20000
              - --nnodes
              - $(LWS_GROUP_SIZE)
              - --node-rank
              - $(LWS_WORKER_INDEX)
              - --trust-remote-code
            resources:
              limits:
                nvidia.com/gpu: "8"
"""


def test_the_lws_controller_variables_have_the_values_lws_defines(tmp_path: Path) -> None:
    manifest = tmp_path / "lws.yaml"
    manifest.write_text(BARE_LWS)
    result = run_cli(["check", "--format", "json", "--no-resolve", str(manifest)])
    report = json.loads(result.stdout)
    leader, worker = (s["argv"] for s in report["servers"])
    assert leader[leader.index("--nnodes") + 1 :][:3] == ["2", "--node-rank", "0"]
    assert worker[worker.index("--nnodes") + 1 :][:3] == ["2", "--node-rank", None]
    assert [f["code"] for f in report["findings"] if f["severity"] != "info"] == []
