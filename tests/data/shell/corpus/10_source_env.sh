#!/bin/bash
# source of a file relative to the script, common settings in env/common.sh
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$SCRIPT_DIR/env/common.sh"
. ./env/model.sh qwen
python3 -m sglang.launch_server --model-path "$MODEL_PATH" --port "$PORT" --log-level "$LOG_LEVEL"
