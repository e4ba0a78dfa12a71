#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/SemiAnalysisAI/InferenceX/pull/806: the MI355X gpt-oss script before the PR moved it to vLLM v0.16.0, whose rewrite removes --max-seq-len-to-capture and --async-scheduling, renames VLLM_USE_AITER_UNIFIED_ATTENTION to VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION, adds the missing VLLM_ROCM_USE_AITER=1 master toggle and drops VLLM_ROCM_USE_AITER_FUSED_MOE_A16W4 (no such variable); the runner's required variables given as stand-ins
MODEL=openai/gpt-oss-120b
PORT=8888
TP=8
MAX_MODEL_LEN=10240

cat > config.yaml << EOF2
compilation-config: '{"cudagraph_mode": "FULL_AND_PIECEWISE"}'
cuda-graph-sizes: 8192
EOF2

export VLLM_USE_AITER_UNIFIED_ATTENTION=1
export VLLM_ROCM_USE_AITER_MHA=0
export VLLM_ROCM_USE_AITER_FUSED_MOE_A16W4=1

set -x
vllm serve $MODEL --port $PORT \
--tensor-parallel-size=$TP \
--gpu-memory-utilization 0.95 \
--max-model-len $MAX_MODEL_LEN \
--max-seq-len-to-capture $MAX_MODEL_LEN \
--config config.yaml \
--block-size=64 \
--no-enable-prefix-caching \
--disable-log-requests \
--async-scheduling
