#!/bin/bash
# expect: SH005
python3 -m sglang.launch_server --model-path <path> --port 30000 --tp 1
