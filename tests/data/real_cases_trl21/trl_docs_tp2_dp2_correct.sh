#!/bin/bash
# Source: TRL's docs, docs/source/vllm_integration.md ("Then run the server", a node with 8 GPUs;
# https://github.com/huggingface/trl/blob/main/docs/source/vllm_integration.md): a correct launch, TP 2 x DP 2
# written with dashes.
trl vllm-serve --model Qwen/Qwen2.5-7B --tensor-parallel-size 2 --data-parallel-size 2
