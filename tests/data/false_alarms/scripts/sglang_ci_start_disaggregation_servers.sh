#!/bin/bash
# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/622284e36e92c9b331ed8945e2e78cda6539e5fd/scripts/ci/cuda/ci_start_disaggregation_servers.sh, seen 2026-12-01: `set -euo pipefail`, the IB-device function (`if ibv_devinfo` over mlx5_{0..11}, `return 1` when none is active) captured by $(...), four prefill and four decode launches in `for` loops, and the `while true` health wait over eight curl checks.
set -euo pipefail

READY_FILE="${DISAGG_READY_FILE:-}"
MODEL_PATH="/raid/models/meta-llama/Llama-3.1-8B-Instruct"

find_active_ib_device() {
    for dev in mlx5_{0..11}; do
        if ibv_devinfo $dev >/dev/null 2>&1; then
            port_state=$(ibv_devinfo $dev | grep "state:" | head -1 | awk '{print $2}')
            if [[ "$port_state" == "PORT_ACTIVE" ]]; then
                echo "$dev"
                return 0
            fi
        fi
    done
    return 1
}

DEVICE=$(find_active_ib_device)

for i in {0..3}; do
  CUDA_VISIBLE_DEVICES=$i \
  python3 -m sglang.launch_server \
    --model-path "$MODEL_PATH" \
    --disaggregation-mode prefill \
    --host "127.0.0.$((i + 1))" \
    --port "$((30001 + i))" \
    --disaggregation-ib-device "$DEVICE" \
    --disaggregation-bootstrap-port "$((9001 + i))" &
done

for i in {4..7}; do
  CUDA_VISIBLE_DEVICES=$i \
  python3 -m sglang.launch_server \
    --model-path "$MODEL_PATH" \
    --disaggregation-mode decode \
    --host "127.0.0.$((i + 1))" \
    --port "$((30001 + i))" \
    --disaggregation-ib-device "$DEVICE" \
    --base-gpu-id 0 &
done

DEADLINE=$(( $(date +%s) + 300 ))
while true; do
    if [ "$(date +%s)" -ge "$DEADLINE" ]; then
        exit 1
    fi
    up=0
    for i in {1..8}; do
        if curl -s -f "http://127.0.0.$i:$((30000 + i))/health" >/dev/null 2>&1; then
            up=$((up + 1))
        fi
    done
    if [ $up -eq 8 ]; then
        [ -n "$READY_FILE" ] && touch "$READY_FILE"
        break
    fi
    sleep 10
done

wait
