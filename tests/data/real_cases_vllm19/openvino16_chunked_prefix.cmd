# https://github.com/vllm-project/vllm-openvino/issues/16 (2025-05-28, vllm-openvino plugin, release not named: "RuntimeError('chunked prefill cannot be used with prefix caching now.')")
vllm serve Qwen/Qwen2.5-7B-Instruct \
	--dtype auto \
	--enable-chunked-prefill \
	--enable-prefix-caching \
	--api-key token-abc123
