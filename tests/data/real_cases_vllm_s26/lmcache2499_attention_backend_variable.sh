#!/bin/bash
# Reconstructed (not copied) after https://github.com/LMCache/LMCache/pull/2499: the MP test's server start; the variable is no longer read, so batch-invariant mode finds no backend
export VLLM_BATCH_INVARIANT=1
export VLLM_ATTENTION_BACKEND=FLASH_ATTN
vllm serve Qwen/Qwen3-0.6B --port 8000 \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
