# Reconstructed (not copied) after https://github.com/defilantech/LLMKube/issues/1030 (the argv LLMKube's vLLM runtime builds, as its pod log shows), seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
vllm serve TinyLlama/TinyLlama-1.1B-Chat-v1.0 --port 8000 --enable-metrics
