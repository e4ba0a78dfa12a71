#!/bin/bash
X=1
( X=2; export INNER=yes; python3 -m sglang.launch_server --model-path /m --x "$X" )
python3 -m sglang.launch_server --model-path /m --x "$X" --inner "${INNER:-no}"
