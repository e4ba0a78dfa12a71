#!/bin/bash
while true; do
  python3 -m sglang.launch_server --model-path /m --port 30000
  sleep 1
done
