#!/bin/bash
# args: a "b c" d
ALL="$*"
python3 -m sglang.launch_server --model-path /m --all "$ALL" --count $# --star $* --at "$@" --last "${@: -1}"
