# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/23192 (image vllm/vllm-openai:v0.9.1), seen 2026-12-02: the command line as the report shows it (placeholders where it redacts).
vllm serve RedHatAI/Mixtral-8x7B-Instruct-v0.1-FP8 --port 8910 --host 0.0.0.0 --tensor-parallel-size 8 --served-model-name Mixtral-8x7B-Instruct-v0.1-FP8 --no-enable-prefix-caching
