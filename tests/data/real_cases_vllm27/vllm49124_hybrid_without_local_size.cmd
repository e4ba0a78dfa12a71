# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/49124: the PR's reproducer case "hybrid_without_local_size" (EngineArgs keywords) as the vllm serve flags
vllm serve deepseek-ai/DeepSeek-V2-Lite-Chat --data-parallel-size 2 --data-parallel-hybrid-lb
