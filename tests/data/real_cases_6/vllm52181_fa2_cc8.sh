# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/52181 (comment by Tortoise17, 2026-08-13, vLLM 0.27.1 per its banner), seen 2026-12-02: the command; the title's error "FA2 is only supported on devices with compute capability >= 8" (a GPU older than Ampere).
vllm serve  --model Qwen3.6-35B-A3B --gpu-memory-utilization 0.7  --dtype float16
