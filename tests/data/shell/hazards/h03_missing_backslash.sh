#!/bin/bash
# expect: SH004
python3 -m sglang.launch_server --model-path /m \
  --port 30000
  --mamba-scheduler-strategy extra_buffer \
  --tp 2
