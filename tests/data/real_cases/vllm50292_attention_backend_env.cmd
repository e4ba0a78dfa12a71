# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/50292 (the issue sets it before LLM(); the same setting on the CLI), seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
VLLM_ATTENTION_BACKEND=TRITON_ATTN vllm serve Qwen/Qwen2.5-0.5B-Instruct --gpu-memory-utilization 0.5
