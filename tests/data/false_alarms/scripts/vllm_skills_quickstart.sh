#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm-skills/blob/310a1a0e07f813a7ea34d8688ec5b8e5ed6a11e1/skills/vllm-deploy-simple/scripts/quickstart.sh, seen 2026-12-01: `set -e`, the defaults, a `while/case` parser that picks a sub-command (default `all`), the install step (uv or pip), the `nohup python3 -m vllm.entrypoints.openai.api_server ... &` start guarded by a PID-file check, its bounded health wait, and the final `case "$COMMAND"` dispatch.
set -e

MODEL="Qwen/Qwen2.5-1.5B-Instruct"
PORT=8000
HOST="0.0.0.0"
MAX_WAIT=120
VRAM=0.8
COMMAND=""
while [[ $# -gt 0 ]]; do
    case $1 in
        --model) MODEL="$2"; shift 2 ;;
        --port) PORT="$2"; shift 2 ;;
        --gpu_memory_utilization) VRAM="$2"; shift 2 ;;
        install|start|all) COMMAND="$1"; shift ;;
        *) echo "usage: $0 [install|start|all] [--model M] [--port P]" >&2; exit 1 ;;
    esac
done
COMMAND="${COMMAND:-all}"
LOG_FILE="./tmp/vllm-server.log"
PID_FILE="./tmp/vllm-server.pid"
mkdir -p ./tmp

running() { [ -f "$PID_FILE" ] && ps -p "$(cat "$PID_FILE")" > /dev/null 2>&1; }

install_vllm() {
    if command -v uv &> /dev/null; then PM="uv pip"; else PM="pip"; fi
    $PM install vllm openai
    python3 -c "import vllm" || { echo "vllm did not install" >&2; exit 1; }
}

start_server() {
    if running; then
        return 0
    fi
    nohup python3 -m vllm.entrypoints.openai.api_server \
        --model "$MODEL" \
        --host "$HOST" \
        --port "$PORT" \
        --gpu_memory_utilization "$VRAM" \
        > "$LOG_FILE" 2>&1 &
    echo $! > "$PID_FILE"
    waited=0
    while [ $waited -lt $MAX_WAIT ]; do
        curl -s "http://localhost:$PORT/health" > /dev/null 2>&1 && return 0
        sleep 2
        waited=$((waited + 2))
    done
    echo "no answer on port $PORT after ${MAX_WAIT}s; see $LOG_FILE" >&2
    exit 1
}

case "$COMMAND" in
    install) install_vllm ;;
    start) start_server ;;
    all) install_vllm; start_server ;;
esac
