#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/MiaAI-Lab/Qwen3.8-27B-SGLang-DGX-Spark/blob/088dc0da0eb33eaa1b7470109e6206ab63d43559/start.sh (a user reported it served well: issue #3), seen 2026-12-03: set -euo pipefail, the optional .env read with `while IFS='=' read` and `${!key:-}` then `export "${key}=${value}"`, the QUANT case, the (( )) range check, the context/YaRN arrays (one empty), `command -v docker || { ...; exit 1; }`, HF_TOKEN exported, and the detached `docker run` of the lmsysorg/sglang image with its GDN/MTP server flags and "${ARRAY[@]}" expansions.
set -euo pipefail
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -f "${SCRIPT_DIR}/.env" ]]; then
  while IFS='=' read -r key value || [[ -n "${key}" ]]; do
    key="${key%$'\r'}"; value="${value%$'\r'}"
    [[ -z "${key}" || "${key}" == \#* ]] && continue
    if [[ -z "${!key:-}" ]]; then
      export "${key}=${value}"
    fi
  done < "${SCRIPT_DIR}/.env"
fi
QUANT="${QUANT:-nvfp4}"
case "${QUANT}" in
  bf16)  MODEL_ID="Qwen/Qwen3.8-27B" ;;
  fp8)   MODEL_ID="Qwen/Qwen3.8-27B-FP8" ;;
  nvfp4) MODEL_ID="RadixArk/Qwen3.8-27B-NVFP4" ;;
  *) echo "unknown QUANT"; exit 1 ;;
esac
YARN="${YARN:-0}"
CONTEXT_LENGTH="${CONTEXT_LENGTH:-262144}"
MAX_CONCURRENT_REQUESTS="${MAX_CONCURRENT_REQUESTS:-10}"
if (( CONTEXT_LENGTH < 262144 || CONTEXT_LENGTH > 1000000 )); then
  echo "unsupported context length"; exit 1
fi
NEED_YARN=0
if (( CONTEXT_LENGTH > 262144 )) && [[ "${YARN}" == "1" || "${CONTEXT_LENGTH}" == "1000000" ]]; then
  NEED_YARN=1
fi
if (( NEED_YARN )); then
  YARN_FACTOR="$(awk -v n="${CONTEXT_LENGTH}" 'BEGIN{printf "%.0f", n/262144}')"
  YARN_OVERRIDE=$(printf '{"text_config": {"rope_parameters": {"rope_type": "yarn", "factor": %s, "original_max_position_embeddings": 262144}}}' "${YARN_FACTOR}")
  CONTEXT_ARGS=(--json-model-override-args "${YARN_OVERRIDE}" --context-length "${CONTEXT_LENGTH}")
  ALLOW_LONGER_ARGS=(-e SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1)
else
  CONTEXT_ARGS=(--context-length "${CONTEXT_LENGTH}")
  ALLOW_LONGER_ARGS=()
fi
MAMBA_CACHE_SIZE=$(( MAX_CONCURRENT_REQUESTS * 8 ))
IMAGE="lmsysorg/sglang:qwen38-27b"
CONTAINER_NAME="qwen3.8-27b-sglang"
HF_HOME="$(pwd)/.cache/huggingface"
command -v docker >/dev/null 2>&1 || {
  echo "docker is not on PATH"
  exit 1
}
export HF_TOKEN="${HF_TOKEN:-}"
docker run -d \
  --name "${CONTAINER_NAME}" \
  --network host --ipc host --privileged --gpus all --shm-size 32g \
  -e HF_HOME=/root/.cache/huggingface \
  -e HF_TOKEN="${HF_TOKEN:-}" \
  "${ALLOW_LONGER_ARGS[@]}" \
  -v "${HF_HOME}:/root/.cache/huggingface" \
  "${IMAGE}" \
  python3 -m sglang.launch_server \
  --model-path "${MODEL_ID}" \
  --served-model-name qwen3.8-27b-sglang \
  --trust-remote-code \
  --mem-fraction-static 0.95 \
  --attention-backend flashinfer \
  --chunked-prefill-size 8192 \
  --disable-prefill-cuda-graph \
  --kv-cache-dtype fp8_e4m3 \
  --mamba-ssm-dtype bfloat16 \
  --mamba-full-memory-ratio 4.21 \
  --mamba-radix-cache-strategy extra_buffer_lazy \
  --max-mamba-cache-size "${MAMBA_CACHE_SIZE}" \
  --max-running-requests "${MAX_CONCURRENT_REQUESTS}" \
  "${CONTEXT_ARGS[@]}" \
  --speculative-algorithm EAGLE \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --reasoning-parser qwen3 \
  --tool-call-parser qwen3_coder \
  --sampling-defaults model \
  --host 0.0.0.0 \
  --port 8888 \
  >/dev/null
until curl -fsS "http://127.0.0.1:8888/v1/models" >/dev/null 2>&1; do sleep 5; done
