#!/bin/bash
# Reconstructed (not copied) after https://github.com/ohjoonhee/lmms-eval/blob/0f85fb21213ffb4f78cf1fd04e660c734455dea1/scripts/qwen_vllm_serve.sh, seen 2026-12-04: `vllm serve` of Qwen3-VL-2B whose last flag line continues into three commented-out flags, the last comment ending in a backslash at the end of the file (no newline).

vllm serve Qwen/Qwen3-VL-2B-Instruct \
    --enable-auto-tool-choice \
    --tool-call-parser hermes \
    --gpu-memory-utilization 0.5 \
    --max-model-len 65536 \
    # --max-model-len 131072 \
    # --quantization fp8
    # --reasoning-parser deepseek_r1 \