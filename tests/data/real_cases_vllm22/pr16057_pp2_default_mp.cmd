# https://github.com/vllm-project/vllm/pull/16057 (2025-04-04, main before 0.8.3: "running a model with pipeline parallelism with default args results in an error because the default "mp" distributed executor is not supported in V1 for PP"; the PR's reproduction)
vllm serve Qwen/Qwen2-1.5B-Instruct -pp 2
