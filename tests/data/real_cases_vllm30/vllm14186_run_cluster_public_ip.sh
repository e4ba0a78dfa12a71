#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/14186 (2025-03-04: two servers with one RTX 4060 each, started with vLLM's examples/online_serving/run_cluster.sh and VLLM_HOST_IP set to each server's public address; Ray registers the head as 172.16.1.2, so the placement group's {'node:111.6.168.225': 0.001, 'GPU': 1.0} bundle is never met); the head's two commands, the worker's run_cluster.sh left out (it runs on the other server)
bash run_cluster.sh \
    vllm/vllm-openai \
    111.6.168.225 \
    --head \
    /home/funhpc/dir \
    -e VLLM_HOST_IP=111.6.168.225
# then, inside the head's container
vllm serve /root/.cache/huggingface --tensor-parallel-size 2
