#!/bin/bash
# Reconstructed (not copied) after https://github.com/mikeandike523/RAG-Exploration/blob/391181d9713f1ddca742269c41e47ed751eea7e8/vllm_servers/mistral.sh, seen 2026-12-04: Mistral-Nemo with the mistral tokenizer mode, fp8 on the fly, TP 2 on two exported devices (NVIDIA_VISIBLE_DEVICES too), 96 GB CPU offload, `--max-seq-len-to-capture` (kept: the structure and the flags)

export NVIDIA_VISIBLE_DEVICES="1,2"
export CUDA_VISIBLE_DEVICES="1,2"

vllm serve mistralai/Mistral-Nemo-Instruct-2407 \
  --tokenizer-mode mistral \
  --dtype bfloat16 \
  --quantization fp8 \
  --tensor-parallel-size 2 \
  --pipeline-parallel-size 1 \
  --gpu-memory-utilization 0.85 \
  --swap-space 16 \
  --cpu-offload-gb 96 \
  --max-model-len 8192 \
  --max-seq-len-to-capture 8192 \
  --port 8008
