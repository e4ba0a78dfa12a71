#!/bin/bash
CUDA_VISIBLE_DEVICES=2,3 TOKENIZERS_PARALLELISM=true python -m vllm.entrypoints.openai.api_server \
 --model /models/Qwen2-VL/pretrained/qwen2_vl_lora \
 --host 0.0.0.0 --port 8000 --tensor-parallel-size 2 \
 --gpu-memory-utilization 0.33 --max-model-len 32768 \
 --served-model-name qwen2-vl
