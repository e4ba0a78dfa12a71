# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/27409 (comment of 2025-11-25, "works:"), seen 2026-12-02: the launch of the hybrid granite-4.0-h-tiny without pipeline parallelism.
vllm serve ibm-granite/granite-4.0-h-tiny  --enable-auto-tool-choice --reasoning-parser=granite --tool-call-parser granite  --enable-prefix-caching --max-model-len 32384
