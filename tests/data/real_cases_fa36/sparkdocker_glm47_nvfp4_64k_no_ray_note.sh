#!/bin/bash
# Reconstructed (not copied) after https://github.com/eugr/spark-vllm-docker/blob/59e04f3269271b6b353076e33faf960c51d1ba3b/examples/vllm-glm-4.7-nvfp4-64k.sh
# The 64K-context GLM-4.7 NVFP4 profile for two GB10 nodes (its notes: verified on vLLM 0.23.x, TP 2, about
# 17.5 tok/s); kept as written, the header notes shortened.
vllm serve Salyut1/GLM-4.7-NVFP4 \
    --attention-config.backend flashinfer \
    --tool-call-parser glm47 \
    --reasoning-parser glm45 \
    --enable-auto-tool-choice \
    -tp 2 \
    --gpu-memory-utilization 0.90 \
    --max-num-batched-tokens 8192 \
    --max-num-seqs 8 \
    --max-model-len 65536 \
    --distributed-executor-backend ray \
    --host 0.0.0.0 \
    --port 8000
