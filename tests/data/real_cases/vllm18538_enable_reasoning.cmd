# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/18538 (comment: vllm 0.10.0), seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
vllm serve Qwen/Qwen3-8B --enable-reasoning --reasoning-parser deepseek_r1
