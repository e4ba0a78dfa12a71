#!/bin/bash
# args: qwen 30000 --log-level debug
MODEL=$1; shift
PORT=$1; shift
python3 -m sglang.launch_server --model-path "/models/$MODEL" --port "$PORT" "$@"
