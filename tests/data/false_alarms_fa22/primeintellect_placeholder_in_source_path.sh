#!/bin/bash
# Reconstructed (not copied) after https://github.com/psukhopompos/primeintellect-start-up/blob/9c19bd935ddd7439df59dbbedb59d80a288a381d/launch_sglang_server.sh, seen 2026-12-04: the documentation placeholders kept as written (`"/workspace/models/<change-your-model-here>"` quoted, `source /workspace/<your>-engine/.venv/bin/activate` unquoted) and the nohup'd server logging to the quoted LOG_FILE.

MODEL_PATH="/workspace/models/<change-your-model-here>"
LOG_FILE="/workspace/<your>-engine/sglang_server.log"
PORT=7501

source /workspace/<your>-engine/.venv/bin/activate

nohup python3 -m sglang.launch_server \
    --model-path "$MODEL_PATH" \
    --port "$PORT" \
    --host 0.0.0.0 \
    > "$LOG_FILE" 2>&1 &

echo "PID: $!"
