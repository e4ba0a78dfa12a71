#!/bin/bash
# the server behind python -m with interpreter options and a versioned python
python3.11 -u -X faulthandler -m sglang.launch_server --model-path /m --port 30000
