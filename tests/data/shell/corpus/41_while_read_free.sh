#!/bin/bash
count=0
until [ $count -ge 3 ]; do
  count=$((count + 1))
done
i=0
while true; do
  i=$((i + 1))
  if [ $i -ge 5 ]; then break; fi
  [ $i -eq 2 ] && continue
done
python3 -m sglang.launch_server --model-path /m --count $count --i $i
