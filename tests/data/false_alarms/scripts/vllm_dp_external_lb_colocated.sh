#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/01e4fce07423dafcc832600ba05159fb28dc1126/docs/serving/data_parallel_deployment.md (External Load Balancing: DP ranks co-located on one node), seen 2026-12-02: the two rank commands with their CUDA_VISIBLE_DEVICES, flags and values; $MODEL set (an MoE model, as external DP needs) and the backgrounding ours.
MODEL=Qwen/Qwen3-30B-A3B
CUDA_VISIBLE_DEVICES=0 vllm serve $MODEL --data-parallel-size 2 --data-parallel-rank 0 \
    --port 8000 &
CUDA_VISIBLE_DEVICES=1 vllm serve $MODEL --data-parallel-size 2 --data-parallel-rank 1 \
    --port 8001 &
wait
