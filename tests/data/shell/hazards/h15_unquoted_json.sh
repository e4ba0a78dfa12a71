#!/bin/bash
# expect: SH022
python3 -m sglang.launch_server --model-path /m --json-model-override-args {"a":1,"b":2}
