#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/TechPreacher/dgx-spark-vllm-cluster/blob/0c356fff0efff38c4d77e5080823e9a1796dd64d/qwen/launch-qwen-122b.sh
# Qwen3.5-122B-A10B FP8 at TP 2 over the two-Spark Ray cluster, served by `docker exec` into the Ray
# container; kept as written (the header comments shortened).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -f "${SCRIPT_DIR}/.env" ]]; then
  set -a; source "${SCRIPT_DIR}/.env"; set +a
fi
: "${VLLM_API_KEY:?VLLM_API_KEY not set (expected in .env)}"

VLLM_CONTAINER=$(docker ps --format '{{.Names}}' | grep -E '^node-[0-9]+$' | head -n1)
if [[ -z "${VLLM_CONTAINER}" ]]; then
  echo "No node-* container running. Start the Ray cluster first." >&2
  exit 1
fi
echo "Using container: ${VLLM_CONTAINER}"

docker exec -it -e VLLM_API_KEY="${VLLM_API_KEY}" "${VLLM_CONTAINER}" /bin/bash -c '
  set -e
  exec vllm serve Qwen/Qwen3.5-122B-A10B-FP8 \
    --served-model-name qwen35_122b_thinking \
    --host 0.0.0.0 --port 8000 \
    --tensor-parallel-size 2 \
    --max-num-seqs 4 \
    --max-model-len 65536 \
    --max-num-batched-tokens 16384 \
    --gpu-memory-utilization 0.85 \
    --enable-prefix-caching \
    --reasoning-parser qwen3 \
    --enable-auto-tool-choice \
    --tool-call-parser qwen3_coder \
    --trust-remote-code
'
