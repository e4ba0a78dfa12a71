#!/bin/bash
# https://github.com/EleutherAI/lm-evaluation-harness/issues/3782 (the reporter's pplx run of 2026-05-23, as posted; the prompt dropped): "Evaluation metrics are lower with all2all-backend=pplx than with naive all2all manager": VLLM_ALL2ALL_BACKEND selects nothing on the vLLM releases of 2026 (read up to 0.14.1; --all2all-backend since), and pplx itself was removed (vllm PR#33724)
CUDA_VISIBLE_DEVICES=0,1   VLLM_ALL2ALL_BACKEND=pplx      VLLM_WORKER_MULTIPROC_METHOD=spawn lm_eval   --model vllm   --model_args '{
    "pretrained": "/data3/backend/Download/shared_dataset/DeepSeek-V2-Lite-chat",
    "tensor_parallel_size": 1,
    "dtype": "auto",
    "gpu_memory_utilization": 0.5,
    "data_parallel_size": 2,
    "trust_remote_code": true,
    "enable_expert_parallel": true,
    "max_model_len": 4096,
    "enforce_eager": true,
    "seed": 1234
  }'   --tasks tinyGSM8k   --batch_size auto
