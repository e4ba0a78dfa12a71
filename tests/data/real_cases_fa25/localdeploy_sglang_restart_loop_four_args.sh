#!/bin/bash
# Reconstructed (not copied) after https://github.com/realtmxi/local-deployment/blob/fbc8e5cbbdba585386823951bc92cb9a69989d5d/production_scripts/service.sh, seen 2026-12-04: four required arguments (`if [ "$#" -ne 4 ]; then ... exit 1`), a function that restarts the SGLang server in a `while true` loop (`... &`, `$!`, `wait`), a second one keeping an ssh tunnel, both started in the background under a `trap cleanup EXIT` (kept: the structure, the flags; the echo lines shortened)

if [ "$#" -ne 4 ]; then
    echo "Usage: $0 <model_path> <port> <tp_size> <remote_ssh_url>"
    exit 1
fi

MODEL_PATH=$1
PORT=$2
TP_SIZE=$3
REMOTE_SSH_URL=$4

cleanup() {
    if [ ! -z "$SGLANG_MGR_PID" ]; then
        kill $SGLANG_MGR_PID 2>/dev/null
    fi
    if [ ! -z "$TUNNEL_MGR_PID" ]; then
        kill $TUNNEL_MGR_PID 2>/dev/null
    fi
}
trap cleanup EXIT

manage_sglang() {
    local SGLANG_PID
    trap 'kill $SGLANG_PID 2>/dev/null; exit' SIGTERM EXIT
    while true; do
        echo "[SGLANG_MGR] Starting SGLang server..."
        /n/lab/llm-workload/.venv/bin/python3 -m sglang.launch_server \
            --model-path "$MODEL_PATH" \
            --host 0.0.0.0 \
            --port "$PORT" \
            --tp-size "$TP_SIZE" \
            --enable-metrics \
            --trust-remote-code &
        SGLANG_PID=$!
        wait $SGLANG_PID
        echo "[SGLANG_MGR] stopped; restarting in 15 seconds..."
        sleep 15
    done
}

manage_tunnel() {
    local TUNNEL_PID
    trap 'kill $TUNNEL_PID 2>/dev/null; exit' SIGTERM EXIT
    while true; do
        ssh -N -o ExitOnForwardFailure=yes -o ServerAliveInterval=30 -R "0.0.0.0:${PORT}:localhost:${PORT}" "$REMOTE_SSH_URL" &
        TUNNEL_PID=$!
        wait $TUNNEL_PID
        sleep 15
    done
}

echo "Job ID: $SLURM_JOB_ID on $(hostname), GPUs $CUDA_VISIBLE_DEVICES"
manage_sglang &
SGLANG_MGR_PID=$!
manage_tunnel &
TUNNEL_MGR_PID=$!
wait $SGLANG_MGR_PID $TUNNEL_MGR_PID
