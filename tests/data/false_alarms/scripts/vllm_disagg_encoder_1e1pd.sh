#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/03a9735e050ce2595450938fb354ca9beeaf8c31/examples/online_serving/disaggregated_encoder/disagg_1e1pd_example.sh, seen 2026-12-01: `set -euo pipefail`, the ${VAR:-default} ports/GPUs, time-stamped log files, the exported keep-alive timeouts and their `(( ))` check, the encoder and prefill+decode `vllm serve` lines with their multi-line --ec-transfer-config JSON, PIDS+=($!), the proxy and `vllm bench serve`.
set -euo pipefail

declare -a PIDS=()
MODEL="${MODEL:-Qwen/Qwen2.5-VL-3B-Instruct}"
LOG_PATH="${LOG_PATH:-./logs}"
ENCODE_PORT="${ENCODE_PORT:-19534}"
PREFILL_DECODE_PORT="${PREFILL_DECODE_PORT:-19535}"
PROXY_PORT="${PROXY_PORT:-10001}"
GPU_E="${GPU_E:-0}"
GPU_PD="${GPU_PD:-1}"
EC_SHARED_STORAGE_PATH="${EC_SHARED_STORAGE_PATH:-/tmp/ec_cache}"
TIMEOUT_SECONDS="${TIMEOUT_SECONDS:-12000}"

export VLLM_HTTP_TIMEOUT_KEEP_ALIVE="${VLLM_HTTP_TIMEOUT_KEEP_ALIVE:-70}"
export CLIENT_HTTP_TIMEOUT_KEEP_ALIVE="${CLIENT_HTTP_TIMEOUT_KEEP_ALIVE:-60}"
if (( $CLIENT_HTTP_TIMEOUT_KEEP_ALIVE >= $VLLM_HTTP_TIMEOUT_KEEP_ALIVE )); then
    echo "client keep-alive must be shorter than the server's" >&2
    exit 1
fi

# Each run logs to new, time-stamped files.
STAMP=$(date +"%Y%m%d_%H%M%S")
mkdir -p $LOG_PATH
rm -rf $EC_SHARED_STORAGE_PATH && mkdir -p $EC_SHARED_STORAGE_PATH

wait_ready() {
    timeout "$TIMEOUT_SECONDS" bash -c "
        until curl -s localhost:$1/v1/chat/completions > /dev/null; do sleep 1; done"
}

stop_all() { kill "${PIDS[@]}" 2>/dev/null || true; exit 0; }
trap stop_all INT TERM USR1

CUDA_VISIBLE_DEVICES="$GPU_E" vllm serve "$MODEL" \
    --gpu-memory-utilization 0.7 \
    --port "$ENCODE_PORT" \
    --enforce-eager \
    --enable-request-id-headers \
    --no-enable-prefix-caching \
    --max-num-batched-tokens 4096 \
    --max-num-seqs 128 \
    --ec-transfer-config '{
        "ec_connector": "ECSharedStorageConnector",
        "ec_role": "ec_producer",
        "ec_connector_extra_config": {
            "shared_storage_path": "'"$EC_SHARED_STORAGE_PATH"'"
        }
    }' \
    >"$LOG_PATH/encoder_$STAMP.log" 2>&1 &
PIDS+=($!)

CUDA_VISIBLE_DEVICES="$GPU_PD" VLLM_NIXL_SIDE_CHANNEL_PORT=6000 vllm serve "$MODEL" \
    --gpu-memory-utilization 0.7 \
    --port "$PREFILL_DECODE_PORT" \
    --enforce-eager \
    --enable-request-id-headers \
    --max-num-seqs 128 \
    --ec-transfer-config '{
        "ec_connector": "ECSharedStorageConnector",
        "ec_role": "ec_consumer",
        "ec_connector_extra_config": {
            "shared_storage_path": "'"$EC_SHARED_STORAGE_PATH"'"
        }
    }' \
    >"$LOG_PATH/pd_$STAMP.log" 2>&1 &
PIDS+=($!)

wait_ready $ENCODE_PORT
wait_ready $PREFILL_DECODE_PORT

python disagg_epd_proxy.py --host 0.0.0.0 --port "$PROXY_PORT" \
    --encode-servers-urls "http://localhost:$ENCODE_PORT" \
    --prefill-servers-urls disable \
    --decode-servers-urls "http://localhost:$PREFILL_DECODE_PORT" \
    >"$LOG_PATH/proxy_$STAMP.log" 2>&1 &
PIDS+=($!)
wait_ready $PROXY_PORT

vllm bench serve --model $MODEL --backend openai-chat --endpoint /v1/chat/completions \
    --dataset-name hf --dataset-path lmarena-ai/VisionArena-Chat --seed 0 \
    --num-prompts "${NUM_PROMPTS:-100}" --port $PROXY_PORT
stop_all
