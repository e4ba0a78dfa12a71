# Reconstructed (not copied) after https://github.com/PrimeIntellect-ai/prime-rl/pull/1408: the rank rounded up to 8, the smallest value vLLM accepts
vllm serve Qwen/Qwen3-4B --enable-lora --max-lora-rank 8 --lora-modules reasoner=/adapters/rank4
