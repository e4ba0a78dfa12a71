#!/bin/bash
# expect: SH026
PORT=
python3 -m sglang.launch_server --model-path /m --port $PORT --tp 1
