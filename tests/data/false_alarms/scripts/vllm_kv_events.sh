#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/75a8722747bfead87a1024fbe1d5f79da2c1fdbb/examples/online_serving/kv_events.sh, seen 2026-12-01: `set -xe`, the HF_MODEL_NAME default, VLLM_HOST_IP exported from $(hostname -I ...), a background `vllm serve` with --kv-events-config JSON, a `timeout ... bash -c` readiness wait, the subscriber and one request.
set -xe

MODEL_NAME=${HF_MODEL_NAME:-meta-llama/Meta-Llama-3.1-8B-Instruct}

stop_all() {
    pkill -f kv_events_subscriber.py || true
    exit 0
}
trap 'stop_all' INT

export VLLM_HOST_IP=$(hostname -I | awk '{print $1}')

wait_ready() {
  local port=$1
  timeout 1200 bash -c "
    until curl -s localhost:${port}/v1/completions > /dev/null; do
      sleep 1
    done" && return 0 || return 1
}

vllm serve $MODEL_NAME \
    --port 8100 \
    --max-model-len 100 \
    --gpu-memory-utilization 0.8 \
    --trust-remote-code \
    --kv-events-config \
    '{"enable_kv_cache_events": true, "publisher": "zmq", "topic": "kv-events"}' &

wait_ready 8100

python3 ./kv_events_subscriber.py &
sleep 1

reply=$(curl -s -X POST http://localhost:8100/v1/completions \
  -H "Content-Type: application/json" \
  -d '{"model": "'"$MODEL_NAME"'", "prompt": "Hello", "max_tokens": 8}')
echo "reply: $reply"
