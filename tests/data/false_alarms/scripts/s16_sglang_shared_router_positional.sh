#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/776b307030ed72e24e305b4872e0eeb723defc3f/benchmark/shared_router/launch_server.sh, seen 2026-12-03: set -euo pipefail, the usage exit on $#, the positional model/mode/fusion/port with ${4:-30000}, the compgen -e loop that unsets SGLANG_* variables, the exports per mode and the exec'd server (DeepSeek-V4.1-Flash, DSPARK speculation, per-phase CUDA graph sizes, nccl port = port + 1).
set -euo pipefail
if [[ $# -lt 3 || $# -gt 4 ]]; then
    echo "Usage: $0 MODEL_PATH accuracy|perf FUSION_0_OR_1 [PORT]" >&2
    exit 2
fi
sr_model=$1
sr_mode=$2
sr_fusion=$3
sr_port=${4:-30000}
while IFS= read -r sr_key; do
    case "$sr_key" in SGLANG_*|AITER_*) unset "$sr_key";; esac
done < <(compgen -e)
export PYTHONNOUSERSITE=1 SGLANG_SET_CPU_AFFINITY=0 SGLANG_USE_AITER=1
export SGLANG_MOE_PADDING=1
export SGLANG_DSV41_SHARED_ROUTER_FUSION="$sr_fusion"
case "$sr_mode" in
    accuracy) ;;
    perf)
        export SGLANG_SIMULATE_ACC_LEN=3.51 SGLANG_SIMULATE_ACC_METHOD=match-expected
        ;;
    *) echo "Mode must be accuracy or perf" >&2; exit 2 ;;
esac
exec python3 -m sglang.launch_server \
    --model-path "$sr_model" --served-model-name deepseek-ai/DeepSeek-V4.1-Flash \
    --trust-remote-code --model-impl sglang --json-model-override-args '{"vision_n_layers":0}' \
    --host 127.0.0.1 --port "$sr_port" --nccl-port "$((sr_port + 1))" \
    --tp 4 --ep-size 1 --mem-fraction-static .78 --context-length 1048576 \
    --max-running-requests 128 --chunked-prefill-size 4096 \
    --cuda-graph-max-bs-decode 128 --cuda-graph-backend-prefill breakable \
    --cuda-graph-max-bs-prefill 4096 --schedule-policy fcfs \
    --reasoning-parser auto --tool-call-parser auto --enable-metrics --random-seed 42 \
    --speculative-algorithm DSPARK --speculative-dspark-block-size 5 \
    --swa-prefix-tails 3072 --prefill-max-requests 128 --max-prefill-tokens 16384 \
    --disable-radix-cache
