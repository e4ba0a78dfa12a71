#!/bin/bash
# Reconstructed (not copied) after https://github.com/FlagOpen/FlagScale/blob/2c5ef7e93b4062c9cf62fbf31a834d8ce2fb9854/flagscale/backends/omniinfer/tests/start_vllm_server/deepseek_dp8_tp1_ep1.sh, seen 2026-12-04: a copyright line, `set -e`, `MODEL_PATH=$1`, one `vllm serve ${MODEL_PATH}` line with `--name=value` words, `-tp=4`, `--data-parallel-size-local 2`, two blanks before `-tp`, `--block_size 128`, no final newline.

# (copyright notice of the source, 2025)

set -e

MODEL_PATH=$1
vllm serve ${MODEL_PATH} --served-model-name=deepseek --trust-remote-code --max-model-len=8192 --gpu-memory-utilization=0.95 --data-parallel-size 2 --data-parallel-size-local 2  -tp=4 --enable-expert-parallel --block_size 128