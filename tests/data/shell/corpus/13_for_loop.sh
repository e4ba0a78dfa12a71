#!/bin/bash
# Several servers from a for loop (one per GPU), backgrounded, then wait.
for i in 0 1 2 3; do
  port=$((30000 + i))
  CUDA_VISIBLE_DEVICES=$i python3 -m sglang.launch_server --model-path /models/small --port $port \
    > "server_$i.log" 2>&1 &
  pids+=($!)
done
wait
