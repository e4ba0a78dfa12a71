#!/bin/bash
# https://github.com/gpustack/gpustack/issues/6221 (the worker node's command as the reply gives it; the model path is a stand-in): DP rank 1 of 2, headless, beside a head that passed --data-parallel-start-rank 0
vllm serve /models/Qwen3-30B-A3B \
  --headless \
  --tensor-parallel-size 2 \
  --data-parallel-size 2 \
  --data-parallel-size-local 1 \
  --data-parallel-start-rank 1 \
  --data-parallel-address 10.10.10.37 \
  --data-parallel-rpc-port 40015 \
  --distributed-executor-backend mp
