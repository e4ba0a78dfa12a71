# Copied from https://github.com/vllm-project/recipes/blob/0119a6617d1dd6fbe46c62aab8729511dcdbfbe0/Qwen/Qwen3-VL.md ("A100 & H100 (Image Inference)"; seen 2026-12-02): the recipe's image-only launch, `--limit-mm-per-prompt.video 0` written with two hyphens (vllm-project/recipes PR#90 later fixed a copy of that flag written `----limit-mm-per-prompt.video`).
vllm serve Qwen/Qwen3-VL-235B-A22B-Instruct \
  --tensor-parallel-size 8 \
  --limit-mm-per-prompt.video 0 \
  --mm-encoder-tp-mode data \
  --mm-processor-cache-type shm \
  --async-scheduling \
  --gpu-memory-utilization 0.95
