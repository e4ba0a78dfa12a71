#!/bin/sh
# https://github.com/vllm-project/vllm-ascend/issues/5580 -- vllm-ascend's Qwen2.5-7B tutorial (docs/source/tutorials/Qwen2.5-7B.md, 2026-01), its deploy.sh as printed; the issue: "export ASCEBD_RT_VISIBLE_DEVICES=0 拼写错误" (PR#5581 renamed it to ASCEND_RT_VISIBLE_DEVICES)
export ASCEBD_RT_VISIBLE_DEVICES=0
export MODEL_PATH="Qwen/Qwen2.5-7B-Instruct"

vllm serve ${MODEL_PATH} \
          --host 0.0.0.0 \
          --port 8000 \
          --served-model-name qwen-2.5-7b-instruct \
          --trust-remote-code \
          --max-model-len 32768
