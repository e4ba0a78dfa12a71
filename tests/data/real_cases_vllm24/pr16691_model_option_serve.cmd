# https://github.com/vllm-project/vllm/pull/16691 (2025-04-16, main before 0.8.5: "`serve` is use model as a positional argument"; the PR's own command, which raises before the server starts)
vllm serve --model mistralai/Mistral-7B-Instruct-v0.3
