# https://docs.vllm.ai/en/v0.10.0/features/reasoning_outputs.html (the Quickstart of vLLM 0.10.0's docs)
vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B \
    --reasoning-parser deepseek_r1
