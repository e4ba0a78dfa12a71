#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/58c3d4a99073ae55575ae5444723a6f82aa29663/examples/online_serving/ec_both_encoder/ec_both_encoder.sh
# vLLM's example of one instance that both produces and consumes encoder outputs (`"ec_role": "ec_both"`),
# every value a ${VAR:-default} and the script's own arguments passed on with "$@"; kept as written.
set -euo pipefail

MODEL="${MODEL:-Qwen/Qwen2.5-VL-3B-Instruct}"
PORT="${PORT:-8000}"
GPU="${GPU:-0}"
EC_SHARED_STORAGE_PATH="${EC_SHARED_STORAGE_PATH:-/tmp/ec_cache}"

rm -rf "$EC_SHARED_STORAGE_PATH"
mkdir -p "$EC_SHARED_STORAGE_PATH"

CUDA_VISIBLE_DEVICES="$GPU" \
vllm serve "$MODEL" \
    --port "$PORT" \
    --enable-log-requests \
    --ec-transfer-config '{
        "ec_connector": "ECExampleConnector",
        "ec_role": "ec_both",
        "ec_connector_extra_config": {
            "shared_storage_path": "'"$EC_SHARED_STORAGE_PATH"'"
        }
    }' \
    "$@"
