#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/002a1057e9ae674d7bdc9c4be95bc29d65d2e808/tests/v1/kv_connector/nixl_integration/run_accuracy_test.sh, seen 2026-12-03: set -xe, the while/case option loop, the KV_CONFIG JSON built from pieces, ${VAR:-default} sizes, the per-instance loops that compute the GPU, port and side-channel port and start each server through `eval "$FULL_CMD 2>&1 | tee -a LOG &"` with its variables in front, the trap and the pkill between models.
set -xe
KV_BUFFER_DEVICE="cuda"
ATTENTION_BACKEND=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --kv_buffer_device) KV_BUFFER_DEVICE="$2"; shift 2 ;;
    --attention-backend) ATTENTION_BACKEND="$2"; shift 2 ;;
    *) echo "Unknown option $1"; exit 1 ;;
  esac
done
DECODER_KV_LAYOUT=${DECODER_KV_LAYOUT:-"HND"}
if [[ "$DECODER_KV_LAYOUT" == "NHD" ]]; then
  KV_CONFIG_HETERO_LAYOUT=',"enable_permute_local_kv":"True"'
else
  KV_CONFIG_HETERO_LAYOUT=''
fi
if [[ "$KV_BUFFER_DEVICE" == "cuda" ]]; then
  KV_CONFIG='{"kv_connector":"NixlConnector","kv_role":"kv_both"'${KV_CONFIG_HETERO_LAYOUT}'}'
else
  KV_CONFIG="{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\",\"kv_buffer_device\":\"$KV_BUFFER_DEVICE\"${KV_CONFIG_HETERO_LAYOUT}}"
fi
MODELS=("Qwen/Qwen3-0.6B")
NUM_PREFILL_INSTANCES=${NUM_PREFILL_INSTANCES:-1}
NUM_DECODE_INSTANCES=${NUM_DECODE_INSTANCES:-1}
PREFILLER_TP_SIZE=${PREFILLER_TP_SIZE:-1}
DECODER_TP_SIZE=${DECODER_TP_SIZE:-1}
GPU_MEMORY_UTILIZATION=${GPU_MEMORY_UTILIZATION:-0.2}
PREFILL_BLOCK_SIZE=${PREFILL_BLOCK_SIZE:-128}
DECODE_BLOCK_SIZE=${DECODE_BLOCK_SIZE:-128}
trap 'kill $(jobs -pr)' SIGINT SIGTERM EXIT

run_tests_for_model() {
  local model_name=$1
  for i in $(seq 0 $((NUM_PREFILL_INSTANCES-1))); do
    GPU_ID=$i
    PORT=$((8100 + i))
    SIDE_CHANNEL_PORT=$((5559 + i))
    BASE_CMD="CUDA_VISIBLE_DEVICES=$GPU_ID \
    VLLM_KV_CACHE_LAYOUT='HND' \
    UCX_NET_DEVICES=all \
    VLLM_NIXL_SIDE_CHANNEL_PORT=$SIDE_CHANNEL_PORT \
    vllm serve $model_name \
    --port $PORT \
    --enforce-eager \
    --block-size ${PREFILL_BLOCK_SIZE} \
    --gpu-memory-utilization $GPU_MEMORY_UTILIZATION \
    --tensor-parallel-size $PREFILLER_TP_SIZE \
    --kv-transfer-config '$KV_CONFIG'"
    if [[ -n "$ATTENTION_BACKEND" ]]; then
      BASE_CMD="${BASE_CMD} --attention-backend=$ATTENTION_BACKEND"
    fi
    eval "$BASE_CMD 2>&1 | tee -a prefill_instance_$i.log &"
  done
  for i in $(seq 0 $((NUM_DECODE_INSTANCES-1))); do
    GPU_ID=$((i + NUM_PREFILL_INSTANCES))
    PORT=$((8200 + i))
    SIDE_CHANNEL_PORT=$((5659 + i * $DECODER_TP_SIZE))
    BASE_CMD="CUDA_VISIBLE_DEVICES=$GPU_ID \
    VLLM_KV_CACHE_LAYOUT=$DECODER_KV_LAYOUT \
    UCX_NET_DEVICES=all \
    VLLM_NIXL_SIDE_CHANNEL_PORT=$SIDE_CHANNEL_PORT \
    vllm serve $model_name \
    --port $PORT \
    --enforce-eager \
    --block-size ${DECODE_BLOCK_SIZE} \
    --gpu-memory-utilization $GPU_MEMORY_UTILIZATION \
    --kv-transfer-config '$KV_CONFIG'"
    if [[ -z "$DP_EP" ]]; then
      BASE_CMD="${BASE_CMD} --tensor-parallel-size $DECODER_TP_SIZE"
    else
      BASE_CMD="${BASE_CMD} --data-parallel-size $DECODER_TP_SIZE --tensor-parallel-size 1 --enable-expert-parallel"
    fi
    eval "$BASE_CMD 2>&1 | tee -a decode_instance_$i.log &"
  done
  pkill -f "vllm serve" || true
}
for model in "${MODELS[@]}"; do
  run_tests_for_model "$model"
done
