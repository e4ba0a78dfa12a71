#!/bin/bash
# args: x y
set -- --port 30123 --tp 2
shift 0
python3 -m sglang.launch_server --model-path /m "$@"
