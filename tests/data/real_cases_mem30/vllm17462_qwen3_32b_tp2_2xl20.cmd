# source: https://github.com/vllm-project/vllm/issues/17462 (2025-04-30) "[Bug]: 0.8.4/0.85 V1 engine serve Qwen3-32B USE L20*2 CUDA out of memory but V0 no problem"
# GPU: 2x L20 (48 GB). Release: vLLM 0.8.5 (0.8.4 the same). The report: "GPU KV cache size: 67,856 tokens", then CUDA out of memory
# in the workers after compiling (the CUDA graph capture); V0 starts. Model config: models/qwen3-32b (a copy of tests/data/models/qwen3-32b).
vllm serve Qwen3-32B --tensor-parallel-size 2
