# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/8273 ("These work:"), seen 2026-12-02: the second working line, with --uvicorn-log-level.
vllm serve "/hpcwork/fw641779/llm/Meta-Llama-3.1-8B-Instruct" --uvicorn-log-level info
