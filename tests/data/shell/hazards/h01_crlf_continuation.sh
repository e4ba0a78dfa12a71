#!/bin/bash
# expect: SH002
export CUDA_VISIBLE_DEVICES=0
python3 -m sglang.launch_server --model-path /m \
  --port 30000 \
  --mamba-scheduler-strategy extra_buffer
