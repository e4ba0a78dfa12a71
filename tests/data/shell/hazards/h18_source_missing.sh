#!/bin/bash
# expect:
source ./missing_env.sh
python3 -m sglang.launch_server --model-path /m --port "${PORT:-30000}"
