#!/bin/bash
# args: qwen
set -e
[ -n "$DEBUG" ] && set -x
if [ -z "$1" ]; then echo "usage: $0 MODEL" >&2; exit 1; fi
! [ "$1" = llama ]
[ "$1" = qwen ] || { echo "only qwen here" >&2; exit 2; }
test -n "$1"
python3 -m sglang.launch_server --model-path "/models/$1" --port 30000
