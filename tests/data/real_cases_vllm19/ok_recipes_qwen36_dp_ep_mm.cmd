# https://github.com/vllm-project/recipes/blob/83d2ab6b7df2e12c81a4b79432d39c977fc9a364/Qwen/Qwen3.6.md (recipe, 2026: multimodal, DP with expert parallelism; release not named)
vllm serve Qwen/Qwen3.6-35B-A3B-FP8 \
  -dp 8 \
  --enable-expert-parallel \
  --mm-encoder-tp-mode data \
  --mm-processor-cache-type shm \
  --reasoning-parser qwen3 \
  --enable-prefix-caching
