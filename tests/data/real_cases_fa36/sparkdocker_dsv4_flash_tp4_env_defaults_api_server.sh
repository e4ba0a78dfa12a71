#!/bin/bash
# Reconstructed (not copied) after https://github.com/eugr/spark-vllm-docker/blob/99daefc3d9c91ed38135653e858b7fd3353f3a59/examples/deepseek-v4-flash-tp4.sh
# A launch profile for four GB10 nodes over Ray: every value a ${VAR:-default}, a guard on the model folder, then
# the OpenAI API server module with --tokenizer-mode deepseek_v4. Kept as written.
set -euo pipefail

MODEL_PATH="${MODEL_PATH:-/models/deepseek-v4-flash}"
SERVED_MODEL_NAME="${SERVED_MODEL_NAME:-deepseek-ai/DeepSeek-V4-Flash}"
TP_SIZE="${TP_SIZE:-4}"
MAX_MODEL_LEN="${MAX_MODEL_LEN:-65536}"
MAX_NUM_SEQS="${MAX_NUM_SEQS:-1}"
GPU_MEMORY_UTILIZATION="${GPU_MEMORY_UTILIZATION:-0.72}"

if [[ ! -d "$MODEL_PATH" ]]; then
    echo "model path not mounted: $MODEL_PATH" >&2
    exit 66
fi

python3 -m vllm.entrypoints.openai.api_server \
    --model "$MODEL_PATH" \
    --served-model-name "$SERVED_MODEL_NAME" \
    --trust-remote-code \
    --tokenizer-mode deepseek_v4 \
    --reasoning-parser deepseek_v4 \
    --host 0.0.0.0 \
    --port 30000 \
    --tensor-parallel-size "$TP_SIZE" \
    --max-model-len "$MAX_MODEL_LEN" \
    --max-num-seqs "$MAX_NUM_SEQS" \
    --gpu-memory-utilization "$GPU_MEMORY_UTILIZATION" \
    --kv-cache-dtype fp8 \
    --block-size 256 \
    --enable-expert-parallel \
    --enable-prefix-caching \
    --distributed-executor-backend ray
