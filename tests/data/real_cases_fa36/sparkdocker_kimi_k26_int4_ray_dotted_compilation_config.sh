#!/bin/bash
# Reconstructed (not copied) after https://github.com/eugr/spark-vllm-docker/blob/8c6eb1f6cfb7701f07fdcddc9bf27288b82247ce/examples/kimi-k2.6-native-int4.sh
# A launch profile the repository's launch-cluster.sh runs inside its container on a cluster of DGX Sparks (GB10)
# over Ray; kept: the exports (a subset of the NCCL ones) and the vllm serve line as written.
export HF_HUB_OFFLINE="1"
export NCCL_IB_DISABLE="0"
export NCCL_IB_GID_INDEX="3"
export NCCL_CUMEM_ENABLE="0"
export NCCL_NVLS_ENABLE="0"
export NCCL_ALGO="Ring"
export RAY_CGRAPH_get_timeout="900"
export TRANSFORMERS_OFFLINE="1"
export VLLM_ALLOW_LONG_MAX_MODEL_LEN="1"
export VLLM_NO_USAGE_STATS="1"
export VLLM_USE_FLASHINFER_MOE_FP4="1"

vllm serve moonshotai/Kimi-K2.6 \
  --served-model-name moonshotai/Kimi-K2.6 \
  --kv-cache-dtype fp8 \
  --safetensors-load-strategy lazy \
  --mm-encoder-tp-mode data \
  --attention-backend TRITON_MLA \
  --skip-mm-profiling \
  --compilation_config.pass_config.fuse_allreduce_rms true \
  --enforce-eager \
  --no-async-scheduling \
  --no-enable-prefix-caching \
  --tool-call-parser kimi_k2 \
  --reasoning-parser kimi_k2 \
  --enable-auto-tool-choice \
  --trust-remote-code \
  --gpu-memory-utilization 0.76 \
  --max-model-len 16384 \
  --max-num-seqs 1 \
  --host 0.0.0.0 \
  --port 30020 \
  --tensor-parallel-size 8 \
  --distributed-executor-backend ray
