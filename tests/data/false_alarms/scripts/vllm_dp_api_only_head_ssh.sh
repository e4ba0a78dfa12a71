#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/blob/01e4fce07423dafcc832600ba05159fb28dc1126/docs/serving/data_parallel_deployment.md (Internal Load Balancing: only the API server on the first node, all engines on the second), seen 2026-12-02: the two node commands with their flags and values; $MODEL set and the ssh lines (one per node, the venv's vllm) ours.
MODEL=Qwen/Qwen3-30B-A3B
ssh 10.99.48.128 /opt/venv/bin/vllm serve $MODEL --data-parallel-size 4 --data-parallel-size-local 0 \
    --data-parallel-address 10.99.48.128 --data-parallel-rpc-port 13345 &
ssh 10.99.48.129 /opt/venv/bin/vllm serve $MODEL --headless --data-parallel-size 4 --data-parallel-size-local 4 \
    --data-parallel-address 10.99.48.128 --data-parallel-rpc-port 13345 &
wait
