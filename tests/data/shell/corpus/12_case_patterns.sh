#!/bin/bash
# args: H100
case "$1" in
  A100|a100) MEM=0.85 ;;
  H1[0-9]0) MEM=0.90 ;;
  *) MEM=0.80 ;;
esac
case "$MEM" in
  0.9*) CHUNK=8192 ;;&
  0.9?) NOTE=fast ;;
  *) CHUNK=4096 ;;
esac
python3 -m sglang.launch_server --model-path /m --mem-fraction-static "$MEM" --chunked-prefill-size "$CHUNK" \
  --note "$NOTE"
