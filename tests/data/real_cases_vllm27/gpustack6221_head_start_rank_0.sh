#!/bin/bash
# Reconstructed (not copied) after https://github.com/gpustack/gpustack/issues/6221: vLLM 0.29.0's two-node DP 2 x TP 2, the head also given --data-parallel-start-rank 0 (the reply's fix removes it), so the head infers hybrid LB, switches to external LB (local 1) and refuses the headless worker ("Remote engine 1 must not use --headless in external or hybrid dp lb mode"); the model path is a stand-in
# head node 10.10.10.37: serves the API
vllm serve /models/Qwen3-30B-A3B \
  --tensor-parallel-size 2 \
  --data-parallel-size 2 \
  --data-parallel-size-local 1 \
  --data-parallel-start-rank 0 \
  --data-parallel-address 10.10.10.37 \
  --data-parallel-rpc-port 40015 \
  --distributed-executor-backend mp \
  --host 10.10.10.37 \
  --port 40013
