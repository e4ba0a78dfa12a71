#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/54880: examples/ray_serving/elastic_ep/serve_deepseek_v2.sh on main (2026-09; vLLM 0.29.0 stands in) passes a flat --num-redundant-experts, which the CLI no longer registers (EPLB settings go through --eplb-config); the other flags as a stand-in of the example; checked with the arguments "deepseek-ai/DeepSeek-V2-Lite-Chat 32" (a stand-in count)
MODEL_NAME=${1:-deepseek-ai/DeepSeek-V2-Lite-Chat}
REDUNDANT_EXPERTS=${2:-0}
vllm serve "$MODEL_NAME" \
  --trust-remote-code \
  --data-parallel-size 2 \
  --data-parallel-backend ray \
  --enable-expert-parallel \
  --enable-elastic-ep \
  --enable-eplb \
  --num-redundant-experts "$REDUNDANT_EXPERTS"
