# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/50346: the reporter's variable on vLLM 0.26.0 (measured there: "Unknown vLLM environment variable detected")
VLLM_ATTENTION_BACKEND=TRITON_ATTN vllm serve Qwen/Qwen2.5-0.5B-Instruct --gpu-memory-utilization 0.5
