#!/bin/bash
python3 -m sglang.launch_server --model-path /m --cuda-graph-bs {1..4} 8 16 --name x{a,b}y
