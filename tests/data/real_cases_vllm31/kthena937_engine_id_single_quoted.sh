#!/bin/bash
# Reconstructed (not copied) after https://github.com/volcano-sh/kthena/pull/937 (2026-04-28: the DeepSeek-V4-Flash decode server of examples/models/deepseek-v4-flash/modelserving.yaml; a review points out that --kv-transfer-config is single-quoted, so "$MOONCAKE_ENGINE_ID" is not expanded and engine_id is the literal string, and that --enable-expert-parallel is given twice); the lines the review quotes, the model path, the variable's value and the tail of the JSON object are stand-ins
export MOONCAKE_ENGINE_ID=decode-0
vllm serve /models/DeepSeek-V4-Flash-w8a8 \
  --enable-expert-parallel \
  --tensor-parallel-size 8 \
  --enable-expert-parallel \
  --gpu-memory-utilization 0.88 \
  --quantization ascend \
  --speculative-config '{"num_speculative_tokens": 2, "method":"deepseek_mtp"}' \
  --compilation-config '{"cudagraph_mode": "FULL_DECODE_ONLY","cudagraph_capture_sizes":[144]}' \
  --kv-transfer-config \
  '{"kv_connector": "MooncakeConnectorV1",
  "kv_role": "kv_consumer",
  "kv_port": "9000",
  "engine_id": "$MOONCAKE_ENGINE_ID",
  "kv_connector_module_path": "vllm_ascend.distributed.mooncake_connector"}'
