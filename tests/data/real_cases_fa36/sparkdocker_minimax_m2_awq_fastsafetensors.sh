#!/usr/bin/env bash
# Reconstructed (not copied) after https://github.com/eugr/spark-vllm-docker/blob/40f14579b29f50428b12da0ff3b0e330fc257d6d/examples/example-vllm-minimax.sh
# A launch profile for two GB10 nodes over Ray; kept as written (--load-format fastsafetensors, the
# minimax_m2_append_think reasoning parser).
vllm serve QuantTrio/MiniMax-M2-AWQ \
    --port 8000 \
    --host 0.0.0.0 \
    --gpu-memory-utilization 0.7 \
    -tp 2 \
    --distributed-executor-backend ray \
    --max-model-len 128000 \
    --load-format fastsafetensors \
    --enable-auto-tool-choice \
    --tool-call-parser minimax_m2 \
    --reasoning-parser minimax_m2_append_think
