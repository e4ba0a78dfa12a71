# https://github.com/vllm-project/vllm/issues/26206 (vLLM 0.11.0, 2025-10-06 comment: "Cannot re-initialize the input batch when CPU weight offloading is enabled")
vllm serve --gpu-memory-utilization 0.96 --tensor-parallel-size 2 --max_num_seqs 1 --max-model-len 40000 Qwen/Qwen3-Next-80B-A3B-Instruct-FP8 --cpu-offload-gb 30
