#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/bc384b0986dc30b221533a6b3b2a3a8f3fb32adc/benchmarks/disagg_benchmarks/disagg_nixl_epd_benchmark.sh, seen 2026-12-03: set -ex, the two launch functions (encode + prefill/decode; encode, prefill, decode) with their per-instance NIXL side-channel variables and --kv-transfer-config JSON, the exported VLLM_HOST_IP, main "$@".
set -ex
wait_for_server() {
  local port=$1
  timeout 1200 bash -c "
    until curl -s localhost:${port}/v1/completions > /dev/null; do
      sleep 1
    done" && return 0 || return 1
}
launch_e_pd() {
  model="Qwen/Qwen2.5-VL-3B-Instruct"
  CUDA_VISIBLE_DEVICES=0 VLLM_NIXL_SIDE_CHANNEL_HOST=localhost VLLM_NIXL_SIDE_CHANNEL_PORT=5560 vllm serve $model \
    --port 8100 --trust-remote-code --enable-request-id-headers \
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_encoder_mode":"encoder_only"}' &
  CUDA_VISIBLE_DEVICES=1 VLLM_NIXL_SIDE_CHANNEL_HOST=localhost VLLM_NIXL_SIDE_CHANNEL_PORT=5561 vllm serve $model \
    --port 8200 --trust-remote-code --enable-request-id-headers \
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}' &
  wait_for_server 8100
  wait_for_server 8200
}
launch_e_p_d() {
  model="Qwen/Qwen2.5-VL-3B-Instruct"
  CUDA_VISIBLE_DEVICES=0 VLLM_NIXL_SIDE_CHANNEL_HOST=localhost VLLM_NIXL_SIDE_CHANNEL_PORT=5560 vllm serve $model \
    --port 8100 --trust-remote-code --enable-request-id-headers \
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_encoder_mode":"encoder_only"}' &
  CUDA_VISIBLE_DEVICES=1 VLLM_NIXL_SIDE_CHANNEL_HOST=localhost VLLM_NIXL_SIDE_CHANNEL_PORT=5561 vllm serve $model \
    --port 8200 --trust-remote-code --enable-request-id-headers \
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_encoder_mode":"ep_encoder"}' &
  CUDA_VISIBLE_DEVICES=2 VLLM_NIXL_SIDE_CHANNEL_HOST=localhost VLLM_NIXL_SIDE_CHANNEL_PORT=5562 vllm serve $model \
    --port 8300 --trust-remote-code --enable-request-id-headers \
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}' &
  wait_for_server 8100
  wait_for_server 8200
  wait_for_server 8300
}
main() {
  cd "$(dirname "$0")"
  export VLLM_HOST_IP=$(hostname -I | awk '{print $1}')
  launch_e_pd
  pgrep VLLM | xargs -r kill -9
  launch_e_p_d
}
main "$@"
