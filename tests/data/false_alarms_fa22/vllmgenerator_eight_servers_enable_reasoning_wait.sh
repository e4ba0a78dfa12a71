#!/bin/bash
# Reconstructed (not copied) after https://github.com/pingzhili/vllm-generator/blob/34ff8edf8d4ddd2469627f6d216559f63a4b0222/scripts/serve_8_gpus.sh, seen 2026-12-04: eight background `vllm serve` lines (one GPU and port each, `--enable-reasoning --reasoning-parser deepseek_r1`) and the final `wait` (no newline).

MODEL_NAME="Qwen/Qwen3-8B"

CUDA_VISIBLE_DEVICES=0 vllm serve $MODEL_NAME --enable-reasoning --reasoning-parser deepseek_r1 --port 8000 &
CUDA_VISIBLE_DEVICES=1 vllm serve $MODEL_NAME --enable-reasoning --reasoning-parser deepseek_r1 --port 8001 &
CUDA_VISIBLE_DEVICES=2 vllm serve $MODEL_NAME --enable-reasoning --reasoning-parser deepseek_r1 --port 8002 &
CUDA_VISIBLE_DEVICES=3 vllm serve $MODEL_NAME --enable-reasoning --reasoning-parser deepseek_r1 --port 8003 &
CUDA_VISIBLE_DEVICES=4 vllm serve $MODEL_NAME --enable-reasoning --reasoning-parser deepseek_r1 --port 8004 &
CUDA_VISIBLE_DEVICES=5 vllm serve $MODEL_NAME --enable-reasoning --reasoning-parser deepseek_r1 --port 8005 &
CUDA_VISIBLE_DEVICES=6 vllm serve $MODEL_NAME --enable-reasoning --reasoning-parser deepseek_r1 --port 8006 &
CUDA_VISIBLE_DEVICES=7 vllm serve $MODEL_NAME --enable-reasoning --reasoning-parser deepseek_r1 --port 8007 &

wait