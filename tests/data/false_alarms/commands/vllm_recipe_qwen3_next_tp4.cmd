# Reconstructed (not copied) after https://github.com/vllm-project/recipes/blob/0645a1a776a937b69c0411d9df71e266ae876fb5/Qwen/Qwen3-Next.md (Basic Multi-GPU Setup), seen 2026-12-01: the server flags with their values, re-typed as one command line (no doc prose).
vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4 --served-model-name qwen3-next
