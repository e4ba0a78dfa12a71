#!/bin/bash
# Reconstructed (not copied) after https://github.com/gongyisheng/oss-workspace/blob/37e68129c1388e8ad2822d494f8d7a6e4a8483c6/miles/lora-gpt-oss/qwen3-30b/run_sglang.sh, seen 2026-12-04: `set -ex`, `pkill -9` of earlier servers and ray, one GPU, `${MODEL_PATH:-...}` and `${PORT:-30000}` defaults, an SGLang server with one named LoRA adapter (`--lora-paths "name=path"`) on the triton LoRA backend (kept: the structure, the flags)
set -ex

pkill -9 sglang
sleep 3
ray stop --force
pkill -9 ray
pkill -9 python
sleep 3

export CUDA_VISIBLE_DEVICES=7

MODEL_PATH=${MODEL_PATH:-/root/qwen3-30b}
PORT=${PORT:-30000}

python -m sglang.launch_server \
    --model-path "${MODEL_PATH}" \
    --lora-paths "my-lora-adapter=/root/lora_model/qwen3-30b" \
    --tp-size 1 \
    --lora-backend triton \
    --port "${PORT}" \
    --host 0.0.0.0
