#!/bin/bash
# Reconstructed (not copied) after https://qwen.readthedocs.io/en/stable/deployment/vllm.html (API Service), seen 2026-12-01: VLLM_USE_MODELSCOPE exported to download from ModelScope, then the tensor-parallel serve of Qwen3-8B on 4 GPUs.
export VLLM_USE_MODELSCOPE=true
vllm serve Qwen/Qwen3-8B --tensor-parallel-size 4
