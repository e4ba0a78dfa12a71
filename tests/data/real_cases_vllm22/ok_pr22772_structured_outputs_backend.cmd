# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/22772 (2025-08-13: "There will be no `--guided-decoding-*` option anymore. Instead, you should use `--structured-outputs-config '{...}'` or `--structured-outputs-config.backend outlines`"; released in 0.11.0)
vllm serve Qwen/Qwen3-8B --structured-outputs-config.backend outlines
