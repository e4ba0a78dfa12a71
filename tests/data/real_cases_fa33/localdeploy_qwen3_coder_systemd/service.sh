#!/bin/bash
# Reconstructed (not copied) after https://github.com/realtmxi/local-deployment/blob/89efc96c13e14ffb1932a024867255cc7155eaf8/service.sh
# (run by qwen3_coder_30b.sh; the usage text and banner echo lines shortened)

set -e

if [ "$#" -lt 4 ] || [ "$#" -gt 5 ]; then
    echo "Usage: $0 <model_path> <port> <tp_size> <remote_ssh_url> [python_venv]"
    exit 1
fi

MODEL_PATH=$1
PORT=$2
TP_SIZE=$3
REMOTE_SSH_URL=$4
PYTHON_VENV=${5:-"$(dirname "$0")/.venv"}  # Default to script directory's .venv

PYTHON_BIN="${PYTHON_VENV}/bin/python3"

LOG_DIR="/scratch/murphy/logs/sglang"
mkdir -p "$LOG_DIR"
MODEL_NAME_FOR_LOG=$(basename "$MODEL_PATH")
LOG_FILE="${LOG_DIR}/${MODEL_NAME_FOR_LOG}_$(date +%Y%m%d_%H%M%S).log"

if [ ! -f "$PYTHON_BIN" ]; then
    echo "Error: Python binary not found at $PYTHON_BIN"
    exit 1
fi

if [ ! -d "$MODEL_PATH" ]; then
    echo "Error: Model path not found: $MODEL_PATH"
    exit 1
fi

echo "  GPU Devices:   ${CUDA_VISIBLE_DEVICES:-all}"

cleanup() {
    if [ ! -z "$SGLANG_PID" ]; then
        kill $SGLANG_PID 2>/dev/null || true
    fi
    if [ ! -z "$TUNNEL_PID" ]; then
        kill $TUNNEL_PID 2>/dev/null || true
    fi
}

trap cleanup SIGINT SIGTERM EXIT

start_sglang() {
    echo "[$(date '+%Y-%m-%d %H:%M:%S')] [SGLang] Starting server..." | tee -a "$LOG_FILE"

    MODEL_NAME=$(basename "$MODEL_PATH")

    $PYTHON_BIN -m sglang.launch_server \
        --model-path "$MODEL_PATH" \
        --served-model-name "$MODEL_NAME" \
        --host 0.0.0.0 \
        --port "$PORT" \
        --tp-size "$TP_SIZE" \
        --dp-size 1 \
        --enable-metrics \
        --mem-fraction-static 0.80 2>&1 | tee -a "$LOG_FILE" &

    SGLANG_PID=$!
}

start_tunnel() {
    ssh -N \
        -o ExitOnForwardFailure=yes \
        -o ServerAliveInterval=30 \
        -o ServerAliveCountMax=60 \
        -o StrictHostKeyChecking=no \
        -R "0.0.0.0:${PORT}:localhost:${PORT}" \
        "$REMOTE_SSH_URL" &

    TUNNEL_PID=$!
}

start_sglang
start_tunnel

wait -n $SGLANG_PID $TUNNEL_PID 2>/dev/null || wait $SGLANG_PID $TUNNEL_PID
EXIT_CODE=$?
exit $EXIT_CODE
