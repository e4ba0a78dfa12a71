#!/bin/bash
# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/8e17681e8cdcbc43c47bc4d1de0bc46a0de9f6f5/benchmark/dcp/bench_dcp_serving.sh, seen 2026-12-03: set -euo pipefail, the COMMON_ENV and COMMON_ARGS strings, the NAME|BACKEND|... config array read with IFS='|', and start_server's `eval "${COMMON_ENV} python3 -m sglang.launch_server ..." &` with the DCP flags added only when the size is above 0.
set -euo pipefail
HOST=127.0.0.1
PORT=8188
MODEL=deepseek-ai/DeepSeek-V2
CONTEXT_LENGTH=163840
MAX_CC=512
COMMON_ENV="SGLANG_DCP_SYMM_ONLY=true NCCL_DEBUG=WARN PYTHONUNBUFFERED=1 \
TORCHINDUCTOR_FX_GRAPH_CACHE=1 SGLANG_DISABLE_TP_MEMORY_INBALANCE_CHECK=1"
COMMON_ARGS="--model-path $MODEL --host 0.0.0.0 --port $PORT \
--trust-remote-code --enable-cache-report --log-level info --tp-size 8 \
--max-running-requests $MAX_CC --chunked-prefill-size 32768 \
--context-length $CONTEXT_LENGTH --disable-radix-cache --enable-symm-mem"
CONFIGS=(
    "tp8_flashinfer|flashinfer|0.85|0|"
    "tp8_dcp8_agrs_fa3|fa3|0.83|8|ag_rs"
    "tp8_dcp8_a2a_flashinfer|flashinfer|0.85|8|a2a"
)
start_server() {
    local backend="$2" mem_frac="$3" dcp="$4" dcp_comm="$5"
    local extra_args=""
    if [ "$dcp" -gt 0 ]; then
        extra_args="--dcp-size ${dcp} --dcp-comm-backend ${dcp_comm}"
    fi
    eval "${COMMON_ENV} python3 -m sglang.launch_server ${COMMON_ARGS} \
        --mem-fraction-static ${mem_frac} \
        --attention-backend ${backend} \
        ${extra_args}" &
    SERVER_PID=$!
}
for cfg in "${CONFIGS[@]}"; do
    IFS='|' read -r CFG_NAME BACKEND MEM_FRAC DCP DCP_COMM <<< "$cfg"
    pkill -f "sglang.launch_server.*--port ${PORT}" 2>/dev/null || true
    start_server "$CFG_NAME" "$BACKEND" "$MEM_FRAC" "$DCP" "$DCP_COMM"
    until curl -s "http://${HOST}:${PORT}/health" >/dev/null; do sleep 5; done
done
