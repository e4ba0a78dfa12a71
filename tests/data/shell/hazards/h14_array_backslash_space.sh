#!/bin/bash
# expect: SH003
ARGS=(
  --model-path /m \ 
  --port 30000
)
python3 -m sglang.launch_server "${ARGS[@]}"
