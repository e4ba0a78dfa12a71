#!/bin/bash
# A child bash: -c strings (with their own $0 $1) and a script run with bash; only exported variables pass.
export PORT=30100
LOCAL_ONLY=not-exported
bash -c 'python3 -m sglang.launch_server --model-path "$1" --port "$PORT" --local "${LOCAL_ONLY:-unset}" --zero "$0"' child /models/a
nohup bash -c "exec python3 -m sglang.launch_server --model-path /models/b --port $((PORT + 1))" >> b.log 2>&1 &
wait
bash env/child.sh /models/c "two words"
