#!/bin/bash
# args: 0
# expect: SH012 SH019
set -u
PORT=$2
python3 -m sglang.launch_server --model-path /m --port "$PORT"
