#!/bin/bash
# Reconstructed (not copied) after https://github.com/zejunchen-zejun/ATOMModelBackendValidationHelper/blob/039d097e3e8a6c636a7033acb9ca7807e71669c3/vllm/dsr1/FP8/test.dsr1.fp8.oot.sh: the script as posted (ATOM's vLLM plugin on ROCm, DeepSeek-R1 FP8 TP 8 with EP, --gpu_memory_utilization, a JSON compilation config, piped to tee in the background)
echo "run atom + vllm"

# for plugin
unset VLLM_ATTENTION_BACKEND

# quick allreduce
export AITER_QUICK_REDUCE_QUANTIZATION=INT4

export SAFETENSORS_FAST_GPU=1
# export VLLM_ROCM_USE_AITER=1
export VLLM_RPC_TIMEOUT=1800000

# for profiling
# export VLLM_CUSTOM_SCOPES_FOR_PROFILING=1
# export VLLM_TORCH_PROFILER_WITH_STACK=1
# export VLLM_TORCH_PROFILER_RECORD_SHAPES=1
# export VLLM_TORCH_PROFILER_DIR=./

export ATOM_DUAL_STREAM_MOE_TOKEN_THRESHOLD=0

# cache dir
export VLLM_CACHE_ROOT=/root/.cache/vllm
export TORCHINDUCTOR_CACHE_DIR=/root/.cache/inductor

rm -rf /root/.cache/

model_path=/shared/data/amd_int/models/DeepSeek-R1-0528

echo "Starting server with model: $model_path"

vllm serve $model_path \
    --host localhost \
    --port 8000 \
    --tensor-parallel-size 8 \
    --enable-expert-parallel \
    --trust-remote-code \
    --gpu_memory_utilization 0.9 \
    --async-scheduling \
    --load-format fastsafetensors \
    --compilation-config '{"cudagraph_mode": "FULL_AND_PIECEWISE"}' \
    --kv-cache-dtype fp8 \
    --max-num-batched-tokens 18432 \
    --max-model-len 16384 \
    --no-enable-prefix-caching \
    2>&1 | tee log.serve.log &

    # --kv-cache-dtype fp8 \
    # --max-model-len 32768 \
    # --max-num-batched-tokens 16384 \
    # --no-enable-chunked-prefill \
    # --enable-expert-parallel \
