#!/bin/bash
# Reconstructed (not copied) after https://github.com/NVIDIA/srt-slurm/pull/277: per-node DP launch mode, one vllm serve per node with --data-parallel-hybrid-lb and no --headless (each node serves its own API); a DEP16 decode over two 8-GPU nodes, the model and addresses stand-ins
MODEL=deepseek-ai/DeepSeek-V3
ssh node0 vllm serve $MODEL --port 8000 --enable-expert-parallel \
  --data-parallel-size 16 --data-parallel-size-local 8 --data-parallel-start-rank 0 --data-parallel-hybrid-lb \
  --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13345 &
ssh node1 vllm serve $MODEL --port 8000 --enable-expert-parallel \
  --data-parallel-size 16 --data-parallel-size-local 8 --data-parallel-start-rank 8 --data-parallel-hybrid-lb \
  --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13345 &
wait
