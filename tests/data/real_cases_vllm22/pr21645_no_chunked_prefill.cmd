# https://github.com/vllm-project/vllm/pull/21645 (2025-07-26, on main after 0.10.0: "when a user specify `--no-enable-chunked-prefill` ... it will silently overwrite the setting to `True`"; the PR's own test plan command)
vllm serve Qwen/Qwen3-0.6B --no-enable-chunked-prefill
