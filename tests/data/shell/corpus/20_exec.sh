#!/bin/bash
# exec replaces the shell; nothing after it runs.
export OMP_NUM_THREADS=8
exec python3 -m sglang.launch_server --model-path /models/qwen --port 30000
python3 -m sglang.launch_server --model-path /never/runs
