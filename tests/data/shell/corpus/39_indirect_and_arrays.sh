#!/bin/bash
declare -A PORTS=([qwen]=30000 [llama]=30001)
NAME=qwen
REF=NAME
sizes=(1 2 4 8)
sizes[5]=32
python3 -m sglang.launch_server --model-path /m --port "${PORTS[$NAME]}" --name "${!REF}" \
  --bs "${sizes[@]}" --n "${#sizes[@]}" --last "${sizes[-1]}" --slice "${sizes[@]:1:2}"
