#!/bin/bash
# Reconstructed after a comment on https://github.com/vllm-project/vllm/pull/15960 (the V1 KV connector API, 2025-04-28): the posted api_server line with "kv_connector":"LMCacheConnector", the V0 connector's name; the V1 engine registers LMCacheConnectorV1 and the engine core fails to start.
python3 -m vllm.entrypoints.openai.api_server --model  /extended/downloaded/Meta-Llama-3.1-70B-Instruct-quantized.w8a8/ --kv-transfer-config '{"kv_connector":"LMCacheConnector", "kv_role":"kv_both"}' --max-model-len 4096 --gpu-memory-utilization 0.9
