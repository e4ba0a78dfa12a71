#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/54880: the elastic-EP example with the PR's --eplb-config.num_redundant_experts (vLLM 0.29.0 stands in for main of 2026-09); the other flags as a stand-in of the example
MODEL_NAME=${1:-deepseek-ai/DeepSeek-V2-Lite-Chat}
REDUNDANT_EXPERTS=${2:-0}
vllm serve "$MODEL_NAME" \
  --trust-remote-code \
  --data-parallel-size 2 \
  --data-parallel-backend ray \
  --enable-expert-parallel \
  --enable-elastic-ep \
  --enable-eplb \
  --eplb-config.num_redundant_experts "$REDUNDANT_EXPERTS"
