# https://github.com/vllm-project/vllm/pull/32359 (correct once the PR is in, 2026-01: "Support async scheduling + PP"; the PR's test launch, $MODEL as the PR sets it; release not named)
vllm serve Qwen/Qwen3-30B-A3B-Thinking-2507-FP8 -pp 4 --port 9256 --max-num-seqs 128 --async-scheduling
