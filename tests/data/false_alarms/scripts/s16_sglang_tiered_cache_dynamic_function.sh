#!/bin/bash
# Reconstructed (not copied) after https://github.com/sgl-project/sglang/blob/40c73cab1cb3e52680e81bece45f7f9f3a63303a/benchmark/hicache/run_tiered_cache_bench_wts.sh, seen 2026-12-03: set -euo pipefail, the ${VAR:-default} sizes, the COMMON_ARGS array (empty unless KV_CACHE_DTYPE is set), the three launch functions (HBM only; + DRAM HiCache; + UMBP storage with its JSON built from pieces), the cases read into an array and each started through its computed function name `"launch_server_${CASE_ID}" > LOG 2>&1 &`, with kill_server (pkill/xargs kill) between cases.
set -euo pipefail
MODEL_PATH="${MODEL_PATH:-/nfs/DeepSeek-V3}"
PORT="${PORT:-30000}"
TP_SIZE="${TP_SIZE:-8}"
PAGE_SIZE="${PAGE_SIZE:-64}"
HICACHE_SIZE="${HICACHE_SIZE:-128}"
UMBP_DRAM_BYTES="${UMBP_DRAM_BYTES:-68719476736}"
UMBP_SSD_BYTES="${UMBP_SSD_BYTES:-103079215104}"
UMBP_SSD_DIR="${UMBP_SSD_DIR:-/tmp/umbp_ssd}"
WRITE_POLICY="write_through"
KV_CACHE_DTYPE="${KV_CACHE_DTYPE:-}"
COMMON_ARGS=()
if [[ -n "$KV_CACHE_DTYPE" ]]; then
    COMMON_ARGS+=(--kv-cache-dtype "$KV_CACHE_DTYPE")
fi
kill_server() {
    pids=$(pgrep -f "sglang\.launch_server" 2>/dev/null || true)
    [[ -n "$pids" ]] && echo "$pids" | xargs kill -9 2>/dev/null || true
}
launch_server_case1() {
    python -m sglang.launch_server --enable-cache-report --enable-metrics \
        --model-path "$MODEL_PATH" --host 0.0.0.0 \
        --tp-size "$TP_SIZE" --page-size "$PAGE_SIZE" "${COMMON_ARGS[@]}" "$@"
}
launch_server_case2() {
    python -m sglang.launch_server --enable-cache-report --enable-metrics \
        --model-path "$MODEL_PATH" --host 0.0.0.0 \
        --tp-size "$TP_SIZE" --page-size "$PAGE_SIZE" "${COMMON_ARGS[@]}" \
        --enable-hierarchical-cache --hicache-size "$HICACHE_SIZE" \
        --hicache-write-policy "$WRITE_POLICY" --hicache-mem-layout page_first "$@"
}
launch_server_case3() {
    local extra_config="{\"dram_capacity_bytes\": ${UMBP_DRAM_BYTES}, \"ssd_enabled\": true, \"ssd_storage_dir\": \"${UMBP_SSD_DIR}\", \"ssd_capacity_bytes\": ${UMBP_SSD_BYTES}}"
    python -m sglang.launch_server --enable-cache-report --enable-metrics \
        --model-path "$MODEL_PATH" --host 0.0.0.0 \
        --tp-size "$TP_SIZE" --page-size "$PAGE_SIZE" "${COMMON_ARGS[@]}" \
        --enable-hierarchical-cache --hicache-size "$HICACHE_SIZE" \
        --hicache-write-policy "$WRITE_POLICY" --hicache-mem-layout page_first \
        --hicache-storage-backend umbp \
        --hicache-storage-backend-extra-config "$extra_config" "$@"
}
read -r -a CASES <<< "${CASES_OVERRIDE:-case3:HBM_DRAM_SSD case2:HBM_DRAM case1:HBM_Only}"
for entry in "${CASES[@]}"; do
    CASE_ID="${entry%%:*}"
    kill_server
    "launch_server_${CASE_ID}" > "server_${CASE_ID}.log" 2>&1 &
    SERVER_PID=$!
    until curl -sf "http://localhost:${PORT}/v1/models" > /dev/null 2>&1; do sleep 30; done
    kill_server
done
