#!/bin/sh
# Reconstructed (not copied) after https://github.com/ROCm/vllm/issues/926 (2026-05-08: "use vllm images deployed deepseek-v4 report error" on the vllm-ascend:v0.18.0rc1 image, vLLM 0.18.0; the stored copy of the script stops at "--ena", so its tail is the v0.18.0 DeepSeek-V4-Flash tutorial's, as vllm-ascend#10363 quotes it: --tokenizer-mode, --tool-call-parser and --reasoning-parser deepseek_v4); the sysctl lines dropped
export LD_PRELOAD=/usr/lib/aarch64-linux-gnu/libjemalloc.so.2:$LD_PRELOAD
export OMP_PROC_BIND=false
export OMP_NUM_THREADS=8
export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True
export ACL_OP_INIT_MODE=1
export VLLM_ASCEND_ENABLE_FLASHCOMM1=1
export USE_MULTI_GROUPS_KV_CACHE=1
export TASK_QUEUE_ENABLE=1
export HCCL_OP_EXPANSION_MODE="AIV"
export HCCL_BUFFSIZE=512
export USE_MULTI_BLOCK_POOL=1

vllm serve /data/share/models/DeepSeek-V4-Flash-w8a8-mtp \
          --safetensors-load-strategy 'prefetch' \
          --max-model-len 135168 \
          --max-num-batched-tokens 4096 \
          --served-model-name ds \
          --gpu-memory-utilization 0.92 \
          --max-num-seqs 16 \
          --data-parallel-size 1 \
          --tensor-parallel-size 8 \
          --enable-expert-parallel \
          --quantization ascend \
          --port 7000 \
          --block-size 128 \
          --enable-chunked-prefill \
          --enable-prefix-caching \
          --tokenizer-mode deepseek_v4 \
          --tool-call-parser deepseek_v4 \
          --enable-auto-tool-choice \
          --reasoning-parser deepseek_v4 \
          --async-scheduling
