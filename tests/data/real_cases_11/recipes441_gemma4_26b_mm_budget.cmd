# Reconstructed (not copied) after https://github.com/vllm-project/recipes/issues/441 (2026-05-05, 1x A100 80 GB), seen 2026-12-02: the recipe's command for gemma-4-26B-A4B-it on one GPU. The report: "ValueError: Chunked MM input disabled but max_tokens_per_mm_item (2496) is larger than max_num_batched_tokens (2048). Please increase max_num_batched_tokens."; any --max_num_batched_tokens above 2496 solves it.
vllm serve google/gemma-4-26B-A4B-it \
  --max-model-len 32768 \
  --gpu-memory-utilization 0.90
