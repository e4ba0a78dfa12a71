#!/bin/bash
# args: 1
# Parameter defaults: ${2:-30000}, ${PORT:=...}, ${HOST-0.0.0.0}
GPU=${1:-0}
PORT=${2:-30000}
: "${TP:=2}"
HOST=${HOST-0.0.0.0}
CUDA_VISIBLE_DEVICES=$GPU python3 -m sglang.launch_server --model-path /models/llama \
  --port "$PORT" --host "$HOST" --tp "$TP"
