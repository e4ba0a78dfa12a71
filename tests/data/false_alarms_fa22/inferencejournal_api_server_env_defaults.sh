#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/ozgurgulerx/inference-journal/blob/8b9aa6a203f3d2fd939c4598ec967147194824a4/days/day-007-vllm-runtime-probes/serve_slm_no_prefix_cache.sh, seen 2026-12-04: set -euo pipefail, four `${VAR:-default}` settings and the quoted api_server command.
set -euo pipefail

MODEL="${MODEL:-microsoft/Phi-3-mini-4k-instruct}"
PORT="${PORT:-8000}"
MAX_MODEL_LEN="${MAX_MODEL_LEN:-4096}"
GPU_MEMORY_UTILIZATION="${GPU_MEMORY_UTILIZATION:-0.90}"

python -m vllm.entrypoints.openai.api_server \
  --model "$MODEL" \
  --dtype auto \
  --max-model-len "$MAX_MODEL_LEN" \
  --gpu-memory-utilization "$GPU_MEMORY_UTILIZATION" \
  --port "$PORT"
