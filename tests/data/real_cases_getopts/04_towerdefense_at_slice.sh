#!/bin/bash
# Reconstructed (not copied) after https://github.com/q1w2e3r4-1/TowerDefense-JiuKun/blob/2de05ba3e013ae96d910f66d190d57b37c439f19/start_vllm_server.sh, seen 2026-12-02: keeps `MODEL_PATH="$1"`, `EXTRA_ARGS="${@:2}"` (the rest joined into one string), the empty-model exit and the unquoted `$EXTRA_ARGS` at the end of `vllm serve --model`
# args: /models/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.8 --tensor-parallel-size 2
MODEL_PATH="$1"
PORT=8000
HOST=127.0.0.1
EXTRA_ARGS="${@:2}"

if [ -z "$MODEL_PATH" ]; then
  echo "usage: $0 <model_path> [extra_args...]"
  exit 1
fi

vllm serve --model "$MODEL_PATH" --port "$PORT" --host "$HOST" --max-model-len 32768 $EXTRA_ARGS
