#!/bin/bash
STEPS=3
SPEC="{\"method\": \"mtp\", \"num_speculative_tokens\": $STEPS}"
vllm serve /models/qwen3 --speculative-config "$SPEC" --compilation-config '{"level": 3, "cudagraph_capture_sizes": [1, 2, 4]}' \
  --limit-mm-per-prompt "{\"image\": 2}"
