#!/bin/bash
# Reconstructed (not copied) after https://github.com/jhlu2019/GustoBot/blob/c393d4f0b585d84261fa6e9c0b84aed90c464cf5/scripts/vllm_start_glm_4.5v_fp8.sh, seen 2026-12-04: GLM-4.5V-FP8 from ModelScope (VLLM_USE_MODELSCOPE=true), a conda env's vllm by its path, `--trust_remote_code`, `--max-model-len 16384\` (no blank before the backslash), the glm45 tool parser (kept: the flags; the API key replaced)
export MODELSCOPE_CACHE=/data/models
export VLLM_USE_MODELSCOPE=true

/home/kdsoft/miniconda3/envs/glm-4.5v/bin/vllm serve /data/models/GLM-4.5V-FP8 \
  --trust_remote_code \
  --tensor-parallel-size 4 \
  --gpu-memory-utilization 0.6 \
  --port 8003 \
  --max-model-len 16384\
  --served-model-name GLM-4.5V \
  --api-key sk-local-example \
  --tool-call-parser glm45   \
  --enable-auto-tool-choice
