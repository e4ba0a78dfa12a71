# Reconstructed (not copied) after https://github.com/sgl-project/sglang/issues/23985 (2026-04-29, description, latest cu130 image on an RTX 5090), seen 2026-12-02: the command; error 'assert arch // 10 == 10, "FP8 is only supported on SM100 (compute capability 10.x) for FA4 CuTe"'; the maintainer: FA4 does not support SM120, use the flashinfer backend.
sglang serve \
  --model-path /models \
  --trust-remote-code \
  --quantization compressed-tensors \
  --attention-backend fa3 \
  --fp8-gemm-backend flashinfer_trtllm \
  --context-length 180000 \
  --dtype bfloat16 \
  --chunked-prefill-size 8192 \
  --kv-cache-dtype fp8_e5m2 \
  --tp-size 1 \
  --host 0.0.0.0 \
  --port 1234 \
  --sleep-on-idle \
  --enable-custom-logit-processor \
  --tool-call-parser qwen3_coder \
  --reasoning-parser qwen3-thinking \
  --mem-fraction-static 0.85
