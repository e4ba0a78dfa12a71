#!/bin/bash
# Reconstructed (not copied) after https://github.com/pbelevich/awsome-ai-research/blob/9f5e71c5bc8a1a0a244ff4ba0c1c3c869318d3f4/kimi-k2/sgl/kimi-k2-sgl.sbatch, seen 2026-12-04: a two-node SLURM job, the model path from a backquoted python, `srun -l bash -c '...'` whose single-quoted script reads $MODEL_PATH, $MASTER_IP and SLURM's variables on each node (kept: the structure and the flags)
#SBATCH --job-name=k2-sgl
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1

set -x

export MODEL_NAME=moonshotai/Kimi-K2-Instruct
export MODEL_PATH=`python -c "from pathlib import Path; from huggingface_hub import hf_hub_download; print(Path(hf_hub_download('$MODEL_NAME', filename='config.json')).parent)"`

export MASTER_IP=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)

srun -l bash -c 'set -x; python -m sglang.launch_server \
    --model-path $MODEL_PATH \
    --tp 16 \
    --dist-init-addr $MASTER_IP:50000 \
    --nnodes $SLURM_JOB_NUM_NODES \
    --node-rank $SLURM_NODEID \
    --trust-remote-code \
    --tool-call-parser kimi_k2'
