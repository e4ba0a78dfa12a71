# https://github.com/vllm-project/vllm/issues/14687 (vLLM 0.7.3, 2025-03-12: "AttributeError: 'Gemma3Config' object has no attribute 'vocab_size'"; Gemma 3 came with 0.8.0)
vllm serve "google/gemma-3-12b-it" --tensor-parallel-size 2
