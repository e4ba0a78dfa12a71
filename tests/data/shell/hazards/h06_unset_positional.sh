#!/bin/bash
# args: 0
# expect: SH007
export CUDA_VISIBLE_DEVICES=$1
python3 -m sglang.launch_server --model-path /m --port $2 --mamba-scheduler-strategy extra_buffer
