#!/bin/bash
# expect: SH006
python3 -m sglang.launch_server --model-path /m –-port 30000 --tp 1
