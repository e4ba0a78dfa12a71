#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/b56f185f55e03959caa8451e0137afcd69d7ae05/.buildkite/performance-benchmarks/scripts/launch-server.sh, seen 2026-12-03: set -x, the two JSON parameters taken as $1 and $2, json2args (jq turning keys into flags), and the vLLM/SGLang launchers chosen by $CURRENT_LLM_SERVING_ENGINE, each building its command in a string and starting it with `eval "$server_command" &`.
set -x
server_params=$1
common_params=$2
json2args() {
  local json_string=$1
  local args=$(echo "$json_string" | jq -r 'to_entries | map("--" + (.key | gsub("_"; "-")) + " " + (.value | tostring)) | join(" ")')
  echo "$args"
}
launch_sglang_server() {
  model=$(echo "$common_params" | jq -r '.model')
  tp=$(echo "$common_params" | jq -r '.tp')
  port=$(echo "$common_params" | jq -r '.port')
  server_args=$(json2args "$server_params")
  server_command="python3 -m sglang.launch_server --tp $tp --model-path $model --port $port $server_args"
  eval "$server_command" &
}
launch_vllm_server() {
  export VLLM_HOST_IP=$(hostname -I | awk '{print $1}')
  model=$(echo "$common_params" | jq -r '.model')
  tp=$(echo "$common_params" | jq -r '.tp')
  port=$(echo "$common_params" | jq -r '.port')
  server_args=$(json2args "$server_params")
  server_command="vllm serve $model -tp $tp --port $port $server_args"
  eval "$server_command" &
}
main() {
  if [[ "$CURRENT_LLM_SERVING_ENGINE" == "sglang" ]]; then
    launch_sglang_server
  fi
  if [[ "$CURRENT_LLM_SERVING_ENGINE" == *"vllm"* ]]; then
    launch_vllm_server
  fi
}
main
