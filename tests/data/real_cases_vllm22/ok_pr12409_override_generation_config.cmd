# https://github.com/vllm-project/vllm/pull/12409 (2025-01-24, the PR's example usage; its log: "Overwriting default chat sampling param with: {'top_k': 5}")
vllm serve Qwen/Qwen2.5-1.5B-Instruct --override-generation-config "{\"top_k\": 5}"
