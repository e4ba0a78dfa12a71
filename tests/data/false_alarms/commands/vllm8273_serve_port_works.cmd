# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/8273 ("These work:"), seen 2026-12-02: the first working line, a quoted local model path and --port.
vllm serve "/hpcwork/fw641779/llm/Meta-Llama-3.1-8B-Instruct"  --port 6379
