#!/bin/bash
printf -v PORT '%s' 30055
NAME=$'qwen\x2dchat'
python3 -m sglang.launch_server --model-path /m --port "$PORT" --served-model-name "$NAME"
