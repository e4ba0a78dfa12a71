# https://github.com/vllm-project/vllm/pull/51824 (the PR's test launch after its fix: DeepEP v2 over two DP ranks with expert parallelism)
vllm serve deepseek-ai/DeepSeek-V2-Lite --data-parallel-size 2 --enable-expert-parallel --all2all-backend deepep_v2 --enforce-eager
