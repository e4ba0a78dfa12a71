#!/bin/bash
# Reconstructed (not copied) after https://github.com/llm-d/llm-d/pull/856: the decode worker with the backend passed as vllm serve's --all2all-backend, as the PR moves it (vLLM 0.16.0); the model and sizes are stand-ins
vllm serve deepseek-ai/DeepSeek-R1-0528 \
  --port 8200 \
  --data-parallel-size 8 \
  --data-parallel-size-local 8 \
  --enable-expert-parallel \
  --all2all-backend deepep_low_latency \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
