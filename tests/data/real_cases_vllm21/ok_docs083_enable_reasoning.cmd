# https://docs.vllm.ai/en/v0.8.3/features/reasoning_outputs.html (the Quickstart of vLLM 0.8.3's docs: --enable-reasoning still registered then)
vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B \
    --enable-reasoning --reasoning-parser deepseek_r1
