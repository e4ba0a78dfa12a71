# https://github.com/vllm-project/vllm/pull/37926 (2026-03-23: the PR's test plan, DBO with the DeepEP low-latency backend; release not named)
vllm serve Qwen/Qwen3.5-35B-A3B --trust-remote-code --gpu-memory-utilization 0.8 -dp 2 --enable-expert-parallel --all2all-backend deepep_low_latency --enable-dbo
