# Reconstructed (not copied) after https://github.com/vllm-project/recipes/issues/441 (2026-05-05, 1x A100 80 GB), seen 2026-12-02: the recipe's command with --max_num_batched_tokens above 2496 ("Setting `--max_num_batched_tokens` to any value higher than 2496 solves the issue"; 4096 is one such value, the report names none).
vllm serve google/gemma-4-26B-A4B-it \
  --max-model-len 32768 \
  --gpu-memory-utilization 0.90 \
  --max_num_batched_tokens 4096
