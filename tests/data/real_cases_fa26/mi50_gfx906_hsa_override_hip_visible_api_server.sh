#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/frieddeli/mi50-vllm-rocm-runtime/blob/799b8bc23b63b8059a6f84239fb2be216e86c18c/scripts/start_server.sh, seen 2026-12-04: vLLM on an AMD Instinct MI50 (gfx906, a runtime image built for it): `MODEL="${1:-...}"`, `PORT="${PORT:-8000}"`, HSA_OVERRIDE_GFX_VERSION=9.0.6, VLLM_USE_TRITON_FLASH_ATTN=0, HIP_VISIBLE_DEVICES=0, an echo banner, the API server with `--enforce-eager` (kept: the structure and the values)
# High-throughput vLLM serving script on AMD Instinct MI50 (32GB HBM2)

MODEL="${1:-Qwen/Qwen2.5-1.5B-Instruct}"
PORT="${PORT:-8000}"

export HSA_OVERRIDE_GFX_VERSION=9.0.6
export VLLM_USE_TRITON_FLASH_ATTN=0
export HIP_VISIBLE_DEVICES=0

echo "============================================================"
echo "Launching vLLM on AMD Instinct MI50 (32GB HBM2, gfx906)"
echo "Model: ${MODEL}"
echo "Port:  ${PORT}"
echo "============================================================"

python3 -m vllm.entrypoints.openai.api_server \
    --model "${MODEL}" \
    --port "${PORT}" \
    --host 0.0.0.0 \
    --gpu-memory-utilization 0.90 \
    --max-model-len 8192 \
    --enforce-eager \
    --trust-remote-code
