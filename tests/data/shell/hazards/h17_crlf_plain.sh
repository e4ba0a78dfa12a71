#!/bin/bash
# expect: SH002
PORT=30000
python3 -m sglang.launch_server --model-path /m --port $PORT
