#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/TechPreacher/dgx-spark-vllm-cluster/blob/0d6bcf7b2bdfd0fcb147663c40663d285645ceee/nemotron/launch-nemotron-120b.sh
# Nemotron-3-Super-120B NVFP4 over the two-Spark Ray cluster: `docker exec` into the running Ray container, whose
# `bash -c` script serves with the values passed by `-e`; kept as written but the echo lines and the guard that
# checks the container's NVFP4 variables (a `docker exec` of its own).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../cluster/lib.sh
source "${SCRIPT_DIR}/../cluster/lib.sh"
load_env "${SCRIPT_DIR}"
: "${VLLM_API_KEY:?VLLM_API_KEY not set (expected in nemotron/.env)}"
: "${HF_TOKEN:?HF_TOKEN not set (expected in nemotron/.env)}"

# --- Overridable knobs (env-driven) ---
MODEL_CKPT="${MODEL_CKPT:-nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4}"
SERVED_NAME="${SERVED_NAME:-nvidia/nemotron-3-super}"
MAX_MODEL_LEN="${MAX_MODEL_LEN:-262144}"
GPU_MEM_UTIL="${GPU_MEM_UTIL:-0.75}"
TP_SIZE="${TP_SIZE:-2}"
PP_SIZE="${PP_SIZE:-1}"
PORT="${PORT:-8000}"

VLLM_CONTAINER=$(find_ray_container)
echo "Using container: ${VLLM_CONTAINER}"

SPEC_FLAG=""
if [[ "${ENABLE_MTP:-0}" == "1" ]]; then
  SPEC_FLAG='--speculative_config {"method":"mtp","num_speculative_tokens":3,"moe_backend":"triton"}'
fi

EAGER_FLAG=""
if [[ "${ENABLE_EAGER:-0}" == "1" ]]; then
  EAGER_FLAG="--enforce-eager"
fi

docker exec -it \
  -e VLLM_API_KEY="${VLLM_API_KEY}" \
  -e HF_TOKEN="${HF_TOKEN}" \
  -e MODEL_CKPT="${MODEL_CKPT}" \
  -e SERVED_NAME="${SERVED_NAME}" \
  -e MAX_MODEL_LEN="${MAX_MODEL_LEN}" \
  -e GPU_MEM_UTIL="${GPU_MEM_UTIL}" \
  -e TP_SIZE="${TP_SIZE}" \
  -e PP_SIZE="${PP_SIZE}" \
  -e PORT="${PORT}" \
  -e SPEC_FLAG="${SPEC_FLAG}" \
  -e EAGER_FLAG="${EAGER_FLAG}" \
  "${VLLM_CONTAINER}" /bin/bash -c '
    set -euo pipefail

    PARSER=/root/.cache/huggingface/super_v3_reasoning_parser.py
    if [[ ! -f "${PARSER}" ]]; then
      echo "Fetching reasoning parser plugin..."
      curl -fsSL \
        -o "${PARSER}" \
        "https://huggingface.co/${MODEL_CKPT}/raw/main/super_v3_reasoning_parser.py"
    fi

    # shellcheck disable=SC2086
    exec vllm serve "${MODEL_CKPT}" \
      --served-model-name "${SERVED_NAME}" \
      --host 0.0.0.0 \
      --port "${PORT}" \
      --tensor-parallel-size "${TP_SIZE}" \
      --pipeline-parallel-size "${PP_SIZE}" \
      --data-parallel-size 1 \
      --quantization fp4 \
      --moe-backend marlin \
      --dtype auto \
      --kv-cache-dtype fp8 \
      --mamba-ssm-cache-dtype "${MAMBA_SSM_DTYPE:-auto}" \
      --max-model-len "${MAX_MODEL_LEN}" \
      --gpu-memory-utilization "${GPU_MEM_UTIL}" \
      --max-cudagraph-capture-size 128 \
      --enable-chunked-prefill \
      --async-scheduling \
      --swap-space 0 \
      --trust-remote-code \
      --reasoning-parser-plugin "${PARSER}" \
      --reasoning-parser super_v3 \
      --enable-auto-tool-choice \
      --tool-call-parser qwen3_coder \
      ${EAGER_FLAG} \
      ${SPEC_FLAG}
  '
