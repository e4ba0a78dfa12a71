#!/bin/bash
# args: 0
# expect: SH023 SH019
PORT=${2:?usage: launch.sh GPU PORT}
python3 -m sglang.launch_server --model-path /m --port "$PORT"
