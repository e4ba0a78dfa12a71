#!/bin/sh
# https://github.com/vllm-project/vllm-ascend/pull/5581 -- correct: the Qwen2.5-7B tutorial's deploy.sh after the fix (2026-01-04), ASCEND_RT_VISIBLE_DEVICES spelt right
export ASCEND_RT_VISIBLE_DEVICES=0
export MODEL_PATH="Qwen/Qwen2.5-7B-Instruct"

vllm serve ${MODEL_PATH} \
          --host 0.0.0.0 \
          --port 8000 \
          --served-model-name qwen-2.5-7b-instruct \
          --trust-remote-code \
          --max-model-len 32768
