#!/bin/bash
# expect: SH017
source ./missing_env.sh
python3 -m sglang.launch_server --model-path /m --port "${PORT:-30000}"
