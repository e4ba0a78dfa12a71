#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/SemiAnalysisAI/InferenceX/pull/806: the MI355X gpt-oss script as the PR leaves it for vLLM v0.16.0 (the AITER master toggle, the renamed unified-attention variable, no --max-seq-len-to-capture, the compilation config on the command line); the runner's required variables given as stand-ins, the power monitor and the benchmark cut
MODEL=openai/gpt-oss-120b
PORT=8888
TP=8
MAX_MODEL_LEN=10240

# Set HIP_VISIBLE_DEVICES to match ROCR_VISIBLE_DEVICES for Ray compatibility in vLLM 0.14+
if [ -n "$ROCR_VISIBLE_DEVICES" ]; then
    export HIP_VISIBLE_DEVICES="$ROCR_VISIBLE_DEVICES"
fi

export VLLM_ROCM_USE_AITER=1
export VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION=1
export VLLM_ROCM_USE_AITER_MHA=0
export VLLM_ROCM_QUICK_REDUCE_QUANTIZATION=INT4

set -x
vllm serve $MODEL --port $PORT \
--tensor-parallel-size=$TP \
--gpu-memory-utilization 0.95 \
--max-model-len $MAX_MODEL_LEN \
--compilation-config  '{"cudagraph_mode": "FULL_AND_PIECEWISE"}' \
--block-size=64 \
--no-enable-prefix-caching
