#!/bin/bash
# Reconstructed (not copied) after https://docs.sglang.io/docs/basic_usage/glm45.md (EAGLE Speculative Decoding, and its tip on the overlap scheduler), seen 2026-12-01: SGLANG_ENABLE_SPEC_V2=1 exported as the tip says, then the EAGLE launch of GLM-4.6-FP8 with its flags and values.
export SGLANG_ENABLE_SPEC_V2=1

python3 -m sglang.launch_server \
  --model-path zai-org/GLM-4.6-FP8 \
  --tp-size 8 \
  --tool-call-parser glm45 \
  --reasoning-parser glm45 \
  --speculative-algorithm EAGLE \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --mem-fraction-static 0.9 \
  --served-model-name glm-4.6-fp8 \
  --enable-custom-logit-processor
