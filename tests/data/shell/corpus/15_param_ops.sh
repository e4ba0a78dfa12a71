#!/bin/bash
# args: /data/models/Qwen2.5-72B-Instruct-AWQ
MODEL=$1
NAME=${MODEL##*/}
DIR=${MODEL%/*}
LOWER=${NAME,,}
UPPER=${NAME^^}
SHORT=${NAME%-*}
NOAWQ=${NAME/-AWQ/}
ALLDASH=${NAME//-/_}
FIRST=${NAME:0:4}
LEN=${#NAME}
python3 -m sglang.launch_server --model-path "$MODEL" --served-model-name "$LOWER" \
  --x "$DIR" "$UPPER" "$SHORT" "$NOAWQ" "$ALLDASH" "$FIRST" "$LEN" "${NAME#Qwen}" "${MODEL%%/*}"
