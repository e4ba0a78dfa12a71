#!/bin/bash
# args: 0
# expect: SH007
python3 -m sglang.launch_server --model-path /m --port=$2 --tp 1
