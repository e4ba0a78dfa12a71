# https://github.com/vllm-project/vllm/pull/26732 (correct: the PR's "new way", --all2all-backend instead of VLLM_ALL2ALL_BACKEND; release not named)
vllm serve openai/gpt-oss-20b --data-parallel-size 2 --enable-expert-parallel --all2all-backend deepep_high_throughput
