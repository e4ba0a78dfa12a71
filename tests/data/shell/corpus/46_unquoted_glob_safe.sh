#!/bin/bash
# set -f disables globbing, so unquoted * stays literal
set -f
python3 -m sglang.launch_server --model-path /m --pattern *.json
