#!/bin/bash
# Reconstructed (not copied) after https://github.com/Xiangxiangzhu/all-in-one-llm/blob/0ac0e11e2ddee5f7c71656f7a95854441eebec95/deploy_script/start_qwen2_5_72B_in4.sh, seen 2026-12-04: `source ~/.zshrc` and conda activated in a bash script, then `vllm serve` of a local GPTQ-Int4 Qwen2.5-72B with tp 4 on four listed GPUs.

source ~/.zshrc
conda activate vllm-infer

CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve /models/llm/Qwen/Qwen2___5-72B-Instruct-GPTQ-Int4 \
--host 0.0.0.0 \
--port 8012 \
--served-model-name Qwen/Qwen2_5-72B-Instruct-GPTQ-Int4 \
--tensor-parallel-size 4

