# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/35967 (2026-03-04, description, macOS CPU), seen 2026-12-02: the command, run inside the model directory; error "Value error, invalid literal for int() with base 10: '4.0'" while building the model config (the checkpoint's config, not a flag).
python -m vllm.entrypoints.openai.api_server \
  --model . \
  --served-model-name Qwen3.5-2B \
  --dtype auto \
  --trust-remote-code \
  --host 0.0.0.0 \
  --port 8000 \
  --max-model-len 16384 \
  --enforce-eager
