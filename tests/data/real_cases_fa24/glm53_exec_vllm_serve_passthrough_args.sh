#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/SagaK-dev/GLM-5.3/blob/1f7e97032abd56c4c55181ac67a6dd7af0a1e2d5/scripts/serve_vllm.sh, seen 2026-12-04: `set -euo pipefail`, MODEL_ID/HOST/PORT with `${VAR:-default}`, `exec vllm serve "$MODEL_ID" --host "$HOST" --port "$PORT" "$@"` (the caller's extra flags passed through).
set -euo pipefail

MODEL_ID="${MODEL_ID:-zai-org/GLM-5.3}"
HOST="${HOST:-0.0.0.0}"
PORT="${PORT:-8000}"

exec vllm serve "$MODEL_ID" \
  --host "$HOST" \
  --port "$PORT" \
  "$@"
