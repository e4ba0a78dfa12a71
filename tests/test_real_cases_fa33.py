"""The 2026-12-05 wrong-alarm sweep, twelfth (fa33): working launches of 2025-2026 from sources argtrace had
not seen (each path and URL grepped in tests/ and docs/ first), with the carriers this sweep was asked to
stress: Slurm ``sbatch`` jobs that start a Ray cluster over their nodes with ``srun ray start`` and run vLLM
in the batch shell (a research institute's 2025-2026 workflows and workshop), SkyPilot tasks (a vLLM nightly
with decode context parallel, SGLang over two nodes with the head's address computed in ``run``), NVIDIA
Dynamo recipes (a v1alpha1 vLLM disaggregated deployment, a v1beta1 SGLang one), a LeaderWorkerSet pod's
Python startup script, and a systemd unit that runs a script that runs another. Each file under
``tests/data/real_cases_fa33/`` is a reconstruction (its header names the source at its commit and what it
keeps), checked as a new user: no options, no resolver environment, no Hugging Face cache.
docs/real_cases.md ("Working launches of 2025-2026 from new sources, 12th sweep") has the table and the
mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import SweepBatch
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa33"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# launch -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    # was a PA036 warning (tensor_parallel_size 0: $SLURM_GPUS_ON_NODE read as unset in the batch shell) and
    # PA047 (the other 3 nodes "never used"): vLLM's Ray fallback spreads TP 16 over the job's Ray cluster
    "kempner_dsr1_0528_h100_sbatch_ray_srun.sh": 1,
    # was a PA036 error: TP 16 with no --distributed-executor-backend on nodes of 4, RAY_ADDRESS set
    "kempner_405b_sbatch_ray_tp16_auto_backend.sh": 1,
    # was a PA036 error: TP 4 x PP 2 over Ray (--distributed-executor-backend ray) on 2 nodes of 4
    "kempner_workshop_multinode/setup_vllm_multinode_server.sh": 1,
    "llmengine_sglang_lws_startup_script.py": 1,
    "localdeploy_qwen3_coder_systemd/qwen3_coder_30b.sh": 1,
    "sky_deepseek_r1_671b_a100_sglang_two_nodes.yaml": 1,
    "sky_deepseek_r1_distilled_vllm_066.yaml": 1,
    "sky_falcon_h1_tp2_dp_from_gpus.yaml": 1,
    "sky_kimi_k2_thinking_high_throughput_dcp.sky.yaml": 1,
}
# read as no server, and so no alarm (not done: docs' table): a DynamoGraphDeployment of nvidia.com/v1beta1
# (`spec.components[].podTemplate`), and a unit whose ExecStart names its script by the author's absolute path
NOT_READ = [
    "dynamo_dsv41_flash_sglang_agg_h200_config_file.yaml",
    "localdeploy_qwen3_coder_systemd/qwen3_coder_30b.service",
]
# the recipe names nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1, whose ai-dynamo wheel pins vllm==0.10.2; vLLM
# declares --enable-dbo and --dbo-decode-token-threshold from 0.11.0 on (kept: a finding on that evidence)
_DBO = "dynamo_dsr1_vllm_disagg_hopper_8gpu_dbo_eplb.yaml"
# files the cases run or source (read through them)
SUPPORT = ["kempner_workshop_multinode/init_cluster.sh", "localdeploy_qwen3_coder_systemd/service.sh"]
_HEADER = "Reconstructed (not copied) after https://github.com/"


BATCH = SweepBatch(CASES, CLEAN, not_read=tuple(NOT_READ), others=(_DBO, *SUPPORT), header=_HEADER)
report_of = BATCH.report
globals().update(BATCH.tests())


def test_the_dbo_flags_are_refused_by_the_release_the_image_pins() -> None:
    report = report_of(_DBO)
    said = sorted((f["code"], f["severity"], f["message"]) for f in alarms(report))
    messages = [
        f"{flag} only exists from vllm 0.11.0 on; vllm 0.10.2 rejects it with "
        '"unrecognized arguments" (exit 2)'
        for flag in ("--dbo-decode-token-threshold", "--enable-dbo")
    ]
    assert len(report["servers"]) == 2
    assert said == [("PA004", "error", m) for m in messages for _ in range(2)]


def test_the_batch_shells_gpus_and_the_ray_fallback_are_what_the_page_shows() -> None:
    report = report_of("kempner_dsr1_0528_h100_sbatch_ray_srun.sh")
    (server,) = report["servers"]
    assert server["argv"][3:5] == ["--tensor-parallel-size", "16"]  # $((SLURM_NNODES * SLURM_GPUS_ON_NODE))
    (note,) = [f for f in report["findings"] if f["code"] == "PA036"]
    assert (note["severity"], note["basis"]) == ("info", "assumed")
    assert (
        "unless vLLM places the ranks over the Ray cluster RAY_ADDRESS names on the job's 4 nodes"
        in (note["message"])
    )


# --- the job's GPUs in the batch shell ---------------------------------------------------------------------


def _check(tmp_path: Path, text: str) -> Any:
    (tmp_path / "job.sh").write_text(text)
    result = run_cli(["check", "--format", "json", "job.sh"], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    return result.json


def _job(nodes: int, gpus: str, body: str) -> str:
    return f"#!/bin/bash\n#SBATCH --nodes={nodes}\n#SBATCH --ntasks-per-node=1\n{gpus}{body}\n"


@pytest.mark.parametrize(
    ("gpus", "size"),
    [
        ("#SBATCH --gpus-per-node=4\n", "8"),
        ("#SBATCH --gres=gpu:4\n", "8"),
        ("", "none"),  # no GPUs asked for: SLURM sets no SLURM_GPUS_ON_NODE
    ],
)
def test_the_batch_shell_has_the_jobs_slurm_gpus_on_node(tmp_path: Path, gpus: str, size: str) -> None:
    # sbatch(1): SLURM_GPUS_ON_NODE, "Number of GPUs allocated to the batch step" (was unset: 0 in arithmetic)
    body = (
        'N=${SLURM_GPUS_ON_NODE:-none}\n[ "$N" = none ] || N=$((SLURM_NNODES * SLURM_GPUS_ON_NODE))\n'
        "vllm serve Qwen/Qwen3-8B --distributed-executor-backend ray --tensor-parallel-size $N"
    )
    report = _check(tmp_path, _job(2, gpus, body))
    (server,) = report["servers"]
    assert server["argv"][-1] == size


# --- vLLM over a Ray cluster of the job's nodes ------------------------------------------------------------


def _pa036(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["severity"], f["message"]) for f in report["findings"] if f["code"] == "PA036"]


def test_an_explicit_ray_backend_spreads_the_world_over_the_jobs_nodes(tmp_path: Path) -> None:
    body = (
        "vllm serve Qwen/Qwen3-8B --distributed-executor-backend ray --tensor-parallel-size 4 "
        "--pipeline-parallel-size 2"
    )
    report = _check(tmp_path, _job(2, "#SBATCH --gpus-per-node=4\n", body))
    assert _pa036(report) == [] and alarms(report) == []  # was an error: 8 GPUs needed on one node


def test_too_few_gpus_for_the_ray_cluster_stay_an_error(tmp_path: Path) -> None:
    body = "vllm serve Qwen/Qwen3-8B --distributed-executor-backend ray --tensor-parallel-size 16"
    report = _check(tmp_path, _job(2, "#SBATCH --gpus-per-node=4\n", body))
    assert _pa036(report) == [
        (
            "error",
            "each node needs 8 GPU(s) (tensor_parallel_size 16 x pipeline_parallel_size 1 over the 2 nodes "
            "of the job's Ray cluster (assumed: each joins it)) but gets 4: the job gives each node 4 "
            "(job.sh:4)",
        )
    ]


@pytest.mark.parametrize(
    ("ray_address", "severity"), [("export RAY_ADDRESS=$HEAD:6379\n", "info"), ("", "error")]
)
def test_the_ray_fallback_rests_on_the_release(tmp_path: Path, ray_address: str, severity: str) -> None:
    # no backend given, a world larger than the node: vLLM's releases with the fallback pick Ray and join the
    # cluster RAY_ADDRESS names; without RAY_ADDRESS nothing shows a cluster (the error stays)
    body = f"HEAD=$(hostname)\n{ray_address}vllm serve Qwen/Qwen3-8B --tensor-parallel-size 16"
    report = _check(tmp_path, _job(4, "#SBATCH --gpus-per-node=4\n", body))
    ((said, message),) = _pa036(report)
    assert said == severity
    assert message.startswith(
        "each node needs 16 GPU(s) (tensor_parallel_size 16 x pipeline_parallel_size 1) but gets 4: the job "
        "gives each node 4 (job.sh:4)"
    )
    assert ("vllm-project/vllm#25775" in message) == (severity == "info")


def test_a_world_that_fits_the_node_leaves_the_other_nodes_idle(tmp_path: Path) -> None:
    # RAY_ADDRESS set, but the world fits on the node: vLLM uses multiprocessing there (PA047 stays)
    body = "export RAY_ADDRESS=head:6379\nvllm serve Qwen/Qwen3-8B --tensor-parallel-size 4"
    report = _check(tmp_path, _job(2, "#SBATCH --gpus-per-node=4\n", body))
    assert [(f["code"], f["severity"]) for f in alarms(report)] == [("PA047", "warning")]
