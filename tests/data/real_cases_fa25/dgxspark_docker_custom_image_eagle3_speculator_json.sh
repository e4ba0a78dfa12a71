#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/shaunsingh/dgx-spark-utilities/blob/4a9cef475a688168578914cbddecd2de402ba1a6/models/gpt20b_mxfp4_vllm_oem.sh, seen 2026-12-04: gpt-oss-20b on a DGX Spark: `docker run` of a locally built image (vllm:intellect3), `-v "${HF_HOME:-$HOME/.cache/huggingface}:..."`, `-e NAME="${NAME:-default}"` pairs, then engine flags: async scheduling, an EAGLE-3 speculator in single-quoted JSON, the openai tool parser (kept: the whole command)
set -euo pipefail

docker run \
  --runtime nvidia \
  --gpus all \
  -p 8000:8000 \
  --ipc=host \
  --shm-size=16g \
  -v "${HF_HOME:-$HOME/.cache/huggingface}:/root/.cache/huggingface" \
  -e VLLM_LOGGING_LEVEL="${VLLM_LOGGING_LEVEL:-INFO}" \
  -e VLLM_USE_FLASHINFER_MOE_FP4=1 \
  -e VLLM_FLASHINFER_MOE_BACKEND="${VLLM_FLASHINFER_MOE_BACKEND:-throughput}" \
  -e FLASHINFER_LOGGING_LEVEL="${FLASHINFER_LOGGING_LEVEL:-error}" \
  vllm:intellect3 \
  --model openai/gpt-oss-20b \
  --async-scheduling \
  --gpu-memory-utilization 0.4 \
  --speculative-config '{"model":"RedHatAI/gpt-oss-20b-speculator.eagle3","num_speculative_tokens":3,"draft_tensor_parallel_size":1}' \
  --enable-auto-tool-choice \
  --tool-call-parser openai
