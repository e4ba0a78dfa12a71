#!/bin/bash
# Source: https://github.com/huggingface/trl/pull/3310 (comment by zzzzzec, 2025-04-17): 8 x H20, TRL's
# data-parallel vLLM server started through `python -m trl.cli vllm-serve`; NCCL then reports
# "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 8000" (the launch as posted).
NCCL_DEBUG=WARN python -m trl.cli vllm-serve \
    --model /mnt/tenant-home_speed/Model/Qwen/Qwen2.5-7B-Instruct \
    --tensor_parallel_size 1 \
    --data_parallel_size 8 \
    --host 0.0.0.0 \
    --port 6004
