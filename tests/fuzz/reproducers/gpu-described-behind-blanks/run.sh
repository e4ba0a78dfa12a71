#!/bin/bash
export HF_TOKEN=hf_mIJAX3JEVSfuW1urYVCoRbAj
vllm serve model --gpu-memory-utilization 0.95 --max-model-len 8192
