# https://github.com/vllm-project/vllm/pull/30559 (the PR's test launch: EPLB with the default all2all backend, DP 2 with expert parallelism)
vllm serve deepseek-ai/DeepSeek-V2-lite -dp 2 --port 9256 --enable-expert-parallel --enable-eplb --eplb-config '{"window_size":100,"step_interval":100}'
