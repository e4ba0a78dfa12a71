#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/03b32f5a60e59bcbe6af8b721dc8da55c35cd292/examples/online_serving/disaggregated_prefill.sh, seen 2026-12-01: `set -xe`, VLLM_HOST_IP exported when unset, the `if python3 -c "import quart"` install check, the prefill and decode `vllm serve` lines with their --kv-transfer-config JSON (VLLM_HOST_IP spliced in), the readiness wait and the proxy.
set -xe

MODEL_NAME=${HF_MODEL_NAME:-meta-llama/Meta-Llama-3.1-8B-Instruct}

if [[ -z "${VLLM_HOST_IP:-}" ]]; then
    export VLLM_HOST_IP=127.0.0.1
fi

if ! python3 -c "import quart" &> /dev/null; then
    python3 -m pip install quart
fi

wait_ready() {
  local port=$1
  timeout 1200 bash -c "
    until curl -i localhost:${port}/v1/models > /dev/null; do
      sleep 1
    done" && return 0 || return 1
}

# prefill instance (KV producer)
CUDA_VISIBLE_DEVICES=2 vllm serve $MODEL_NAME \
    --host 0.0.0.0 \
    --port 8100 \
    --max-model-len 100 \
    --gpu-memory-utilization 0.8 \
    --trust-remote-code \
    --kv-transfer-config \
    '{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer","kv_rank":0,"kv_parallel_size":2,"kv_buffer_size":"1e9","kv_port":"14579","kv_connector_extra_config":{"proxy_ip":"'"$VLLM_HOST_IP"'","proxy_port":"30001","http_ip":"'"$VLLM_HOST_IP"'","http_port":"8100","send_type":"PUT_ASYNC"}}' &

# decode instance (KV consumer)
CUDA_VISIBLE_DEVICES=3 vllm serve $MODEL_NAME \
    --host 0.0.0.0 \
    --port 8200 \
    --max-model-len 100 \
    --gpu-memory-utilization 0.8 \
    --trust-remote-code \
    --kv-transfer-config \
    '{"kv_connector":"P2pNcclConnector","kv_role":"kv_consumer","kv_rank":1,"kv_parallel_size":2,"kv_buffer_size":"1e10","kv_port":"14580","kv_connector_extra_config":{"proxy_ip":"'"$VLLM_HOST_IP"'","proxy_port":"30001","http_ip":"'"$VLLM_HOST_IP"'","http_port":"8200","send_type":"PUT_ASYNC"}}' &

wait_ready 8100
wait_ready 8200

python3 ../../benchmarks/disagg_benchmarks/disagg_prefill_proxy_server.py &
sleep 1
curl -s -X POST http://localhost:8000/v1/completions -H "Content-Type: application/json" \
  -d '{"model": "'"$MODEL_NAME"'", "prompt": "San Francisco is a", "max_tokens": 10}'
