#!/bin/bash
# expect: SH006
python3 -m sglang.launch_server --model-path /m --served-model-name “qwen” --port 30000
