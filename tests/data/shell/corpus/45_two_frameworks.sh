#!/bin/bash
# args: both
if [ "$1" = both ] || [ "$1" = sglang ]; then
  python3 -m sglang.launch_server --model-path /m --port 30000 &
  SG_PID=$!
fi
if [ "$1" = both ] || [ "$1" = vllm ]; then
  vllm serve /m --port 8000 &
  VL_PID=$!
fi
wait $SG_PID $VL_PID
