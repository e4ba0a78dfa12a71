# https://github.com/vllm-project/recipes/blob/83d2ab6b7df2e12c81a4b79432d39c977fc9a364/Qwen/Qwen3.6.md (recipe, 2026: latency-focused MTP speculative decoding; release not named)
vllm serve Qwen/Qwen3.6-35B-A3B-FP8 \
  --tensor-parallel-size 8 \
  --speculative-config '{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}' \
  --reasoning-parser qwen3
