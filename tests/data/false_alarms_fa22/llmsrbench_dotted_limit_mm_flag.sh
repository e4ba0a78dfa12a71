#!/bin/bash
# Reconstructed (not copied) after https://github.com/gaoch6258/llm-srbench/blob/0b6158875015c0948c9c7d263fcb5174090b9732/engine_with_tools.sh, seen 2026-12-04: `vllm serve` of a local Qwen3-VL-8B with tp 4, the dotted `--limit-mm-per-prompt.video 0`, `--async-scheduling`, and indented commented-out flags after it.

CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve /mnt/hdd_raid5/gaoch/Qwen3-VL-8B-Instruct \
  --dtype auto \
  --port 10005 \
  --max-model-len 40730 \
  --tensor-parallel-size 4 \
  --limit-mm-per-prompt.video 0 \
  --async-scheduling
    # --enable-auto-tool-choice \
  # --tool-call-parser hermes \
