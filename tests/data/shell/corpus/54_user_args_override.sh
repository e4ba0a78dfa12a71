#!/bin/bash
# args: --port 31000 --log-level debug
# Defaults first, then whatever the caller passes ("$@" wins in argparse).
python3 -m sglang.launch_server \
  --model-path /models/qwen \
  --port 30000 \
  --mem-fraction-static 0.85 \
  "$@"
