#!/bin/bash
# Reconstructed (not copied) after https://github.com/ParisNeo/vllm_deployer/blob/3dbe7b26aede21f90e45205d7a01efc9af28214e/run.sh, seen 2026-12-04: `set -a; source "$(dirname "$0")/.env"; set +a` (the .env is the user's, not in the repository), usage checks that exit, a loop over `$(echo $MODEL_LIST | tr ',' '\n')` splitting `model:config` entries with `cut`, `vllm serve "$MODEL_PATH" --config "$CONFIG_PATH" --port $VLLM_PORT 2>&1 | sed "s/^/[$MODEL] /" &`, PIDs in an array, a `trap cleanup SIGINT SIGTERM` and `wait` (kept: the structure and the launch; the coloured echo lines shortened)

echo "[*] Loading configuration from .env file..."

set -a
source "$(dirname "$0")/.env"
set +a

if [ -z "$MODEL_LIST" ]; then
    echo "[!] ERROR: MODEL_LIST is empty in .env file (format: 'model1:config1.json,model2:config2.json')"
    exit 1
fi

if [ ! -d "$MODEL_DIR" ]; then
    echo "[!] ERROR: Model directory does not exist: $MODEL_DIR"
    exit 1
fi

if ! command -v vllm &> /dev/null; then
    echo "[!] ERROR: vLLM command not found"
    exit 1
fi

MODEL_COUNT=0
PIDS=()

for entry in $(echo $MODEL_LIST | tr ',' '\n'); do
    MODEL=$(echo $entry | cut -d':' -f1)
    CONFIG=$(echo $entry | cut -d':' -f2)

    MODEL_PATH="$MODEL_DIR/$MODEL"
    CONFIG_PATH="$MODEL_DIR/$MODEL/$CONFIG"

    if [ ! -d "$MODEL_PATH" ]; then
        echo "[!] WARNING: Model directory not found: $MODEL_PATH; skipping"
        continue
    fi
    if [ ! -f "$CONFIG_PATH" ]; then
        echo "[!] WARNING: Config file not found: $CONFIG_PATH; skipping"
        continue
    fi

    vllm serve "$MODEL_PATH" --config "$CONFIG_PATH" --port $VLLM_PORT 2>&1 | sed "s/^/[$MODEL] /" &
    VLLM_PID=$!
    PIDS+=($VLLM_PID)
    MODEL_COUNT=$((MODEL_COUNT + 1))
    sleep 1
done

if [ $MODEL_COUNT -eq 0 ]; then
    echo "[!] ERROR: No models were successfully loaded"
    exit 1
fi

cleanup() {
    for pid in "${PIDS[@]}"; do
        if kill -0 $pid 2>/dev/null; then
            kill $pid
        fi
    done
    exit 0
}

trap cleanup SIGINT SIGTERM

wait
