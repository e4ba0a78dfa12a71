#!/bin/bash
declare -i N=2+3
N+=1
S=abc
S+=def
python3 -m sglang.launch_server --model-path /m --n "$N" --s "$S"
