#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/dzcixy/agentWeave/blob/12b90c795de7f2ba1ec271842ffe2dc224f251d7/scripts/launch_sglang.sh, seen 2026-12-04: `set -euo pipefail`, `MODEL_PATH=${MODEL_PATH:-/data2/...}` with a one-line `if [ ! -d "$MODEL_PATH" ]; then MODEL_PATH=${MODEL_PATH_FALLBACK:-Qwen/...}; fi`, `CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}` before the command, `--port ${PORT:-30000}` unquoted.
set -euo pipefail
MODEL_PATH=${MODEL_PATH:-/data2/model_zoo/Qwen/Qwen2.5-Coder-7B-Instruct}
if [ ! -d "$MODEL_PATH" ]; then MODEL_PATH=${MODEL_PATH_FALLBACK:-Qwen/Qwen2.5-Coder-7B-Instruct}; fi
CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} python -m sglang.launch_server \
  --model-path "$MODEL_PATH" \
  --host 0.0.0.0 \
  --port ${PORT:-30000}
