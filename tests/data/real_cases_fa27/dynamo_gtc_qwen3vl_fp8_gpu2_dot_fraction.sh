#!/bin/bash
# Reconstructed (not copied) after https://github.com/maljazaery/dynamo/blob/056520345641fddbfa4437dc0f834f56fc2a6c6a/examples/backends/vllm/launch/gtc/vllm_serve_gpu2.sh, seen 2026-12-04: a Dynamo fork's GTC demo: `CUDA_VISIBLE_DEVICES=2 \` on its own line before `vllm serve` of Qwen3-VL-30B-A3B-Instruct-FP8, `--enable-log-requests`, `--gpu-memory-utilization .95` (a fraction with no leading zero) (kept: the whole command)
CUDA_VISIBLE_DEVICES=2 \
vllm serve Qwen/Qwen3-VL-30B-A3B-Instruct-FP8 \
    --enable-log-requests \
    --max-model-len 32768 \
    --gpu-memory-utilization .95
