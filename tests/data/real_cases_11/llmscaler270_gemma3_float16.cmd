# Reconstructed (not copied) after https://github.com/intel/llm-scaler/issues/270 (2026-02-01, image intel/llm-scaler-vllm:0.11.1-b7, "vLLM API server version 0.11.2.dev0"), seen 2026-12-02: the command the reporter ran inside the container. The server exits in config validation: Gemma3 does not support float16 ("Numerical instability. Please use bfloat16 or float32 instead."); --dtype bfloat16 works.
vllm serve \
  --model /llm/models/Gemma-27B \
  --dtype float16 \
  --enforce-eager \
  --port 8000 \
  --host 0.0.0.0 \
  --disable-sliding-window \
  --gpu-memory-util 0.9 \
  --no-enable-prefix-caching \
  --max-num-batched-tokens 8192 \
  --max-model-len 8192 \
  --block-size 64 \
  -tp 4
