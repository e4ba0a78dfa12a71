#!/bin/bash
# Reconstructed (not copied) after https://github.com/olcf/olcf_containers_examples/blob/55fa7630df20474358e70a48658eb75000cf522f/frontier/sample_apps/vllm/start_head_bb.sh, seen 2026-12-04: `NNODES=$1`, `RUN_MODEL="$2"`, HIP_VISIBLE_DEVICES from $SLURM_STEP_GPUS, VLLM_HOST_IP from `hostname -I | awk`, `ray start --head`, and `vllm serve` with `--pipeline-parallel-size $NNODES` and the ray executor.

NNODES=$1
RUN_MODEL="$2"
export HIP_VISIBLE_DEVICES=$SLURM_STEP_GPUS
export VLLM_HOST_IP=$(hostname -I | awk '{print $2}')

ray start --node-ip-address=$VLLM_HOST_IP --head --port=6379 

sleep 40
ray status

vllm serve --tensor-parallel-size 8 --pipeline-parallel-size $NNODES --distributed-executor-backend ray "/mnt/bb/$USER/$RUN_MODEL" --host 0.0.0.0 --port 8000 --gpu-memory-utilization 0.75
