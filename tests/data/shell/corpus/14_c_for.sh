#!/bin/bash
N=2
for ((i = 0; i < N; i++)); do
  vllm serve /models/m --port $((8000 + i * 10)) --tensor-parallel-size $(( N / 2 ))
done
