"""SLURM batch scripts (``layers/slurm.py``; rules PA033, PA034), unit by unit and through the real CLI.

The real case: SGLang's multi-node docs gained a SLURM example in
https://github.com/sgl-project/sglang/pull/3379 whose ``srun ... --node-rank "$SLURM_NODEID"`` line is
expanded once by the batch shell; https://github.com/sgl-project/sglang/pull/36116 explains that "both
launches can therefore receive the same node rank" and evaluates the rank inside each ``srun`` task instead.
Both scripts below are reconstructions of those shapes (not copies). The batch shell's variables follow
sbatch(1)/srun(1) OUTPUT ENVIRONMENT VARIABLES.
"""

from __future__ import annotations

import json
from pathlib import Path

from argtrace.layers.slurm import (
    Allocation,
    batch_directives,
    batch_environment,
    parse_options,
    srun_step,
)
from tests.conftest import run_cli

HEADER = """#!/bin/bash -l
#SBATCH -J llama405b
#SBATCH -N 2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
#SBATCH --time=04:00:00

model=meta-llama/Llama-3.1-405B-Instruct
head_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
export NCCL_INIT_ADDR="${head_node}:8000"
"""
# The docs' shape (PR 3379): the rank on the srun line itself.
ONE_ARGV = (
    HEADER
    + """srun --ntasks=2 --nodes=2 --output="logs/%x_%j_node$SLURM_NODEID.out" \\
    python3 -m sglang.launch_server --model-path "$model" --tp 16 \\
    --dist-init-addr 10.0.0.1:8000 --nnodes 2 --node-rank "$SLURM_NODEID" &
wait
"""
)
# The fix's shape (PR 36116): each task expands its own rank.
PER_TASK = (
    HEADER
    + """srun --ntasks=2 --nodes=2 bash -c \\
    'python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-405B-Instruct --tp 16 \\
    --dist-init-addr 10.0.0.1:8000 --nnodes 2 --node-rank "$SLURM_PROCID"' &
wait
"""
)


def _check(tmp_path: Path, text: str) -> dict[str, object]:
    script = tmp_path / "job.slurm"
    script.write_text(text)
    result = run_cli(
        ["check", "--format", "json", "--no-resolve", "--framework-version", "0.5.10.post1", str(script)]
    )
    assert result.status in (0, 1), result.stderr
    report: dict[str, object] = json.loads(result.stdout)
    return report


def _serious(report: dict[str, object]) -> list[tuple[str, str]]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return [(f["code"], f["message"]) for f in findings if f["severity"] != "info"]


def test_the_rank_on_the_srun_line_is_the_same_on_every_node(tmp_path: Path) -> None:
    report = _check(tmp_path, ONE_ARGV)
    assert _serious(report) == [
        (
            "PA033",
            "srun starts this server as 2 tasks with one argv, expanded once by the batch shell: every task "
            "gets node_rank 0",
        )
    ]
    assert report["slurm"] == {
        "at": f"{tmp_path / 'job.slurm'}:2",
        "nodes": 2,
        "ntasks": None,
        "ntasks_per_node": 1,
        "gpus_per_node": 8,
    }


def test_each_task_expanding_its_own_rank_is_clean_and_the_rank_unknown(tmp_path: Path) -> None:
    report = _check(tmp_path, PER_TASK)
    assert _serious(report) == []
    servers = report["servers"]
    assert isinstance(servers, list) and len(servers) == 1
    argv = servers[0]["argv"]
    assert argv[argv.index("--node-rank") + 1] is None  # each task's own: not known here


def test_a_job_smaller_than_nnodes(tmp_path: Path) -> None:
    text = PER_TASK.replace("--nnodes 2", "--nnodes 4")
    codes = _serious(_check(tmp_path, text))
    assert codes == [
        (
            "PA034",
            f"the job allocates 2 node(s) ({tmp_path / 'job.slurm'}:3) but --nnodes is 4: the nodes that "
            "never start leave the rendezvous waiting",
        )
    ]


def test_directives_stop_at_the_first_command() -> None:
    text = b"#!/bin/bash\n# a comment\n\n#SBATCH --nodes=4\n#SBATCH -n8 --gres=gpu:h100:8\necho hi\n"
    text += b"#SBATCH -N 9\n"
    allocation = batch_directives(text, "job.sh")
    assert allocation == Allocation(
        at="job.sh:4",
        nodes=4,
        ntasks=8,
        ntasks_per_node=None,
        gpus_per_node=8,
        nodes_at="job.sh:4",
        gpus_at="job.sh:5",
    )
    assert allocation.tasks == 8
    assert batch_directives(b"#!/bin/bash\necho\n#SBATCH -N 2\n", "x") is None


def test_option_forms_and_ranges() -> None:
    assert parse_options(["-N2", "--ntasks", "4", "--gpus-per-node=8", "python3"]) == {
        "--nodes": "2",
        "--ntasks": "4",
        "--gpus-per-node": "8",
    }
    ranged = batch_directives(b"#SBATCH --nodes=2-4\n", "j")
    assert ranged is not None and ranged.nodes is None


def test_the_batch_shell_is_task_zero_on_node_zero() -> None:
    known, unknown = batch_environment(Allocation(at="j:1", nodes=2, ntasks_per_node=1))
    assert known == {
        "SLURM_NODEID": "0",
        "SLURM_PROCID": "0",
        "SLURM_LOCALID": "0",
        "SLURM_NNODES": "2",
        "SLURM_JOB_NUM_NODES": "2",
        "SLURM_NTASKS": "2",
        "SLURM_NPROCS": "2",
        "SLURM_NTASKS_PER_NODE": "1",
    }
    assert unknown["SLURM_JOB_NODELIST"] == "the nodes SLURM allocates"


def test_srun_tasks_from_its_options_or_the_job() -> None:
    job = Allocation(at="j:1", nodes=2, ntasks_per_node=4)
    assert srun_step(["srun", "python3"], job).tasks == 8  # type: ignore[union-attr]
    assert srun_step(["srun", "-N", "2", "--ntasks-per-node=1", "python3"], job).tasks == 2  # type: ignore[union-attr]
    assert srun_step(["srun", "--ntasks=1", "python3"], job).tasks == 1  # type: ignore[union-attr]
    assert srun_step(["nohup", "python3"], job) is None
