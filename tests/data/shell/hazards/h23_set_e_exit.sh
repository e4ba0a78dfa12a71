#!/bin/bash
# args: llama
# expect: SH023 SH019
set -e
[ "$1" = qwen ]
python3 -m sglang.launch_server --model-path "/models/$1" --port 30000
