#!/bin/bash
# https://github.com/gpustack/gpustack/issues/6221 (the reply's fixed head command; the model path is a stand-in): internal LB, DP rank 0 of 2 here, the headless worker holds rank 1
vllm serve /models/Qwen3-30B-A3B \
  --tensor-parallel-size 2 \
  --data-parallel-size 2 \
  --data-parallel-size-local 1 \
  --data-parallel-address 10.10.10.37 \
  --data-parallel-rpc-port 40015 \
  --distributed-executor-backend mp \
  --host 10.10.10.37 \
  --port 40013
