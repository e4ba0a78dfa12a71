# source: https://github.com/vllm-project/vllm/issues/17238 (2025-04-27) "两张3090使用vllm部署Qwen2.5-32B-Instruct-INT8-W8A16， 显存共48g无法启动" (two 3090s cannot start it)
# GPU: 2x RTX 3090 (24 GB). Release: vLLM 0.8.1 (V1). The report: "ValueError: No available memory for the cache blocks. Try increasing
# `gpu_memory_utilization`"; with --max-num-seqs 4 or 8 it "can be started normally now" (42 GB in use). Model config:
# models/qwen2.5-32b-instruct-int8-w8a16 (Qwen2.5-32B with an int8 channel-wise compressed-tensors quantization_config).
vllm serve Qwen2.5-32B-Instruct-INT8-W8A16 --tensor-parallel-size 2 --gpu-memory-utilization 0.9 --max-model-len 4096 --enforce-eager
