#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/elixir1750/qwen35_mmlu_eval/blob/6288e48a2a82d604e72cffae29c45fcf7b9a6395/scripts/launch_sglang.sh, seen 2026-12-04: `set -euo pipefail`, PROJECT_DIR from SLURM_SUBMIT_DIR or the script's directory, `MODEL_PATH="${MODEL_PATH:?...}"` and `SERVED_MODEL_NAME="${SERVED_MODEL_NAME:?...}"` (the caller must set them), defaults for the rest, a CUDA_HOME test, a SERVER_ARGS array grown with `+=` under two conditions, `exec "$PROJECT_DIR/.venv/bin/python" -m sglang.launch_server "${SERVER_ARGS[@]}" >>"$LOG_PATH" 2>&1`.
set -euo pipefail

if [[ -n "${SLURM_SUBMIT_DIR:-}" ]]; then
  PROJECT_DIR="$SLURM_SUBMIT_DIR"
else
  PROJECT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fi
MODEL_PATH="${MODEL_PATH:?MODEL_PATH must point to a local Hugging Face checkpoint}"
PORT="${PORT:-8000}"
TP_SIZE="${TP_SIZE:-1}"
MEM_FRACTION_STATIC="${MEM_FRACTION_STATIC:-0.75}"
CONTEXT_LENGTH="${CONTEXT_LENGTH:-65536}"
SERVED_MODEL_NAME="${SERVED_MODEL_NAME:?SERVED_MODEL_NAME must match the requested model}"
RANDOM_SEED="${RANDOM_SEED:-42}"
DISABLE_RADIX_CACHE="${DISABLE_RADIX_CACHE:-0}"
REASONING_PARSER="${REASONING_PARSER:-}"
LOG_PATH="${SGLANG_LOG:-$PROJECT_DIR/logs/sglang.log}"
TORCHINDUCTOR_CACHE_DIR="${TORCHINDUCTOR_CACHE_DIR:-/tmp/qwen35_torchinductor_${SLURM_JOB_ID:-local}}"
CUDA_HOME="${CUDA_HOME:-/data1/public/cuda/cuda-12.8}"

mkdir -p "$(dirname "$LOG_PATH")"
mkdir -p "$TORCHINDUCTOR_CACHE_DIR"
export TORCHINDUCTOR_CACHE_DIR
export PATH="$PROJECT_DIR/.venv/bin:$PATH"
if [[ -x "$CUDA_HOME/bin/nvcc" ]]; then
  export CUDA_HOME
  export PATH="$CUDA_HOME/bin:$PATH"
  export LD_LIBRARY_PATH="$CUDA_HOME/lib64:${LD_LIBRARY_PATH:-}"
fi
SERVER_ARGS=(
  --model-path "$MODEL_PATH"
  --host 127.0.0.1
  --port "$PORT"
  --tp-size "$TP_SIZE"
  --mem-fraction-static "$MEM_FRACTION_STATIC"
  --context-length "$CONTEXT_LENGTH"
  --served-model-name "$SERVED_MODEL_NAME"
  --random-seed "$RANDOM_SEED"
)
if [[ -n "$REASONING_PARSER" ]]; then
  SERVER_ARGS+=(--reasoning-parser "$REASONING_PARSER")
fi
if [[ "$DISABLE_RADIX_CACHE" == "1" ]]; then
  SERVER_ARGS+=(--disable-radix-cache)
fi
exec "$PROJECT_DIR/.venv/bin/python" -m sglang.launch_server "${SERVER_ARGS[@]}" \
  >>"$LOG_PATH" 2>&1
