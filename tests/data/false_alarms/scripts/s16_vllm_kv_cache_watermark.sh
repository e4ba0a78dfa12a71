#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/ca66c1de0df9fb5e7ff8e8b8a14502306d7757e9/benchmarks/kv_cache_watermark.sh, seen 2026-12-03: set -euo pipefail, the ${VAR:-default} settings, the byte count computed with $(( )), the EXIT trap and the server started per line of a here-string.
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-7B-Instruct}
TP=${TP:-1}
PORT=${PORT:-8000}
KV_CACHE_MEMORY_GB=${KV_CACHE_MEMORY_GB:-6}
MAX_MODEL_LEN=${MAX_MODEL_LEN:-5120}
MAX_NUM_SEQS=${MAX_NUM_SEQS:-256}
LOAD_FORMAT=${LOAD_FORMAT:-auto}
OUTDIR=${OUTDIR:-./watermark_bench_results}
CONFIGS=${CONFIGS:-"off    0
w0.05  0.05
w0.10  0.10"}
KV_CACHE_MEMORY_BYTES=$((KV_CACHE_MEMORY_GB * 1024 * 1024 * 1024))
mkdir -p "$OUTDIR"
SERVER_PID=""
cleanup() { [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null || true; }
trap cleanup EXIT

run_one() {
  local label=$1 watermark=$2
  vllm serve "$MODEL" \
    --tensor-parallel-size "$TP" \
    --load-format "$LOAD_FORMAT" \
    --kv-cache-memory-bytes "$KV_CACHE_MEMORY_BYTES" \
    --max-model-len "$MAX_MODEL_LEN" \
    --max-num-seqs "$MAX_NUM_SEQS" \
    --no-enable-prefix-caching \
    --watermark "$watermark" \
    --port "$PORT" >"${OUTDIR}/serve_${label}.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 300); do
    curl -s "http://127.0.0.1:${PORT}/health" >/dev/null 2>&1 && break
    sleep 5
  done
  kill "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

while read -r label watermark; do
  [[ -z "${label:-}" ]] && continue
  run_one "$label" "$watermark"
done <<<"$CONFIGS"
