#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/Austontatious/lex/blob/4f65f5b8690aa2cd325355195421b86bc73c01a6/scripts/run_vllm_vllm.sh, seen 2026-12-04: the script a systemd unit (lexi-vllm.service) runs: `set -e`, an exported CUDA_VISIBLE_DEVICES, `exec` of a venv's python running the OpenAI API server, a merged Qwen3-30B-A3B in float16 on TP 4 with swap space (kept: the flags)
set -e

export CUDA_VISIBLE_DEVICES=0,1,2,3

exec /mnt/data/vllm-venv/bin/python -m vllm.entrypoints.openai.api_server \
  --model /mnt/data/models/Qwen/lexi-qwen3-30b-a3b-dpo-merged \
  --served-model-name Lexi \
  --tensor-parallel-size 4 \
  --dtype float16 \
  --max-num-seqs 8 \
  --swap-space 12 \
  --max-model-len 32000 \
  --enforce-eager \
  --gpu-memory-utilization 0.88 \
  --host 0.0.0.0 \
  --port 8008
