#!/bin/bash
# args: --gpu 3 --port 31000 --mtp
# A while/case/shift option loop, the usual way launch scripts take options.
GPU=0
PORT=30000
MTP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) GPU="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --mtp) MTP=1; shift ;;
    *) echo "unknown option $1" >&2; exit 1 ;;
  esac
done
ARGS=(--model-path /models/qwen --port "$PORT")
if [ "$MTP" -eq 1 ]; then
  ARGS+=(--speculative-algorithm NEXTN --speculative-num-steps 3)
fi
CUDA_VISIBLE_DEVICES="$GPU" python3 -m sglang.launch_server "${ARGS[@]}"
