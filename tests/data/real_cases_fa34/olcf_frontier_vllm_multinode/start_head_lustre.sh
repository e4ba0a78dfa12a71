#!/bin/bash
# Reconstructed (not copied) after https://github.com/olcf/olcf_containers_examples/blob/5deb2b3fbed7c433f6fb5d99b450c9054e253fef/frontier/sample_apps/vllm/start_head_lustre.sh
# (2025-10-08: the head's script the job runs)

NNODES=$@
export VLLM_HOST_IP=$(hostname -I | awk '{print $2}')
echo "VLLM_HOST_IP: $VLLM_HOST_IP"
ray start --node-ip-address=$VLLM_HOST_IP --head --port=6379 

sleep 10
echo "head node: slurm nnodes - $NNODES"

ray status

vllm serve --chat-template "./chattemplate.jinja" --tensor-parallel-size 8 --pipeline-parallel-size $NNODES --distributed-executor-backend ray "./astrollama-2-7b-base_abstract" --host 0.0.0.0 --port 8000 
