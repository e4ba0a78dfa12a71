#!/bin/bash
# args: 8
# A command built from a string and run unquoted (word splitting builds the argv).
TP=$1
CMD="python3 -m sglang.launch_server --model-path /models/deepseek --tp $TP --trust-remote-code"
CMD="$CMD --port 30000"
echo "running: $CMD"
$CMD
