#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm-ascend/pull/16204: the DeepSeek-V3.2 EP prefiller's two nodes on vLLM 0.28, each given --data-parallel-start-rank, the secondary also --headless; the head infers hybrid LB (local 1: external) and refuses the headless remote ("Remote engine must not use --headless"); the PR drops --headless. Addresses, ports and the other flags are stand-ins
MODEL=/models/DeepSeek-V3.2-W8A8
ssh node0 vllm serve $MODEL --port 8000 --tensor-parallel-size 8 --enable-expert-parallel \
  --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-start-rank 0 \
  --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389 --quantization ascend &
ssh node1 vllm serve $MODEL --headless --tensor-parallel-size 8 --enable-expert-parallel \
  --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-start-rank 1 \
  --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389 --quantization ascend &
wait
