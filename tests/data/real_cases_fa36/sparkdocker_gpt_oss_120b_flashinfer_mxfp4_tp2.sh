#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/eugr/spark-vllm-docker/blob/065fb920f04f860ec503820eed4281d20c57950e/examples/vllm-openai-gpt-oss-120b.sh
# A launch profile for two GB10 nodes; kept as written.
export VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1

vllm serve openai/gpt-oss-120b \
    --tool-call-parser openai \
    --enable-auto-tool-choice \
    --tensor-parallel-size 2 \
    --kv-cache-dtype fp8 \
    --gpu-memory-utilization 0.70 \
    --max-model-len 128000 \
    --max-num-batched-tokens 4096 \
    --max-num-seqs 8 \
    --enable-prefix-caching \
    --host 0.0.0.0 \
    --port 8000
