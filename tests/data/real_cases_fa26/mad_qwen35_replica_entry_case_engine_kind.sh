#!/bin/bash
# Reconstructed (not copied) after https://github.com/ROCm/MAD/blob/2ced93baf67120a008d90e6c50f6380b500bfef6/scripts/Qwen3.5/lib/replica_entry.sh, seen 2026-12-04: the script each replica's ROCm container runs (the launcher passes HIP_VISIBLE_DEVICES, MODEL_PATH, PORT, TP, SERVE_FLAGS with `docker run -e`): `${MODEL_PATH:?}` guards, a `case "$KIND"` whose vllm branch serves with `$sched ${SERVE_FLAGS:-}` and whose sglang branch gives `--tensor-parallel-size`, `--context-length`, `--mem-fraction-static`, `& ;;`, then `$!` (kept: the start and its structure; the benchmark steps after it cut)
set -uo pipefail
SC=/scripts

KIND="${ENGINE_KIND:-vllm}"
MODEL_PATH="${MODEL_PATH:?}"; PORT="${PORT:?}"; TP="${TP:?}"
ACTION="${ACTION:-sanity}"
SERVER_LOG=/out/server.log
MAX_MODEL_LEN="${MAX_MODEL_LEN:-8192}"
GPU_MEM_UTIL="${GPU_MEM_UTIL:-0.8}"
MAX_NUM_SEQS="${MAX_NUM_SEQS:-256}"

start_server() {
  local sched="--no-async-scheduling"; [[ "$TP" -gt 1 ]] && sched="--async-scheduling"
  case "$KIND" in
    vllm)
      vllm serve "$MODEL_PATH" --host 0.0.0.0 --port "$PORT" --tensor-parallel-size "$TP" \
        --max-model-len "$MAX_MODEL_LEN" --gpu-memory-utilization "$GPU_MEM_UTIL" \
        --max-num-seqs "$MAX_NUM_SEQS" $sched ${SERVE_FLAGS:-} > "$SERVER_LOG" 2>&1 & ;;
    sglang)
      # SGLang's names: --context-length, --mem-fraction-static, --max-running-requests
      python3 -m sglang.launch_server --model-path "$MODEL_PATH" --host 0.0.0.0 --port "$PORT" \
        --tensor-parallel-size "$TP" --context-length "$MAX_MODEL_LEN" \
        --mem-fraction-static "$GPU_MEM_UTIL" --max-running-requests "$MAX_NUM_SEQS" \
        ${SERVE_FLAGS:-} > "$SERVER_LOG" 2>&1 & ;;
    atom)
      python -m atom.entrypoints.openai_server --model "$MODEL_PATH" -tp "$TP" --port "$PORT" \
        --max-model-len "$MAX_MODEL_LEN" --gpu-memory-utilization "$GPU_MEM_UTIL" \
        --max-num-seqs "$MAX_NUM_SEQS" ${SERVE_FLAGS:-} > "$SERVER_LOG" 2>&1 & ;;
    *) echo "bad ENGINE_KIND=$KIND"; exit 2 ;;
  esac
  SERVER_PID=$!
}

start_server

source "$SC/lib/lib_inferencex.sh"
cleanup(){ [[ -n "${SERVER_PID:-}" ]] && kill "$SERVER_PID" 2>/dev/null || true; }
trap cleanup EXIT

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"
echo "[replica] server healthy on :$PORT"

if [[ "$ACTION" == "serve" ]]; then
  echo "[replica] ACTION=serve — staying up"; wait "$SERVER_PID"; exit 0
fi
