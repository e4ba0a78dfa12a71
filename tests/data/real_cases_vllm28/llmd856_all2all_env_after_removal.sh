#!/bin/bash
# Reconstructed (not copied) after https://github.com/llm-d/llm-d/pull/856: "vLLM no longer uses environment variables to specify the all2all backend" (vllm PR#33535); a decode worker of the wide-EP guide still selecting DeepEP low-latency through VLLM_ALL2ALL_BACKEND on a vLLM 0.16.0 image; the model and sizes are stand-ins
export VLLM_ALL2ALL_BACKEND=deepep_low_latency
vllm serve deepseek-ai/DeepSeek-R1-0528 \
  --port 8200 \
  --data-parallel-size 8 \
  --data-parallel-size-local 8 \
  --enable-expert-parallel \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
