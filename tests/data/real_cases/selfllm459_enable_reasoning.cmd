# Reconstructed (not copied) after https://github.com/datawhalechina/self-llm/issues/459, seen 2026-12-01: the command line as the report shows it (placeholders where it redacts).
VLLM_USE_MODELSCOPE=true vllm serve /root/autodl-tmp/Qwen/Qwen3-8B --served-model-name Qwen3-8B --max_model_len 8192 --enable-reasoning --reasoning-parser deepseek_r1
