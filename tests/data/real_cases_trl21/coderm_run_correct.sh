#!/bin/bash
# Source: https://github.com/Zityuen/open-r1-coderm/blob/main/run.sh (a correct launch: TRL's module form,
# HfArgumentParser's underscore spellings, a bool option given `true`); the training command after it is
# left out.
CUDA_VISIBLE_DEVICES=0 python -m trl.scripts.vllm_serve \
    --model KAKA22/CodeRM-8B \
    --tensor_parallel_size 1 \
    --gpu_memory_utilization 0.85 \
    --max_model_len 4608 \
    --port 8000 \
    --enable_prefix_caching true
