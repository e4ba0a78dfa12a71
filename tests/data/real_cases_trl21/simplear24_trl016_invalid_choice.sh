#!/bin/bash
# Source: https://github.com/wdrink/SimpleAR/issues/24 (2025-05-19): trl 0.16.0.dev0 from the project's
# instructions; "TRL CLI: error: argument command: invalid choice: 'vllm-serve' (choose from 'chat', 'dpo',
# 'env', 'grpo', 'kto', 'sft')" (a TRL built before its CLI had the subcommand; the launch as posted).
CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model /share/project/code/SimpleAR/ckpts/SimpleAR-0.5B-SFT
