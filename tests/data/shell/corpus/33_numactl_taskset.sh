#!/bin/bash
numactl --cpunodebind=0 --membind=0 python3 -m sglang.launch_server --model-path /m --port 30000
taskset -c 0-15 python3 -m sglang.launch_server --model-path /m --port 30001
