#!/bin/bash
# expect: SH028
CMD="python3 -m sglang.launch_server --model-path /m --port 30000 > server.log 2>&1"
$CMD
