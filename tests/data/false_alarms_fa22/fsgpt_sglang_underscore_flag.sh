#!/bin/bash
# Reconstructed (not copied) after https://github.com/iisquare/fs-gpt/blob/2a6588ddcc77e118a0b5f6f5d47cfd2892a9a38d/sbin/sglang.sh, seen 2026-12-04: PROJECT_ROOT from `dirname $(dirname $(readlink -f $0))`, the exported GPU, and the nohup'd server with `--mem_fraction_static 0.9` logging to a file with `>`.
PROJECT_ROOT=$(dirname $(dirname $(readlink -f $0)))
MODEL_PATH=${PROJECT_ROOT}/models/Qwen2.5-32B-Instruct-GPTQ-Int4

export CUDA_VISIBLE_DEVICES=1

nohup python -m sglang.launch_server --model-path ${MODEL_PATH} \
--trust-remote-code \
--tp 1 \
--mem_fraction_static 0.9 \
--host 0.0.0.0 \
--port 6011 \
> ${PROJECT_ROOT}/logs/sglang.log 2>&1 &
