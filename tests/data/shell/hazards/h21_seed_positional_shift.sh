#!/bin/bash
# args: 0
# expect: SH007
# The story: launched with one argument, `--port $2` eats the next flag.
export CUDA_VISIBLE_DEVICES=$1
export SGLANG_ENABLE_SPEC_V2=1
nohup python3 -m sglang.launch_server \
  --model-path /workspace/models/Qwen3.6-27B \
  --port $2 \
  --mamba-scheduler-strategy extra_buffer \
  --speculative-algorithm NEXTN > sglang_mtp.log 2>&1 &
echo $! > server.pid
