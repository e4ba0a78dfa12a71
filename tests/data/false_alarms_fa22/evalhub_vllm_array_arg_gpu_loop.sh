#!/bin/bash
# Reconstructed (not copied) after https://github.com/ysy-phoenix/evalhub/blob/03101a1a57678f97e105a0de973cc4b56c4ad296/scripts/serve.sh, seen 2026-12-04: `args=("$@")` and `${args[0]}`, a `for GPU_ID in {0..7}` loop starting one background server per GPU on `$((BASE_PORT + GPU_ID))`.

args=("$@")
MODEL_NAME=${args[0]}
BASE_PORT=10086

for GPU_ID in {0..7}; do
  PORT=$((BASE_PORT + GPU_ID))
  CUDA_VISIBLE_DEVICES=$GPU_ID vllm serve "$MODEL_NAME" \
    --port $PORT \
    --disable-log-requests \
    &
done
