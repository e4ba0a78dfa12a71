#!/bin/bash
# expect: SH008
MODEL="/models/my model"
python3 -m sglang.launch_server --model-path $MODEL --port 30000
