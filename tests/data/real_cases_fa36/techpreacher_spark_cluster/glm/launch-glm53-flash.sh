#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/TechPreacher/dgx-spark-vllm-cluster/blob/041a5544baa7c0aabd7cad2b861b347d04202c7d/glm/launch-glm53-flash.sh
# GLM-5.3-Flash NVFP4 over the two-Spark Ray cluster: knobs from the environment, an optional DFlash2
# --speculative-config built with printf into an array inside the `docker exec ... bash -c` script. Kept: the
# knobs, the flags' construction and the serve; dropped: the image, digest, variable and Ray readiness guards.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../cluster/lib.sh
source "${SCRIPT_DIR}/../cluster/lib.sh"
load_env "${SCRIPT_DIR}"
: "${VLLM_API_KEY:?VLLM_API_KEY not set (expected in glm/.env -- copy glm/.env.example)}"
: "${HF_TOKEN:?HF_TOKEN not set (expected in glm/.env -- copy glm/.env.example)}"

MODEL_CKPT="${MODEL_CKPT:-LibertAIDAI/GLM-5.3-Flash-NVFP4}"
SERVED_NAME="${SERVED_NAME:-zai-org/glm-5.3-flash}"
MAX_MODEL_LEN="${MAX_MODEL_LEN:-262144}"
GPU_MEM_UTIL="${GPU_MEM_UTIL:-0.85}"
KV_CACHE_MEMORY="${KV_CACHE_MEMORY:-6442450944}"
BLOCK_SIZE="${BLOCK_SIZE:-2304}"
MAX_NUM_SEQS="${MAX_NUM_SEQS:-8}"
TP_SIZE="${TP_SIZE:-2}"
PORT="${PORT:-8000}"
ENABLE_EAGER="${ENABLE_EAGER:-1}"
ENABLE_DFLASH2="${ENABLE_DFLASH2:-0}"
DRAFT_CKPT="${DRAFT_CKPT:-incoai/GLM-5.3-Flash-DFlash2}"
NUM_SPEC_TOKENS="${NUM_SPEC_TOKENS:-7}"
REASONING_PARSER="${REASONING_PARSER:-deepseek_r1}"
DIST_BACKEND="${DIST_BACKEND:-ray}"

VLLM_CONTAINER=$(find_ray_container)

EAGER_FLAG=""
[[ "${ENABLE_EAGER}" == "1" ]] && EAGER_FLAG="--enforce-eager"

SPEC_FLAG=""
if [[ "${ENABLE_DFLASH2}" == "1" ]]; then
  if [[ -n "${GLM_SPEC_CONFIG:-}" ]]; then
    SPEC_FLAG="${GLM_SPEC_CONFIG}"
  else
    SPEC_FLAG=$(printf '{"method":"dflash","model":"%s","num_speculative_tokens":%s}' \
                  "${DRAFT_CKPT}" "${NUM_SPEC_TOKENS}")
  fi
  echo "  speculative:       ${SPEC_FLAG}"
fi

docker exec -it \
  -e VLLM_API_KEY="${VLLM_API_KEY}" \
  -e HF_TOKEN="${HF_TOKEN}" \
  -e MODEL_CKPT="${MODEL_CKPT}" \
  -e SERVED_NAME="${SERVED_NAME}" \
  -e MAX_MODEL_LEN="${MAX_MODEL_LEN}" \
  -e GPU_MEM_UTIL="${GPU_MEM_UTIL}" \
  -e KV_CACHE_MEMORY="${KV_CACHE_MEMORY}" \
  -e BLOCK_SIZE="${BLOCK_SIZE}" \
  -e MAX_NUM_SEQS="${MAX_NUM_SEQS}" \
  -e TP_SIZE="${TP_SIZE}" \
  -e DIST_BACKEND="${DIST_BACKEND}" \
  -e PORT="${PORT}" \
  -e EAGER_FLAG="${EAGER_FLAG}" \
  -e SPEC_FLAG="${SPEC_FLAG}" \
  -e REASONING_PARSER="${REASONING_PARSER}" \
  "${VLLM_CONTAINER}" /bin/bash -c '
    set -euo pipefail
    SPEC_ARGS=()
    [[ -n "${SPEC_FLAG}" ]] && SPEC_ARGS+=(--speculative-config "${SPEC_FLAG}")
    # shellcheck disable=SC2086
    exec vllm serve "${MODEL_CKPT}" \
      --served-model-name "${SERVED_NAME}" \
      --host 0.0.0.0 \
      --port "${PORT}" \
      --tensor-parallel-size "${TP_SIZE}" \
      --distributed-executor-backend "${DIST_BACKEND}" \
      --max-model-len "${MAX_MODEL_LEN}" \
      --gpu-memory-utilization "${GPU_MEM_UTIL}" \
      --kv-cache-dtype fp8 \
      --kv-cache-memory-bytes "${KV_CACHE_MEMORY}" \
      --block-size "${BLOCK_SIZE}" \
      --max-num-seqs "${MAX_NUM_SEQS}" \
      --enable-auto-tool-choice \
      --tool-call-parser glm47 \
      --reasoning-parser "${REASONING_PARSER}" \
      --skip-mm-profiling \
      ${EAGER_FLAG} \
      ${SPEC_ARGS[@]+"${SPEC_ARGS[@]}"}
  '
