#!/bin/bash
A=1
export A
export B=2 C
C=3
declare -x D=4
readonly E=5
declare F=6
export -n B
typeset -x G="seven"
python3 -m sglang.launch_server --model-path /m --e "$E" --f "$F"
