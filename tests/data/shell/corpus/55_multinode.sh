#!/bin/bash
# args: 1 10.0.0.1
NODE_RANK=${1:?node rank}
MASTER_ADDR=${2:-127.0.0.1}
NNODES=2
export NCCL_SOCKET_IFNAME=eth0
export GLOO_SOCKET_IFNAME=eth0
python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 --tp 16 \
  --dist-init-addr "${MASTER_ADDR}:5000" --nnodes "$NNODES" --node-rank "$NODE_RANK" --trust-remote-code \
  $( [ "$NODE_RANK" -eq 0 ] || echo --skip-server-warmup )
