#!/bin/bash
# args: 2
# A function with its own positional parameters and locals.
start_server() {
  local model=$1
  local port=$2
  shift 2
  python3 -m sglang.launch_server --model-path "$model" --port "$port" "$@"
}
TP=$1
start_server /models/a 30000 --tp "$TP"
start_server /models/b 30001 --tp 1 --disable-radix-cache
