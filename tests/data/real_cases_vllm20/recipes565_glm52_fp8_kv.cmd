# https://github.com/vllm-project/recipes/issues/565 (2026-06-18, image vllm/vllm-openai:glm52: FLASHMLA_SPARSE "[kv_cache_dtype not supported]" with --kv-cache-dtype fp8_e4m3)
VLLM_DEEP_GEMM_WARMUP=skip \
vllm serve zai-org/GLM-5.2-FP8 \
  --gpu-memory-utilization 0.95 \
  --data-parallel-size 1 \
  --tensor-parallel-size 8 \
  --enable-expert-parallel \
  --max-num-seqs 256 \
  --max_num_batched_tokens 8192 \
  --kv-cache-dtype fp8_e4m3 \
  --enable-prefix-caching \
  --enable-chunked-prefill \
  --max-model-len 307200
