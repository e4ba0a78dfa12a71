#!/bin/bash
python3 -m sglang.launch_server --model-path /m --served-model-name $'\e]0;pwned\a\e[2J'
