#!/bin/bash
# Reconstructed (not copied) after https://github.com/PLMQ2785/Gemma3Serving/blob/06570021f127eddc531ffe9a12cfbe07b361f457/start.sh, seen 2026-12-04: a usage function that exits when no GPU index is given, `PORT=$((8030 + GPU_ID))`, an `lsof` port check, then `CUDA_VISIBLE_DEVICES=$GPU_ID nohup uv run python -m vllm.entrypoints.openai.api_server ... > $LOG_FILE 2>&1 &` for Gemma 3 27B NVFP4 (kept: the structure, the flags; the usage text shortened)

usage() {
    echo "Usage: ./start.sh [GPU_ID]"
    echo "  GPU 0 uses Port 8030, GPU 1 uses Port 8031."
    exit 1
}

if [[ -z "$1" || "$1" == "-h" || "$1" == "--help" ]]; then
    usage
fi

GPU_ID=$1
PORT=$((8030 + GPU_ID))
LOG_FILE="vllm_gpu${GPU_ID}.log"

if lsof -i:$PORT > /dev/null; then
    echo "Error: Port $PORT (GPU $GPU_ID) is already in use."
    exit 1
fi

CUDA_VISIBLE_DEVICES=$GPU_ID nohup uv run python -m vllm.entrypoints.openai.api_server \
        --model ./gemma-3-27b-it-NVFP4 \
        --quantization compressed-tensors \
        --dtype bfloat16 \
        --max-model-len 8192 \
        --gpu-memory-utilization 0.9 \
        --trust-remote-code \
        --port $PORT > $LOG_FILE 2>&1 &

echo "vLLM GPU $GPU_ID is running in background; log: $LOG_FILE"
