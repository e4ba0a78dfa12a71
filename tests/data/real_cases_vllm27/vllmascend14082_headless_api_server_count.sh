#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm-ascend/issues/14082: the GLM-5.2 guide's second node (v0.22.1rc) passes --api-server-count 1 with --headless, which the reporter says fails ("携带这个参数会报错"); the other flags as the issue lists them; the head node's address a stand-in
node0_ip="141.61.39.105"
vllm serve /root/.cache/modelscope/hub/models/vllm-ascend/GLM-5.2-w8a8 \
  --host 0.0.0.0 \
  --port 8077 \
  --seed 1024 \
  --gpu-memory-utilization 0.95 \
  --api-server-count 1 \
  --max-num-seqs 16 \
  --headless \
  --data-parallel-size 2 \
  --data-parallel-size-local 1 \
  --data-parallel-start-rank 1 \
  --data-parallel-address "$node0_ip" \
  --data-parallel-rpc-port 12980
