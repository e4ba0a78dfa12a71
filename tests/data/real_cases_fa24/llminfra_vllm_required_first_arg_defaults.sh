#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/JunyiJ/LLM-infra/blob/6bbd962d15203849e778e0f8b814b83dbd740204/scripts/serve_vllm.sh, seen 2026-12-04: `set -euo pipefail`, `MODEL_PATH="${1:?usage: ...}"`, `SERVED_MODEL_NAME="${2:-...}"`, three `${VAR:-default}` settings, an api_server command with every value quoted, a trailing blank line.
set -euo pipefail

MODEL_PATH="${1:?usage: serve_vllm.sh <model_path> [served_model_name] }"
SERVED_MODEL_NAME="${2:-qwen25-1p5b-apps-full-sft}"
PORT="${PORT:-8000}"
GPU_MEMORY_UTILIZATION="${GPU_MEMORY_UTILIZATION:-0.9}"
MAX_MODEL_LEN="${MAX_MODEL_LEN:-4096}"

python -m vllm.entrypoints.openai.api_server \
  --model "${MODEL_PATH}" \
  --served-model-name "${SERVED_MODEL_NAME}" \
  --port "${PORT}" \
  --gpu-memory-utilization "${GPU_MEMORY_UTILIZATION}" \
  --max-model-len "${MAX_MODEL_LEN}"

