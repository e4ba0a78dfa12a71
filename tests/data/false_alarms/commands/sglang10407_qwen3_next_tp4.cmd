# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/10407 (comment by cft-ai, 2025-09-15; the server starts and serves, the illegal memory access on long prompts was a Qwen3-Next kernel bug), seen 2026-12-02: the launch with its variable.
CUDA_LAUNCH_BLOCKING=1 python3 -m sglang.launch_server --model Qwen/Qwen3-Next-80B-A3B-Thinking --port 3000 --tp 4
