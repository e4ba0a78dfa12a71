# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/46325, seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
vllm serve Qwen/Qwen3.5-2B -language-model-only
