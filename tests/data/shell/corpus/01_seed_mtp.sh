#!/bin/bash
# args: 0 30000
# The reference story: GPU and port as positional parameters, MTP flags, log to a file.
GPU_ID=$1
PORT=$2
export CUDA_VISIBLE_DEVICES=$GPU_ID
export SGLANG_ENABLE_SPEC_V2=1
MODEL_PATH=/workspace/models/Qwen3.6-27B
mkdir -p logs
python3 -m sglang.launch_server \
  --model-path "$MODEL_PATH" \
  --port "$PORT" \
  --host 0.0.0.0 \
  --tp-size 1 \
  --mem-fraction-static 0.80 \
  --speculative-algorithm NEXTN \
  --speculative-num-steps 3 \
  --mamba-scheduler-strategy extra_buffer \
  --max-mamba-cache-size 64 > logs/sglang_mtp.log 2>&1 &
echo $! > logs/server.pid
