#!/usr/bin/env bash
# Qwen3.6-27B with MTP speculative decoding on one GPU of the node.
# usage: launch_mtp.sh GPU_ID PORT        e.g.  bash launch_mtp.sh 0 30000
# Reproduces "The Phantom Configuration": the script asks for extra_buffer, the server says no_buffer.
set -e

GPU=$1
PORT=$2
MODEL=/workspace/models/Qwen3.6-27B
LOG=/workspace/dflash/logs/sglang_mtp.log

export CUDA_VISIBLE_DEVICES=$GPU
export SGLANG_ENABLE_SPEC_V2=1

nohup python3 -m sglang.launch_server \
    --model-path $MODEL \
    --served-model-name qwen3.6-27b \
    --host 0.0.0.0 \
    --port $PORT \
    --tp-size 1 \
    --mem-fraction-static 0.80 \
    --speculative-algorithm NEXTN \
    --speculative-num-steps 3 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 4 \
    # MTP on a hybrid Mamba model needs the extra buffer (it doubles the Mamba state cache)
    --mamba-scheduler-strategy extra_buffer \
    --max-mamba-cache-size 64 \
    --mamba-full-memory-ratio 0.5 \
    --reasoning-parser qwen3 \
    > $LOG 2>&1 &
