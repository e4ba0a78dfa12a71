#!/bin/bash
# Source: https://github.com/huggingface/trl/issues/3467 (comment by shirinyamani, 2025-05-22): a maintainer's
# launch that "successfully initialized the server" (a correct launch).
CUDA_VISIBLE_DEVICES=0 trl vllm-serve  --max_model_len 512 --model "Qwen/Qwen3-1.7B"
