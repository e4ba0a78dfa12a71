#!/bin/bash
X=$(printf '%99999999999s' a)
printf -v Y '%*d' 999999999 1
python3 -m sglang.launch_server --model-path /m --served-model-name "$X$Y"
