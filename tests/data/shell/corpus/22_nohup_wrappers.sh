#!/bin/bash
nohup timeout 3600 stdbuf -oL python3 -u -m sglang.launch_server --model-path /m --port 30000 >> run.log 2>&1 &
PID=$!
echo "$PID" > server.pid
