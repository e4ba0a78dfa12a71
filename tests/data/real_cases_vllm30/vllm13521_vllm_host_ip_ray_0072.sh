#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/13521 (2025-02-19, vLLM 0.7.2: two one-GPU nodes joined by Ray, the head started with --node-ip-address HEAD-IP, and the server started on the head with VLLM_HOST_IP=HEAD-IP, --tensor-parallel-size 2 and the Ray executor; the placement of the second rank fails); HEAD-IP is the report's placeholder, written here as 10.0.0.1, and the worker's ray start is left out (it runs on the other node)
RAY_num_heartbeats_timeout=600 ray start --head --node-ip-address 10.0.0.1 \
    --port 6379 --ray-client-server-port 10001 --object-manager-port=8076 --node-manager-port=8077
VLLM_HOST_IP=10.0.0.1 vllm serve NousResearch/Meta-Llama-3.1-8B-Instruct --max-model-len 8192 \
    --tensor-parallel-size 2 --distributed-executor-backend ray
