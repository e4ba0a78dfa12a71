#!/bin/bash
# Reconstructed (not copied) after https://github.com/vllm-project/vllm/pull/53743: external LB, one DP rank per vLLM instance, two instances sharing a node (the PR's fixed case); the MoE model is a stand-in
CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-30B-A3B --port 8001 --tensor-parallel-size 2 --data-parallel-size 2 --data-parallel-rank 0 --data-parallel-address 127.0.0.1 --data-parallel-rpc-port 13345 --enable-expert-parallel &
CUDA_VISIBLE_DEVICES=2,3 vllm serve Qwen/Qwen3-30B-A3B --port 8002 --tensor-parallel-size 2 --data-parallel-size 2 --data-parallel-rank 1 --data-parallel-address 127.0.0.1 --data-parallel-rpc-port 13345 --enable-expert-parallel &
wait
