#!/bin/bash
# Reconstructed (not copied) after https://github.com/NavneelSinghal/Adaptive-Sampling-Networks/blob/d035597cc3dd6b8a128fa86ce356de028c1cca29/src/_sglang/run_sglang_server_qwen.sh, seen 2026-12-04: an SGLang server for rollouts with custom logit processors, a quoted host, TP 2, a low static memory fraction, a fixed seed (kept: the flags)

python -m sglang.launch_server \
  --model-path /mnt/data/llms/Qwen-experiments/Qwen2.5-3B-Instruct \
  --host "localhost" \
  --port 30000 \
  --tp-size 2 \
  --enable-custom-logit-processor \
  --disable-custom-all-reduce \
  --mem-fraction-static 0.3 \
  --random-seed 0
