#!/bin/bash
X=outer
X=inner SGLANG_TORCH_PROFILER_DIR=/tmp/prof python3 -m sglang.launch_server --model-path /m --x "$X"
echo "$X"
