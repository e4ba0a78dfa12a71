#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/026c83f974fcee0e1887060ebdcc53dc427bacfc/docs/features/nixl_connector_usage.md, "Basic Usage (on the same host)", seen 2026-12-02: a prefiller and a decoder with NixlConnector (kv_both) on one host, each with its own VLLM_NIXL_SIDE_CHANNEL_PORT (5600, 5601) and GPU, as documented (`&` added); the toy proxy is left out (a test file of vLLM's repository).
CUDA_VISIBLE_DEVICES=0 \
UCX_NET_DEVICES=all \
VLLM_NIXL_SIDE_CHANNEL_PORT=5600 \
vllm serve Qwen/Qwen3-0.6B \
  --port 8100 \
  --enforce-eager \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_load_failure_policy":"fail"}' &
CUDA_VISIBLE_DEVICES=1 \
UCX_NET_DEVICES=all \
VLLM_NIXL_SIDE_CHANNEL_PORT=5601 \
vllm serve Qwen/Qwen3-0.6B \
  --port 8200 \
  --enforce-eager \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_load_failure_policy":"fail"}' &
wait
