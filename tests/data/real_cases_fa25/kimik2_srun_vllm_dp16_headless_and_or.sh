#!/bin/bash
# Reconstructed (not copied) after https://github.com/pbelevich/awsome-ai-research/blob/f0cc2bbf55d6da3c4eb56b86d9b617ca27aac39e/kimi-k2/vllm/kimi-k2-vllm.sbatch, seen 2026-12-04: Kimi-K2 on two nodes with vLLM DP 16 + EP; `srun -l bash -c '...'` in which `[ "$SLURM_PROCID" -eq 0 ] && EXTRA_FLAGS="" || EXTRA_FLAGS="--headless --data-parallel-start-rank 8"` picks the second node's flags (kept: the structure and the flags)
#SBATCH --job-name=k2-vllm
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1

set -x

export MODEL_NAME=moonshotai/Kimi-K2-Instruct
export MASTER_IP=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)
export PORT=13579

srun -l bash -c 'set -x;
    [ "$SLURM_PROCID" -eq 0 ] && EXTRA_FLAGS="" || EXTRA_FLAGS="--headless --data-parallel-start-rank 8";
vllm serve $MODEL_NAME \
    $EXTRA_FLAGS \
    --port 8000 \
    --served-model-name kimi-k2 \
    --trust-remote-code \
    --data-parallel-size 16 \
    --data-parallel-size-local 8 \
    --data-parallel-address $MASTER_IP \
    --data-parallel-rpc-port $PORT \
    --enable-expert-parallel \
    --max-num-batched-tokens 8192 \
    --max-num-seqs 256 \
    --gpu-memory-utilization 0.85 \
    --enable-auto-tool-choice \
    --tool-call-parser kimi_k2'
