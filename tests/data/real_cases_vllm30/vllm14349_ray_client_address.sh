#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/issues/14349 (2025-03-06: "vllm cannot connect to an external ray cluster": RAY_ADDRESS is a Ray Client address, ray://HEAD:10001, and VLLM_HOST_IP the container's own address; vLLM's ray.init goes through the Ray Client and the start fails); the two variables the report echoes, exported before the command it runs
export RAY_ADDRESS=ray://192.168.1.67:10001
export VLLM_HOST_IP=192.168.1.69
vllm serve /data/llm_models/DeepSeek-R1-Distill-Qwen-14B --tensor-parallel-size 1 --pipeline-parallel-size 2
