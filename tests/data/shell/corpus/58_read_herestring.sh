#!/bin/bash
# env: CUDA_VISIBLE_DEVICES=0,1,2,3
# The number of GPUs from CUDA_VISIBLE_DEVICES, and host:port split with read.
IFS=',' read -ra GPUS <<< "$CUDA_VISIBLE_DEVICES"
TP=${#GPUS[@]}
ENDPOINT="10.0.0.5 30000 extra words"
read -r HOST PORT REST <<< "$ENDPOINT"
IFS=: read -r A B <<< "x:y"
read -r WHOLE <<< "  padded value  "
python3 -m sglang.launch_server --model-path /m --tp "$TP" --first-gpu "${GPUS[0]}" --host "$HOST" \
  --port "$PORT" --rest "$REST" --a "$A" --b "$B" --whole "$WHOLE"
