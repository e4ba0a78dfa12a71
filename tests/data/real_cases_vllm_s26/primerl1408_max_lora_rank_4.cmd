# Reconstructed (not copied) after https://github.com/PrimeIntellect-ai/prime-rl/pull/1408: a rank-4 adapter's rank passed as --max-lora-rank, which vLLM only accepts from its list
vllm serve Qwen/Qwen3-4B --enable-lora --max-lora-rank 4 --lora-modules reasoner=/adapters/rank4
