#!/bin/bash
# args: 2
MODEL_PATH='Qwen/Qwen3-8B'
VLLM_PORT=8880
TENSOR_PARALLEL_SIZE=$1
if [ -z "$TENSOR_PARALLEL_SIZE" ]; then
    TENSOR_PARALLEL_SIZE=1
fi
if [ "$TENSOR_PARALLEL_SIZE" -eq 2 ]; then
    CUDA_VISIBLE_DEVICES=0,1
else
    CUDA_VISIBLE_DEVICES=0
fi
printf "Initializing vLLM server with %s GPUs (CUDA_VISIBLE_DEVICES=%s)\n" "$TENSOR_PARALLEL_SIZE" "$CUDA_VISIBLE_DEVICES"
CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES vllm serve "$MODEL_PATH" \
    --port "$VLLM_PORT" \
    --tensor-parallel-size "$TENSOR_PARALLEL_SIZE" \
    --gpu-memory-utilization 0.85
