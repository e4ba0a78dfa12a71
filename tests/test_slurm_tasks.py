"""Several tasks per node of one server under SLURM (``layers/multinode.py`` ``_task_findings``, the GPUs per
node and PA034 counting tasks; ``layers/slurm.py`` sets each task's ``SLURM_STEP_NUM_TASKS``/``NODES``).

What each task is follows the frameworks' documented launches: one ``sglang.launch_server`` is one node of
the launch (``--nnodes``/``--node-rank``), so a step of T tasks started as the nodes of one launch is T
SGLang nodes; vLLM's external load balancing starts every data parallel rank as its own ``vllm serve ...
--data-parallel-rank N`` (https://docs.vllm.ai/en/latest/serving/data_parallel_deployment/, "External Load
Balancing"). Each task needs its own GPUs. The scripts are reconstructions of those shapes (not copies):
SGLang's SLURM example with the rank read inside each task
(https://github.com/sgl-project/sglang/pull/36116), here with two tasks per node, and the vLLM docs'
per-rank commands carried by one ``srun`` step, each task with GPUs of its own (the guide gives
co-located ranks their own ``CUDA_VISIBLE_DEVICES``; ``srun --gpus-per-task`` does so per task).
srun's per-task variables follow srun(1), OUTPUT
ENVIRONMENT VARIABLES (SLURM_PROCID 0..tasks-1, SLURM_NODEID the node's index, SLURM_LOCALID the rank on
the node; block distribution).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

SGLANG = """#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node=2
#SBATCH --gpus-per-node=8

srun --gpus-per-task=4 bash -c 'python3 -m sglang.launch_server \\
    --model-path meta-llama/Llama-3.1-70B-Instruct --tp 16 \\
    --dist-init-addr 10.0.0.1:5000 --nnodes 4 --node-rank "$SLURM_PROCID"' &
wait
"""
VLLM = """#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --gpus-per-node=4

srun --gpus-per-task=2 bash -c 'vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 2 \\
    --data-parallel-size 4 --data-parallel-rank $SLURM_PROCID --data-parallel-address 10.0.0.1 \\
    --data-parallel-rpc-port 13345 \\
    --port $((8000 + SLURM_LOCALID))'
"""
SHAPE = "srun starts 4 task(s), 2 on each of 2 node(s), and each takes"


def _check(tmp_path: Path, text: str, release: str) -> dict[str, Any]:
    script = tmp_path / "job.slurm"
    script.write_text(text)
    result = run_cli(
        ["check", "--format", "json", "--no-resolve", "--framework-version", release, str(script)]
    )
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _judged(report: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    return [(f["code"], f["setting"], f["message"]) for f in report["findings"] if f["severity"] != "info"]


def _sglang(tmp_path: Path, text: str = SGLANG) -> list[tuple[str, str | None, str]]:
    return _judged(_check(tmp_path, text, "0.5.10.post1"))


def test_two_sglang_nodes_per_machine_each_its_own_rank(tmp_path: Path) -> None:
    # 4 tasks are the 4 nodes of the launch; each needs 16/4 = 4 GPUs of its own, 2 x 4 = 8 per machine
    assert _sglang(tmp_path) == []


def test_two_sglang_nodes_on_a_machine_without_gpus_of_their_own(tmp_path: Path) -> None:
    assert _sglang(tmp_path, SGLANG.replace("srun --gpus-per-task=4 bash", "srun bash")) == [
        (
            "PA039",
            "base_gpu_id",
            "srun starts 2 tasks of this SGLang launch on each node (node_rank from $SLURM_PROCID) and each "
            "sees the node's GPUs (no CUDA_VISIBLE_DEVICES of its own, no srun --gpus-per-task or "
            "--gpu-bind): every task takes GPUs 0-3 from --base-gpu-id 0, so ranks of one launch meet on one "
            'GPU and NCCL stops ("Duplicate GPU detected")',
        )
    ]
    # or each task picks its own: SGLang's --base-gpu-id from the task's rank on the node
    own = SGLANG.replace("srun --gpus-per-task=4 bash", "srun bash").replace(
        "--node-rank", "--base-gpu-id $((SLURM_LOCALID * 4)) --node-rank"
    )
    assert _sglang(tmp_path, own) == []


def test_the_tasks_of_one_machine_share_slurm_nodeid(tmp_path: Path) -> None:
    assert _sglang(tmp_path, SGLANG.replace("$SLURM_PROCID", "$SLURM_NODEID")) == [
        (
            "PA031",
            "node_rank",
            f"{SHAPE} node_rank from $SLURM_NODEID: the 2 tasks of a node share its SLURM_NODEID, so "
            "node_rank 0, 1 each go to 2 tasks",
        )
    ]


def test_more_tasks_than_nnodes(tmp_path: Path) -> None:
    assert _sglang(tmp_path, SGLANG.replace("--nnodes 4", "--nnodes 2").replace("--tp 16", "--tp 8")) == [
        (
            "PA032",
            "node_rank",
            f"{SHAPE} node_rank from $SLURM_PROCID: the ranks run to 3 but nnodes is 2, so the tasks with "
            "node_rank 2 and up never join",
        )
    ]


def test_fewer_tasks_than_nnodes(tmp_path: Path) -> None:
    assert _sglang(tmp_path, SGLANG.replace("--nnodes 4", "--nnodes 8")) == [
        (
            "PA034",
            "nnodes",
            "srun starts 4 task(s), 2 on each of 2 node(s), but --nnodes is 8: the nodes that never start "
            "leave the rendezvous waiting",
        )
    ]


def test_two_tasks_that_each_need_the_whole_machine(tmp_path: Path) -> None:
    assert _sglang(tmp_path, SGLANG.replace("--tp 16", "--tp 32")) == [
        (
            "PA036",
            "tp_size",
            "each node needs 16 GPU(s) (tp_size 32 x pp_size 1 over nnodes 4, for each of the 2 tasks srun "
            f"starts per node) but gets 8: the job gives each node 8 ({tmp_path / 'job.slurm'}:4)",
        )
    ]


def test_a_start_only_some_tasks_make_is_judged_as_an_assumption(tmp_path: Path) -> None:
    text = (
        SGLANG.replace("--ntasks-per-node=2", "--ntasks-per-node=8")
        .replace("--nnodes 4", "--nnodes 2")
        .replace("bash -c 'python3", 'bash -c \'if [ "$SLURM_LOCALID" = 0 ]; then python3')
        .replace('"$SLURM_PROCID"\'', '"$SLURM_NODEID"; fi\'')
    )
    report = _check(tmp_path, text, "0.5.10.post1")
    assert _judged(report) == []
    assumed = [(f["code"], f["severity"]) for f in report["findings"] if f["basis"] == "assumed"]
    assert assumed == [("PA031", "info"), ("PA036", "info")]
    (pa031,) = [f for f in report["findings"] if f["code"] == "PA031"]
    assert pa031["message"].endswith(
        "(assumed: every task starts the server; the script also reads $SLURM_LOCALID)"
    )


def test_vllm_data_parallel_ranks_one_per_task(tmp_path: Path) -> None:
    assert _judged(_check(tmp_path, VLLM, "0.11.0")) == []


def test_vllm_ranks_past_the_data_parallel_size(tmp_path: Path) -> None:
    text = VLLM.replace("--data-parallel-size 4", "--data-parallel-size 2")
    assert _judged(_check(tmp_path, text, "0.11.0")) == [
        (
            "PA032",
            "data_parallel_rank",
            f"{SHAPE} data_parallel_rank from $SLURM_PROCID: the ranks run to 3 but data_parallel_size is 2, "
            "so the tasks with data_parallel_rank 2 and up never join",
        )
    ]


def test_vllm_ranks_that_need_more_gpus_than_the_machine_has(tmp_path: Path) -> None:
    text = VLLM.replace("--tensor-parallel-size 2", "--tensor-parallel-size 4")
    assert _judged(_check(tmp_path, text, "0.11.0")) == [
        (
            "PA036",
            "tensor_parallel_size",
            "each node needs 8 GPU(s) (tensor_parallel_size 4 x pipeline_parallel_size 1, for each of the 2 "
            f"tasks srun starts per node) but gets 4: the job gives each node 4 ({tmp_path / 'job.slurm'}:4)",
        )
    ]


def test_vllm_ranks_of_one_node_without_gpus_of_their_own(tmp_path: Path) -> None:
    # a --data-parallel-rank process is one engine, local DP rank 0: on the first tp x pp GPUs it sees
    text = VLLM.replace("srun --gpus-per-task=2 bash", "srun bash")
    assert _judged(_check(tmp_path, text, "0.11.0")) == [
        (
            "PA039",
            "data_parallel_rank",
            "srun starts 2 vLLM data parallel ranks on each node (data_parallel_rank from $SLURM_PROCID) and "
            "each sees the node's GPUs (no CUDA_VISIBLE_DEVICES of its own, no srun --gpus-per-task or "
            "--gpu-bind): a --data-parallel-rank process runs one engine as local DP rank 0, so every rank "
            "of a node takes GPUs 0-1 and they load the model on the same GPUs "
            "(vLLM's data parallel deployment guide gives co-located ranks their own CUDA_VISIBLE_DEVICES)",
        )
    ]
    # each task's own devices, as the guide writes them
    devices = "CUDA_VISIBLE_DEVICES=$((SLURM_LOCALID * 2)),$((SLURM_LOCALID * 2 + 1))"
    own = text.replace("bash -c 'vllm serve", f"bash -c '{devices} vllm serve")
    assert _judged(_check(tmp_path, own, "0.11.0")) == []
