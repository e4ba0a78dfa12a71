#!/bin/bash
# Reconstructed (not copied) after https://github.com/zejunchen-zejun/ATOM/blob/a70c1e47ed2e511ed0ae3110ab909978cfe9ca20/test_plugin/test.0.6.tp8.sh, seen 2026-12-04: the ATOM plugin for vLLM on ROCm: VLLM_ROCM_USE_ATOM_PLUGIN=1 with VLLM_ATTENTION_BACKEND=CUSTOM, an alias line, `rm -rf` of the cache, TP 8 of Qwen3-0.6B, fp8 KV cache, `--gpu_memory_utilization 0.03`, fastsafetensors, `2>&1 | tee log &` (kept: the structure and the flags)
alias gg='git fetch && git checkout origin/zejun/plugin_for_atom'

export VLLM_ROCM_USE_ATOM_PLUGIN=1
export VLLM_ATTENTION_BACKEND=CUSTOM

# TODO: for debug
export AMD_SERIALIZE_KERNEL=3

export SAFETENSORS_FAST_GPU=1
export VLLM_ROCM_USE_AITER=1
export VLLM_RPC_TIMEOUT=1800000

export VLLM_ROCM_USE_AITER_TRITON_ROPE=0

# cache dir
export VLLM_CACHE_ROOT=/root/.cache/vllm
export TORCHINDUCTOR_CACHE_DIR=/root/.cache/inductor

rm -rf /root/.cache/

model_path=/raid/data/model/Qwen3-0.6B

vllm serve $model_path \
    --host localhost \
    --port 9090 \
    --tensor-parallel-size 8 \
    --kv-cache-dtype fp8 \
    --trust-remote-code \
    --disable-log-requests \
    --gpu_memory_utilization 0.03 \
    --enforce-eager \
    --async-scheduling \
    --load-format fastsafetensors \
    --no-enable-chunked-prefill \
    2>&1 | tee log.serve.log &
