#!/usr/bin/env bash
# args: meta-llama/Llama-3.1-8B-Instruct 8000
set -euo pipefail
MODEL="$1"
PORT="${2:-8000}"
export VLLM_USE_V1=1
export HF_HOME=/data/hf
vllm serve "$MODEL" \
    --port "$PORT" \
    --tensor-parallel-size 2 \
    --max-model-len 32768 \
    --gpu-memory-utilization 0.9 \
    --enable-prefix-caching
