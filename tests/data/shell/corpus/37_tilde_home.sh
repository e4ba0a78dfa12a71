#!/bin/bash
CACHE=~/.cache/sglang
python3 -m sglang.launch_server --model-path ~/models/qwen --cache "$CACHE" --home ~ --quoted "~/x"
