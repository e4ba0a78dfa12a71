#!/bin/bash
# Source: TRL's docs (https://huggingface.co/docs/trl/main/en/vllm_integration, "trl vllm-serve"): a vLLM
# flag TRL's ScriptArguments lack, forwarded to `vllm serve` by TRL 1.11.0 and later; 4 GPUs for TP 2 x DP 2.
CUDA_VISIBLE_DEVICES=0,1,2,3 uv run trl vllm-serve --model Qwen/Qwen2.5-7B --tensor-parallel-size 2 \
    --data-parallel-size 2 --max-num-seqs 64
