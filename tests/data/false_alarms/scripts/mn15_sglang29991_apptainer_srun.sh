#!/bin/bash
# Reconstructed (not copied) after https://github.com/sgl-project/sglang/pull/29991 (2026-07-03), seen 2026-12-03: its Apptainer section as the PR describes it ("Full sbatch example with the SIF on shared filesystem, uses `apptainer`"; `sglang serve` across 2 GPU nodes; the head node from `scontrol show hostname`), with each task reading its own rank inside `srun bash -c` as the PR's docs do. SIF path, model and ports are placeholders.
#SBATCH --job-name=sglang-apptainer
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8

export SIF=/shared/containers/sglang.sif
export HEAD_NODE=$(scontrol show hostname "$SLURM_JOB_NODELIST" | head -n 1)

srun --nodes=2 --ntasks-per-node=1 bash -c '
apptainer exec --nv --bind /shared/models:/models "$SIF" \
  sglang serve --model-path /models/DeepSeek-V3 --tp-size 16 \
    --dist-init-addr "$HEAD_NODE:20000" --nnodes 2 --node-rank "$SLURM_PROCID" \
    --trust-remote-code --host 0.0.0.0 --port 30000'
