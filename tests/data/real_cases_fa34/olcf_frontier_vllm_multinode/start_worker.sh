#!/bin/bash
# Reconstructed (not copied) after https://github.com/olcf/olcf_containers_examples/blob/5deb2b3fbed7c433f6fb5d99b450c9054e253fef/frontier/sample_apps/vllm/start_worker.sh
# (2025-10-08: the workers' script the job runs)

export VLLM_HOST_IP=$(hostname -I | awk '{print $2}')
echo "VLLM_HOST_IP: $VLLM_HOST_IP"
HEAD_NODE_ADDR=$@
ray start --node-ip-address $VLLM_HOST_IP --address=$HEAD_NODE_ADDR:6379 --block
