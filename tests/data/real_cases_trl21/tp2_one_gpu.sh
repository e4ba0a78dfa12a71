#!/bin/bash
# Source: a public GRPO training script found by the `code` search (the repository is not named there; the
# launch is quoted in this batch's brief): `trl vllm-serve` with --tensor_parallel_size 2 while CUDA_VISIBLE_DEVICES=0
# makes one GPU visible.
MODEL_PATH='Qwen/Qwen3-8B'
TRL_VLLM_PORT=8880
CUDA_VISIBLE_DEVICES=0 trl vllm-serve \
    --model $MODEL_PATH \
    --port $TRL_VLLM_PORT \
    --tensor_parallel_size 2 \
    --gpu-memory-utilization 0.85
