#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/0835e4df38a9b253f6a9a1573938911fc099128f/examples/online_serving/openai_embedding_long_text/service.sh, seen 2026-12-01: `set -euo pipefail`, the ${VAR:-default} settings, the script's own exported VLLM_ENABLE_CHUNKED_PROCESSING expanded into POOLER_CONFIG, the pooling-type `case` function, the nvidia-smi GPU-count check and the `vllm serve` flags.
set -euo pipefail

MODEL_NAME=${MODEL_NAME:-"intfloat/multilingual-e5-large"}
MODEL_CODE=${MODEL_CODE:-"multilingual-e5-large"}
PORT=${PORT:-31090}
GPU_COUNT=${GPU_COUNT:-1}
MAX_EMBED_LEN=${MAX_EMBED_LEN:-3072000}
API_KEY=${API_KEY:-"your-api-key"}
POOLING_TYPE=${POOLING_TYPE:-"auto"}

export VLLM_ENABLE_CHUNKED_PROCESSING=true
export CUDA_VISIBLE_DEVICES=2,3,4,5
export VLLM_WORKER_MULTIPROC_METHOD=spawn

pooling_for() {
    case "$1" in
        *"e5-"* | *"multilingual-e5"*) echo "MEAN" ;;
        *"bge-"*) echo "CLS" ;;
        *"gte-"* | *"Qwen"*"Embedding"*) echo "LAST" ;;
        *) echo "MEAN" ;;
    esac
}

if [ "$POOLING_TYPE" = "auto" ]; then
    POOLING_TYPE=$(pooling_for "$MODEL_NAME")
fi

# Fewer GPUs on the node than asked for: use what is there.
if command -v nvidia-smi &> /dev/null; then
    gpus=$(nvidia-smi --list-gpus | wc -l)
    if [ "$GPU_COUNT" -gt "$gpus" ]; then
        GPU_COUNT=$gpus
    fi
fi

POOLER_CONFIG="{\"pooling_type\": \"$POOLING_TYPE\", \"normalize\": true, \"enable_chunked_processing\": ${VLLM_ENABLE_CHUNKED_PROCESSING}, \"max_embed_len\": ${MAX_EMBED_LEN}}"

vllm serve "$MODEL_NAME" \
  --tensor-parallel-size "$GPU_COUNT" \
  --enforce-eager \
  --override-pooler-config "$POOLER_CONFIG" \
  --served-model-name ${MODEL_CODE} \
  --api-key "$API_KEY" \
  --trust-remote-code \
  --port "$PORT" \
  --host 0.0.0.0

echo "server on port $PORT exited"
