#!/bin/bash
# args: 4
GPUS=$1
TP=$(( GPUS / 2 ))
DP=$(( GPUS / TP ))
(( MEM = 70 + 5 * 2 ))
let "PORT = 30000 + 7"
i=5; ((i++)); ((i += 2))
python3 -m sglang.launch_server --model-path /m --tp $TP --dp $DP --mem-fraction-static 0.$MEM --port $PORT \
  --i $i --hex $((0x10)) --oct $((010)) --pow $((2**10)) --tern $((GPUS > 2 ? 1 : 0))
