#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/eugr/spark-vllm-docker/blob/40f14579b29f50428b12da0ff3b0e330fc257d6d/examples/vllm-glm-4.7-nvfp4.sh
# A launch profile for two GB10 nodes over Ray (the profile needs a mod the repository applies to the checkpoint's
# k/v scales); kept as written, with --attention-config.backend.
vllm serve Salyut1/GLM-4.7-NVFP4 \
    --attention-config.backend flashinfer \
    --tool-call-parser glm47 \
    --reasoning-parser glm45 \
    --enable-auto-tool-choice \
    -tp 2 \
    --gpu-memory-utilization 0.88 \
    --max-model-len 32000 \
    --distributed-executor-backend ray \
    --host 0.0.0.0 \
    --port 8000
