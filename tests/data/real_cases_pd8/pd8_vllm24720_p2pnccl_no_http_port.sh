#!/bin/bash
# Reconstructed after https://github.com/vllm-project/vllm/pull/24720 (2025-09-12, vLLM main before 0.10.2): examples/online_serving/disaggregated_prefill.sh's prefill and decode lines with P2pNcclConnector and no "http_port" in kv_connector_extra_config, which "was failing with KeyError: 'http_port' ... at p2p_nccl_engine.py:95" (the fix adds http_port 8100 and 8200). The other keys follow the example's fixed form; http_ip is left out with http_port.
set -xe
MODEL_NAME=${HF_MODEL_NAME:-meta-llama/Meta-Llama-3.1-8B-Instruct}
if [[ -z "${VLLM_HOST_IP:-}" ]]; then
    export VLLM_HOST_IP=127.0.0.1
fi

CUDA_VISIBLE_DEVICES=0 vllm serve $MODEL_NAME \
    --host 0.0.0.0 \
    --port 8100 \
    --max-model-len 100 \
    --gpu-memory-utilization 0.8 \
    --trust-remote-code \
    --kv-transfer-config \
    '{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer","kv_buffer_size":"1e9","kv_port":"14579","kv_connector_extra_config":{"proxy_ip":"'"$VLLM_HOST_IP"'","proxy_port":"30001","send_type":"PUT_ASYNC"}}' &

CUDA_VISIBLE_DEVICES=1 vllm serve $MODEL_NAME \
    --host 0.0.0.0 \
    --port 8200 \
    --max-model-len 100 \
    --gpu-memory-utilization 0.8 \
    --trust-remote-code \
    --kv-transfer-config \
    '{"kv_connector":"P2pNcclConnector","kv_role":"kv_consumer","kv_buffer_size":"1e10","kv_port":"14580","kv_connector_extra_config":{"proxy_ip":"'"$VLLM_HOST_IP"'","proxy_port":"30001","send_type":"PUT_ASYNC"}}' &
wait
