# https://github.com/vllm-project/vllm/pull/14221 (main before 0.8.0, 2025-03-04: V1's FlashAttention refuses an fp8 KV cache at start)
VLLM_USE_V1=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --port 9000 --kv-cache-dtype fp8
