# Reconstructed (not copied) after https://docs.vllm.ai/projects/recipes/en/latest/DeepSeek/DeepSeek-V3.html (8xH200 FP8, Data Parallel + Expert Parallel), seen 2026-12-01: the serve flags, re-typed as one command line.
vllm serve deepseek-ai/DeepSeek-R1-0528 --trust-remote-code --data-parallel-size 8 --enable-expert-parallel
