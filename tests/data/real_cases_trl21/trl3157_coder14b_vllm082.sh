#!/bin/bash
# Source: https://github.com/huggingface/trl/issues/3157 (comment by ShobhaRajanna, 2025-03-26): TRL
# 0.17.0.dev0, vLLM 0.8.2, A100 80GB; the launch's arguments are right, the start fails inside vLLM
# ("NotImplementedError" in attention/backends/abstract.py get_state_cls): argtrace must not blame a setting.
trl vllm-serve \
  --model Qwen/Qwen2.5-Coder-14B-Instruct \
  --port 8000 \
  --gpu-memory-utilization 0.6 \
  --tensor-parallel-size 1 \
  --dtype bfloat16
