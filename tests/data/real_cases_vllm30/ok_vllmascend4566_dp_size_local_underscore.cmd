# https://github.com/vllm-project/vllm-ascend/pull/4566 (2025-11-29, vLLM 0.11.2: the DeepSeek-R1 tutorial's first node; a review bot calls --data-parallel-size_local a typo that fails the command, but vLLM's parser turns the underscores of an option's name into dashes); the flags the review quotes, the model path the tutorial's placeholder, the exported variables left out
vllm serve path/DeepSeek-R1-W8A8 \
  --host 0.0.0.0 \
  --port 8000 \
  --data-parallel-size 4 \
  --data-parallel-size_local 2
