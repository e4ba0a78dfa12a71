#!/bin/bash
# args: mtp 30010
MODE=${1:-base}
if [[ $MODE == mtp ]]; then
  EXTRA="--speculative-algorithm NEXTN --speculative-num-steps 2"
elif [[ $MODE == eagle* ]]; then
  EXTRA="--speculative-algorithm EAGLE"
else
  EXTRA=""
fi
if [ -z "$2" ]; then PORT=30000; else PORT=$2; fi
# shellcheck disable=SC2086
python3 -m sglang.launch_server --model-path /models/q --port "$PORT" $EXTRA
