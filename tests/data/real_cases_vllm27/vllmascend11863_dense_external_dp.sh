#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm-ascend/issues/11863: the guide's PD prefill script for the dense Qwen3.6-27B with --data-parallel-rank (external DP), refused with "Non-MoE models do not support external data parallel mode" (vllm-ascend v0.21.0rc1); the positional parameters given as the guide's values, the KV connector's extra config cut
vllm serve /data/models/Qwen3.6-27B-w8a8 \
  --host 0.0.0.0 \
  --port 8000 \
  --data-parallel-size 2 \
  --data-parallel-rank 0 \
  --data-parallel-address 141.61.39.105 \
  --data-parallel-rpc-port 13389 \
  --tensor-parallel-size 4 \
  --seed 1024 \
  --quantization ascend \
  --served-model-name qwen3.6 \
  --trust-remote-code \
  --max-num-seqs 4 \
  --max-model-len 32768 \
  --max-num-batched-tokens 16384 \
  --no-enable-prefix-caching \
  --gpu-memory-utilization 0.95 \
  --enforce-eager \
  --speculative-config '{"method": "qwen3_5_mtp", "num_speculative_tokens": 3, "enforce_eager": true}' \
  --kv-transfer-config '{"kv_connector": "MooncakeConnectorV1", "kv_role": "kv_producer", "kv_port": "30000", "engine_id": "0"}'
