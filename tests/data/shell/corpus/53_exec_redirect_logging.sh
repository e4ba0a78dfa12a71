#!/bin/bash
# All output of the script (and the server) appended to one log.
exec >> run.log 2>&1
echo "starting at $(date)"
python3 -m sglang.launch_server --model-path /m --port 30000
