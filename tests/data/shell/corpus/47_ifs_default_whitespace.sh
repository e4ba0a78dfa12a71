#!/bin/bash
FLAGS="  --tp 2   --dp 1	--enable-torch-compile "
# shellcheck disable=SC2086
python3 -m sglang.launch_server --model-path /m $FLAGS
