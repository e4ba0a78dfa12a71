#!/bin/bash
# args: extra1 "two words"
args=(
  --model-path /models/qwen
  --port 30000
  --json-model-override-args '{"rope_scaling": {"type": "yarn", "factor": 4.0}}'
)
args+=(--served-model-name "qwen 7b")
echo "n=${#args[@]} first=${args[0]}"
python3 -m sglang.launch_server "${args[@]}" --extra "${@:1}" "${args[1]}"
