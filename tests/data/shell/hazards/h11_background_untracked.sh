#!/bin/bash
# expect:
nohup python3 -m sglang.launch_server --model-path /m --port 30000 >> server.log 2>&1 &
echo started
