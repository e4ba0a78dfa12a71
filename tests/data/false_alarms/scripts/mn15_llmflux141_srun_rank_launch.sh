#!/bin/bash
# Reconstructed (not copied) after https://github.com/Center-for-AI-Innovation/LLMFlux/pull/141 (2026-08-14), seen 2026-12-03: its fixed shape, "One SPMD `srun` step, one task per node. Rank 0 serves the API; ranks 1..N-1 run `vllm serve --headless`. Ranks meet through vLLM's own rendezvous flags (`--nnodes` / `--node-rank` / `--master-addr` / `--master-port`)", tp=4 pp=2 on 2 nodes x 4 GPUs, from the SIF. The SIF, model path and ports are placeholders (rank-launch.sh inlined as the task's bash -c).
#SBATCH --job-name=llmflux
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=4
#SBATCH --time=04:00:00

export SIF=/projects/llmflux/vllm-1.0.0.sif
export MODEL=/models/Llama-3.3-70B-Instruct
export HEAD_NODE=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)

srun --nodes=2 --ntasks-per-node=1 bash -c '
if [ "$SLURM_PROCID" -eq 0 ]; then
  apptainer exec --nv "$SIF" vllm serve "$MODEL" --tensor-parallel-size 4 --pipeline-parallel-size 2 \
    --nnodes 2 --node-rank 0 --master-addr "$HEAD_NODE" --master-port 29501 --port 8000
else
  apptainer exec --nv "$SIF" vllm serve "$MODEL" --tensor-parallel-size 4 --pipeline-parallel-size 2 \
    --nnodes 2 --node-rank "$SLURM_PROCID" --master-addr "$HEAD_NODE" --master-port 29501 --headless
fi'
