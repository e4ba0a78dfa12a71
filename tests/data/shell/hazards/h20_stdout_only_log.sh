#!/bin/bash
# expect: SH010
python3 -m sglang.launch_server --model-path /m --port 30000 > server.log
