#!/bin/bash
# args: 0
[ -n "$1" ] && GPU=$1 || GPU=7
[ -z "$UNSET_THING" ] && MODE=default
true || MODE=never
CUDA_VISIBLE_DEVICES=$GPU python3 -m sglang.launch_server --model-path /m --mode "$MODE"
